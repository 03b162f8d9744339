import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { clientSourceLimited, noCache, type OperationDoc } from '../lib/http/operation-doc';
import { document, ok } from '../lib/http/reply';
import { authenticateClient, presentedClient } from '../lib/oauth/client-auth';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { clientOrigins } from '../lib/oauth/cors';
import { dpopErrors, dpopNonceHeader, verifyDpopProof } from '../lib/oauth/dpop';
import { NO_CACHE, oauthErrors, rfcErrorFormat } from '../lib/oauth/errors';
import { issueTokens, tokenGrant } from '../lib/oauth/token';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import * as z from '../lib/zod';

/** docs/api.md 4.7 plus PKCE and scope; the client's credentials may come by HTTP Basic instead. */
export const body = z.object({
  grant_type: z.string().check(z.minLength(1), z.maxLength(64)),
  client_id: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  client_secret: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
  code: z.optional(z.string().check(z.maxLength(128))),
  redirect_uri: z.optional(z.string().check(z.maxLength(2000))),
  code_verifier: z.optional(z.string().check(z.maxLength(128))),
  refresh_token: z.optional(z.string().check(z.maxLength(512))),
  scope: z.optional(z.string().check(z.maxLength(1024))),
  /** RFC 8707: the resource server the access token is for (one per request). */
  resource: z.optional(z.string().check(z.maxLength(2000))),
  /** RFC 8628 3.4: the device code grant's (docs/api.md 16.4). */
  device_code: z.optional(z.string().check(z.maxLength(128))),
});

/**
 * POST /oauth2/token (docs/api.md 4.7): JSON in and envelope out as the seed, or a form
 * body and RFC 6749 answers. The rules 1–3 of docs/api.md 4.7 and the DPoP proof's own
 * checks (docs/api.md 16.3) come before client authentication.
 */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  const nonces = { nonces: deps.dpopNonces, required: deps.config.dpopNonceRequired };
  return httpHandler(
    deps,
    {
      identity: 'none',
      body,
      acceptForm: true,
      formatError: rfcErrorFormat,
      corsOrigins: clientOrigins(deps),
      prefetch: prefetchKeys(deps.keys),
    },
    async ({ body, headers, bodyFormat, deps, sourceIp, event }) => {
      const presented = presentedClient(headers, body, bodyFormat);
      const grant = tokenGrant(body);
      const dpop = { header: headers.dpop, method: event.requestContext.http.method, url: `${deps.config.issuer}/oauth2/token` };
      const proof = await verifyDpopProof(deps, 'token', dpop, nonces);
      const client = await authenticateClient(deps, presented, sourceIp);
      const tokens = await issueTokens(deps, client, grant, proof);
      const answerHeaders = { ...NO_CACHE, ...(proof ? await dpopNonceHeader(deps, nonces) : {}) };
      return bodyFormat === 'form' ? document(tokens, 200, answerHeaders) : ok(tokens, 200, answerHeaders);
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.7',
  summary: 'The token endpoint: authorization_code, refresh_token, client_credentials, device_code',
  tag: 'oauth2',
  caller: 'client',
  bodyTypes: ['json', 'form'],
  rfcErrors: true,
  answers: [
    {
      status: 200,
      description: 'Tokens: in the envelope for a JSON request, as the RFC 6749 5.1 document for a form request.',
      body: ['OAuthTokenPayloadEnvelope', 'OAuthTokenPayload'],
      headers: noCache,
    },
  ],
  failures: [
    {
      error: new ValidationError('client_id: Invalid input: expected string, received undefined', {
        fields: [{ path: 'client_id', message: 'Invalid input: expected string, received undefined' }],
      }),
      only: 'json',
    },
    oauthErrors.missingParameters(),
    oauthErrors.missingRefreshToken(),
    oauthErrors.unsupportedGrantType(),
    oauthErrors.invalidClient(true),
    clientSourceLimited,
    oauthErrors.unauthorizedClient(),
    oauthErrors.invalidGrant(),
    oauthErrors.invalidScope(),
    dpopErrors.invalidProof('token'),
    dpopErrors.useNonce('n1.0.AAAAAAAAAAAAAAAAAAAAAA'),
    oauthErrors.authorizationPending(),
    oauthErrors.slowDown(),
    oauthErrors.accessDenied(),
    oauthErrors.expiredToken(),
  ],
};
