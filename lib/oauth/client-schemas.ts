import { existingTenantId } from '../http/schemas';
import { SIGNING_ALGORITHMS } from '../tokens/signing-keys';
import * as z from '../zod';
import { TOKEN_ENDPOINT_AUTH_METHODS } from './client';

/*
 * The fields of a client registration as the routes take them (docs/api.md 4.8, 9.11,
 * 9.13): one definition, so that registering, changing and rotating validate alike.
 */

/** Printable ASCII without spaces: client ids travel in HTTP Basic and in tokens. */
export const clientIdField = z.string().check(z.minLength(1), z.maxLength(128), z.regex(/^[\x21-\x7E]+$/));
export const clientSecretField = z.string().check(z.minLength(1), z.maxLength(512));
/** One or more URIs separated by spaces (the rules: lib/oauth/client.ts parseRedirectUris). */
export const redirectUriField = z.string().check(z.minLength(1), z.maxLength(8192));
export const grantTypesField = z.string().check(z.minLength(1), z.maxLength(256));
export const scopeField = z.string().check(z.minLength(1), z.maxLength(1024));
/** Web origins separated by spaces (docs/api.md 16.2; the rules: lib/oauth/client.ts parseAllowedOrigins). */
export const allowedOriginsField = z.string().check(z.maxLength(4096));

/** One URI (the rules: lib/oauth/client.ts isBackchannelLogoutUri). */
export const backchannelLogoutUriField = z.string().check(z.maxLength(2000));

/** The path of the routes on one client (docs/api.md 9.10-9.13). */
export const clientPath = z.strictObject({ clientId: clientIdField });

/**
 * POST /oauth2/clients (docs/api.md 4.8, 5.5): the registration as the JSON route and the
 * console (docs/api.md 15.3.6) take it.
 */
export const clientRegistration = z.object({
  client_id: clientIdField,
  /** Required for a confidential client; a public one has none (docs/api.md 16.1). */
  client_secret: z.optional(clientSecretField),
  /** docs/api.md 16.1: `none` for a public client (a single-page or native app). */
  token_endpoint_auth_method: z.optional(z.enum(TOKEN_ENDPOINT_AUTH_METHODS)),
  /** docs/api.md 16.2: web origins allowed by CORS on the token, userinfo and revocation endpoints. */
  allowed_origins: z.optional(allowedOriginsField),
  redirect_uri: redirectUriField,
  grant_types: grantTypesField,
  scope: scopeField,
  tenant_id: existingTenantId,
  /** docs/api.md 4.14: a resource server's client, which may introspect any access token of its tenant. */
  introspect_any: z.optional(z.boolean()),
  /** docs/api.md 4.8: RFC 8707 resource URIs the client may ask tokens for, separated by spaces. */
  resources: z.optional(z.string().check(z.minLength(1), z.maxLength(8192))),
  /** docs/api.md 11.4: OpenID Connect Dynamic Client Registration's name for the ID token's algorithm. */
  id_token_signed_response_alg: z.optional(z.enum(SIGNING_ALGORITHMS)),
  /** docs/api.md 11.12: where RP-initiated logout may send the browser, URIs separated by spaces. */
  post_logout_redirect_uris: z.optional(z.string().check(z.minLength(1), z.maxLength(8192))),
  /** docs/api.md 16.3: RFC 9449 5.2's client metadata; every token request must come with a DPoP proof. */
  dpop_bound_access_tokens: z.optional(z.boolean()),
  /** docs/api.md 17.3: where logout tokens are POSTed (OIDC Back-Channel Logout 1.0 2.2). */
  backchannel_logout_uri: z.optional(backchannelLogoutUriField.check(z.minLength(1))),
  /** docs/api.md 17.3: every logout token must carry `sid`; default false. */
  backchannel_logout_session_required: z.optional(z.boolean()),
});

/** PATCH /oauth2/clients/{clientId} (docs/api.md 9.11): what a registration takes, each optional, and what only an ADMIN sets. */
export const clientUpdate = z.strictObject({
  redirect_uri: z.optional(redirectUriField),
  grant_types: z.optional(grantTypesField),
  scope: z.optional(scopeField),
  client_name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  first_party: z.optional(z.boolean()),
  post_logout_redirect_uris: z.optional(z.string().check(z.maxLength(8192))),
  /** docs/api.md 11.4: how the client's ID tokens are signed from now on. */
  id_token_signed_response_alg: z.optional(z.enum(SIGNING_ALGORITHMS)),
  /** docs/api.md 16.3: whether every token request must come with a DPoP proof from now on. */
  dpop_bound_access_tokens: z.optional(z.boolean()),
  /** docs/api.md 16.2: the web origins CORS allows for the client; the empty string removes them all. */
  allowed_origins: z.optional(allowedOriginsField),
  /** docs/api.md 17.3: the empty string removes it. */
  backchannel_logout_uri: z.optional(backchannelLogoutUriField),
  backchannel_logout_session_required: z.optional(z.boolean()),
});
