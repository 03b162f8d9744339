import type { Deps } from '../deps';
import { httpHandler } from '../http/handler';
import type { Reply } from '../http/reply';
import * as z from '../zod';
import { isPublicClient, type OAuthClient } from './client';
import { authenticateClient, presentedClient } from './client-auth';
import { requireClientSecretPepper } from './client-secret';
import { clientOrigins } from './cors';
import { oauthErrors, rfcErrorFormat } from './errors';

/** The body of the endpoints where a client asks about one of its tokens (RFC 7009 2.1, RFC 7662 2.1). */
export const clientTokenBody = z.object({
  token: z.optional(z.string().check(z.maxLength(4096))),
  token_type_hint: z.optional(z.string().check(z.maxLength(64))),
  client_id: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  client_secret: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});

/**
 * revoke and introspect: form-encoded only, the client authenticated (HTTP Basic or
 * the body), then `token` required; `handle` gets the authenticated client and the token.
 * Failures answer in RFC 6749 5.2 format. A public client, known by its `client_id`
 * alone, is let in only where `publicClients` says so (docs/api.md 16.1: revocation yes,
 * RFC 7009 2.1; introspection no, RFC 7662 2.1 wants an authenticated caller).
 */
export function clientTokenRoute(
  deps: Deps,
  /** `clientCors`: CORS answers per client (docs/api.md 16.2), for the revocation endpoint. */
  options: { publicClients: boolean; clientCors?: boolean },
  handle: (deps: Deps, client: OAuthClient, token: string) => Promise<Reply>,
) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    {
      identity: 'none',
      body: clientTokenBody,
      acceptForm: true,
      formatError: rfcErrorFormat,
      ...(options.clientCors ? { corsOrigins: clientOrigins(deps) } : {}),
    },
    async ({ body, headers, bodyFormat, deps, sourceIp }) => {
      if (bodyFormat !== 'form') throw oauthErrors.formRequired();
      const presented = presentedClient(headers, body, bodyFormat);
      const client = await authenticateClient(deps, presented, sourceIp);
      if (isPublicClient(client) && !options.publicClients) {
        deps.log.info('oauth_client_authentication_failed', {
          clientId: client.clientId,
          method: presented.method,
          reason: 'public_client',
        });
        throw oauthErrors.invalidClient(false);
      }
      if (!body.token) throw oauthErrors.missingToken();
      return handle(deps, client, body.token);
    },
  );
}
