import { GRANT_TYPES } from './client';
import { DPOP_SIGNING_ALGORITHMS } from './dpop';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];
/** A public client (docs/api.md 16.1) uses the token and revocation endpoints by its `client_id` alone; introspection is for confidential clients. */
const WITH_PUBLIC_CLIENTS = [...CLIENT_AUTH_METHODS, 'none'];

/**
 * The authorization server metadata (RFC 8414 2), every endpoint an absolute URL
 * under the issuer. `scopes_supported` is left out: scopes are registered per client
 * and tenant, so there is no one list to publish (RFC 8414 allows omitting it).
 */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth2/authorize`,
    token_endpoint: `${issuer}/oauth2/token`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    // RFC 8628 4: where a device asks for its codes (docs/api.md 16.4).
    device_authorization_endpoint: `${issuer}/oauth2/device_authorization`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: WITH_PUBLIC_CLIENTS,
    revocation_endpoint_auth_methods_supported: WITH_PUBLIC_CLIENTS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    // RFC 9207: the authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    // RFC 9449 5.1: DPoP proofs at the token endpoint and userinfo (docs/api.md 16.3).
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGORITHMS],
  };
}
