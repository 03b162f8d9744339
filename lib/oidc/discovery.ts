import { authorizationServerMetadata } from '../oauth/metadata';
import { SIGNING_ALGORITHMS } from '../tokens/signing-keys';
import { CLAIMS_SUPPORTED, OIDC_SCOPES } from './claims';

/**
 * The OpenID Provider metadata (OpenID Connect Discovery 1.0 section 3, docs/api.md 11.3):
 * the RFC 8414 document's members (4.12) and what OpenID Connect adds, `end_session_endpoint`
 * of RP-initiated logout (docs/api.md 11.12) and back-channel logout (17.3) included. `scopes_supported` lists the OpenID
 * Connect scopes; clients are registered with their own scopes besides (docs/api.md 4.8).
 */
export function openIdConfiguration(issuer: string) {
  return {
    ...authorizationServerMetadata(issuer),
    userinfo_endpoint: `${issuer}/oauth2/userinfo`,
    end_session_endpoint: `${issuer}/oauth2/logout`,
    scopes_supported: [...OIDC_SCOPES],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    claims_supported: [...CLAIMS_SUPPORTED],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    // docs/api.md 17.3: OIDC Back-Channel Logout 1.0 2.1; logout tokens carry `sid` whenever the session is known.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  };
}
