import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId } from '../lib/http/schemas';
import { clientCreated as clientCreatedAnswer } from '../lib/oauth/api-schemas';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../lib/oauth/client';
import {
  allowedOriginsField,
  clientIdField,
  clientSecretField,
  grantTypesField,
  redirectUriField,
  scopeField,
} from '../lib/oauth/client-schemas';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { authorizeClientRegistration, registerClient } from '../lib/oauth/registration';
import { SIGNING_ALGORITHMS } from '../lib/tokens/signing-keys';

/** docs/api.md 5.5; client ids are printable ASCII without spaces (they travel in HTTP Basic and tokens). */
export const body = z.object({
  client_id: clientIdField,
  /** Required for a confidential client; a public one has none (docs/api.md 16.1). */
  client_secret: clientSecretField.optional(),
  /** docs/api.md 16.1: `none` for a public client (a single-page or native app). */
  token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional(),
  /** docs/api.md 16.2: web origins allowed by CORS on the token, userinfo and revocation endpoints. */
  allowed_origins: allowedOriginsField.optional(),
  redirect_uri: redirectUriField,
  grant_types: grantTypesField,
  scope: scopeField,
  tenant_id: existingTenantId,
  /** docs/api.md 4.14: a resource server's client, which may introspect any access token of its tenant. */
  introspect_any: z.boolean().optional(),
  /** docs/api.md 4.8: RFC 8707 resource URIs the client may ask tokens for, separated by spaces. */
  resources: z.string().min(1).max(8192).optional(),
  /** docs/api.md 11.4: OpenID Connect Dynamic Client Registration's name for the ID token's algorithm. */
  id_token_signed_response_alg: z.enum(SIGNING_ALGORITHMS).optional(),
  /** docs/api.md 11.12: where RP-initiated logout may send the browser, URIs separated by spaces. */
  post_logout_redirect_uris: z.string().min(1).max(8192).optional(),
  /** docs/api.md 16.3: RFC 9449 5.2's client metadata; every token request must come with a DPoP proof. */
  dpop_bound_access_tokens: z.boolean().optional(),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = clientCreatedAnswer;

/** POST /oauth2/clients (docs/api.md 4.8): an ADMIN registers an OAuth client of their own tenant. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    {
      identity: 'required',
      response,
      role: 'ADMIN',
      body,
      authorize: async (admin, raw) => authorizeClientRegistration(admin, existingTenantId.safeParse(raw.tenant_id).data),
    },
    async ({ body, identity, deps }) => {
      const client = await registerClient(deps, identity, body);
      return ok({ message: 'OAuth2 client created successfully', client }, 201);
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.8',
  summary: 'Register an OAuth client of the caller’s tenant (ADMIN only)',
  tag: 'oauth2',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The client as registered, without its secret.', body: 'ClientCreatedEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' }),
    new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
    new ValidationError('Invalid allowed_origins', { code: 'INVALID_ORIGIN' }),
    new ValidationError('Client secret required', { code: 'CLIENT_SECRET_REQUIRED' }),
    new ValidationError('A public client has no secret', { code: 'PUBLIC_CLIENT_SECRET' }),
    new ValidationError('Client secret too short', { code: 'CLIENT_SECRET_TOO_SHORT' }),
    permissionDenied,
    new ConflictError('OAuth2 client already exists', { code: 'CLIENT_EXISTS' }),
  ],
};
