import { SIGNING_ALGORITHMS } from '../tokens/signing-keys';
import * as z from '../zod';
import { type AdminClientView, GRANT_TYPES, TOKEN_ENDPOINT_AUTH_METHODS } from './client';

/*
 * The answers of the OAuth client lifecycle (docs/api.md 9.9-9.13) as schemas, like
 * lib/admin/api-schemas.ts: docs/openapi.json is generated from them.
 */

/** docs/api.md 9.9: a client as an ADMIN sees it; never a secret or a hash. */
export const adminClient = z.strictObject({
  client_id: z.string(),
  tenant_id: z.string(),
  client_name: z.nullable(z.string()),
  redirect_uris: z.array(z.string()),
  post_logout_redirect_uris: z.array(z.string()),
  grant_types: z.array(z.enum(GRANT_TYPES)),
  scope: z.string(),
  /** docs/api.md 16.1: `none` for a public client. */
  token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS),
  /** docs/api.md 16.2: the web origins CORS allows on the token, userinfo and revocation endpoints. */
  allowed_origins: z.array(z.string()),
  first_party: z.boolean(),
  created_at: z.string(),
  updated_at: z.nullable(z.string()),
  previous_secret_expires_at: z.nullable(z.string()),
  introspect_any: z.optional(z.literal(true)),
  resources: z.optional(z.array(z.string())),
  id_token_signed_response_alg: z.optional(z.enum(SIGNING_ALGORITHMS)),
  dpop_bound_access_tokens: z.optional(z.literal(true)),
  /** docs/api.md 17.3: where logout tokens are POSTed. */
  backchannel_logout_uri: z.optional(z.string()),
  backchannel_logout_session_required: z.optional(z.literal(true)),
}) satisfies z.ZodMiniType<AdminClientView>;

/** docs/api.md 9.9. */
export const clientList = z.strictObject({ clients: z.array(adminClient) });
/** docs/api.md 9.10, 9.11, 9.13. */
export const oneClient = z.strictObject({ client: adminClient });
