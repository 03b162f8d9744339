import type { Deps } from '../deps';
import type { FederationRequest } from '../store/federation';
import type { OidcConnection } from './connection';
import { FederationRefused } from './refusal';

/** The OIDC upstream (docs/api.md 14.4): the authorization request to the IdP. Being built. */
export async function oidcAuthorizationUrl(
  _deps: Pick<Deps, 'config' | 'mfaSecrets'>,
  _connection: OidcConnection,
  _pending: FederationRequest,
  _loginHint?: string,
): Promise<string> {
  throw new FederationRefused('idp_unreachable', 'OIDC upstream not built yet');
}
