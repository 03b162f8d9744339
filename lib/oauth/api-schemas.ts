import { OAUTH_ERROR_CODES } from '../errors';
import { type ClientView, GRANT_TYPES, TOKEN_ENDPOINT_AUTH_METHODS } from '../oauth/client';
import { DPOP_SIGNING_ALGORITHMS } from '../oauth/dpop';
import type { IntrospectionResponse } from '../oauth/introspection';
import type { authorizationServerMetadata } from '../oauth/metadata';
import type { TokenResponse } from '../oauth/token';
import { CLAIMS_SUPPORTED, OIDC_SCOPES, type UserClaims } from '../oidc/claims';
import type { openIdConfiguration } from '../oidc/discovery';
import { SIGNING_ALGORITHMS } from '../tokens/signing-keys';
import { ROLES } from '../users/user';
import * as z from '../zod';
import type { DeviceAuthorizationResponse } from './device-authorization';

/*
 * The answers of the OAuth 2.0 and OpenID Connect routes (docs/api.md 4.6-4.8, 5.4-5.9,
 * 11) as schemas, as lib/sessions/api-schemas.ts for the session routes.
 */

/** docs/api.md 5.4: the token endpoint's answer (RFC 6749 5.1). */
export const oauthTokenPayload = z.strictObject({
  access_token: z.string(),
  /** docs/api.md 16.3: `DPoP` for a token bound to the key of the request's proof. */
  token_type: z.enum(['Bearer', 'DPoP']),
  expires_in: z.literal(3600),
  refresh_token: z.optional(z.string()),
  scope: z.string(),
  /** docs/api.md 11.1: with scope `openid`. */
  id_token: z.optional(z.string()),
}) satisfies z.ZodMiniType<TokenResponse>;

/** docs/api.md 16.4: the device authorization answer (RFC 8628 3.2). */
export const deviceAuthorizationResponse = z.strictObject({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().check(z.int()),
  interval: z.number().check(z.int()),
}) satisfies z.ZodMiniType<DeviceAuthorizationResponse>;

/** docs/api.md 5.5: a registered OAuth client, never its secret. */
export const oauthClient = z.strictObject({
  client_id: z.string(),
  tenant_id: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.enum(GRANT_TYPES)),
  scope: z.string(),
  /** docs/api.md 16.1: `none` for a public client. */
  token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS),
  /** docs/api.md 16.2. */
  allowed_origins: z.optional(z.array(z.string())),
  introspect_any: z.optional(z.literal(true)),
  resources: z.optional(z.array(z.string())),
  id_token_signed_response_alg: z.optional(z.enum(SIGNING_ALGORITHMS)),
  post_logout_redirect_uris: z.optional(z.array(z.string())),
  dpop_bound_access_tokens: z.optional(z.literal(true)),
  /** docs/api.md 17.3: where logout tokens are POSTed. */
  backchannel_logout_uri: z.optional(z.string()),
  backchannel_logout_session_required: z.optional(z.literal(true)),
}) satisfies z.ZodMiniType<ClientView>;

/** docs/api.md 5.6: an error of an OAuth endpoint called with a form body (RFC 6749 5.2). */
export const oauthError = z.strictObject({
  error: z.enum(OAUTH_ERROR_CODES),
  error_description: z.string(),
});

/** docs/api.md 5.7: the introspection answer (RFC 7662 2.2). */
export const introspection = z.discriminatedUnion('active', [
  z.strictObject({ active: z.literal(false) }),
  z.strictObject({
    active: z.literal(true),
    client_id: z.string(),
    scope: z.string(),
    sub: z.string(),
    iss: z.string(),
    iat: z.number(),
    exp: z.number(),
    tenantId: z.string(),
    token_type: z.optional(z.enum(['Bearer', 'DPoP'])),
    aud: z.optional(z.string()),
    jti: z.optional(z.string()),
    /** docs/api.md 16.3: the key a DPoP-bound token is bound to (RFC 9449 6.2). */
    cnf: z.optional(z.strictObject({ jkt: z.string() })),
  }),
]) satisfies z.ZodMiniType<IntrospectionResponse>;

/** docs/api.md 5.8: the published signing keys (RFC 7517), public parts only. */
export const jwks = z.strictObject({
  keys: z.array(
    z.union([
      z.strictObject({
        kty: z.literal('EC'),
        crv: z.literal('P-256'),
        x: z.string(),
        y: z.string(),
        kid: z.string(),
        alg: z.optional(z.literal('ES256')),
        use: z.optional(z.literal('sig')),
      }),
      // docs/api.md 11.4: the RS256 keys of ID tokens.
      z.strictObject({
        kty: z.literal('RSA'),
        n: z.string(),
        e: z.string(),
        kid: z.string(),
        alg: z.literal('RS256'),
        use: z.literal('sig'),
      }),
    ]),
  ),
});

const clientAuthMethods = z.array(z.enum(['client_secret_basic', 'client_secret_post']));
/** docs/api.md 16.1: the token and revocation endpoints also take public clients (`none`). */
const withPublicClients = z.array(z.enum(TOKEN_ENDPOINT_AUTH_METHODS));

/** docs/api.md 5.9: the authorization server metadata (RFC 8414 2). */
export const authorizationServer = z.strictObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  jwks_uri: z.string(),
  revocation_endpoint: z.string(),
  introspection_endpoint: z.string(),
  device_authorization_endpoint: z.string(),
  response_types_supported: z.array(z.literal('code')),
  response_modes_supported: z.array(z.literal('query')),
  grant_types_supported: z.array(z.enum(GRANT_TYPES)),
  code_challenge_methods_supported: z.array(z.literal('S256')),
  token_endpoint_auth_methods_supported: withPublicClients,
  revocation_endpoint_auth_methods_supported: withPublicClients,
  introspection_endpoint_auth_methods_supported: clientAuthMethods,
  authorization_response_iss_parameter_supported: z.literal(true),
  /** docs/api.md 16.3 (RFC 9449 5.1). */
  dpop_signing_alg_values_supported: z.array(z.enum(DPOP_SIGNING_ALGORITHMS)),
}) satisfies z.ZodMiniType<ReturnType<typeof authorizationServerMetadata>>;

/** docs/api.md 11.3: the OpenID Provider metadata (OpenID Connect Discovery 1.0 section 3). */
export const openIdProvider = z.extend(authorizationServer, {
  userinfo_endpoint: z.string(),
  /** docs/api.md 11.12: RP-initiated logout. */
  end_session_endpoint: z.string(),
  scopes_supported: z.array(z.enum(OIDC_SCOPES)),
  subject_types_supported: z.array(z.literal('public')),
  id_token_signing_alg_values_supported: z.array(z.enum(SIGNING_ALGORITHMS)),
  claims_supported: z.array(z.enum(CLAIMS_SUPPORTED)),
  claims_parameter_supported: z.literal(false),
  request_parameter_supported: z.literal(false),
  request_uri_parameter_supported: z.literal(false),
  /** docs/api.md 17.3: OIDC Back-Channel Logout 1.0 2.1. */
  backchannel_logout_supported: z.literal(true),
  backchannel_logout_session_supported: z.literal(true),
}) satisfies z.ZodMiniType<ReturnType<typeof openIdConfiguration>>;

/** docs/api.md 11.2: the userinfo answer (OIDC Core 5.3.2): `sub`, and the claims the token's scope grants. */
export const userInfo = z.strictObject({
  sub: z.string(),
  preferred_username: z.optional(z.string()),
  tenantId: z.optional(z.string()),
  shopId: z.optional(z.string()),
  role: z.optional(z.enum(ROLES)),
  email: z.optional(z.string()),
  email_verified: z.optional(z.boolean()),
}) satisfies z.ZodMiniType<UserClaims>;

/** docs/api.md 4.8: the data of createOAuth2Client. */
export const clientCreated = z.strictObject({
  message: z.literal('OAuth2 client created successfully'),
  client: oauthClient,
});
