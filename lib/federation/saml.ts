import type { Deps } from '../deps';
import type { FederationRequest } from '../store/federation';
import type { SamlConnection } from './connection';
import { FederationRefused } from './refusal';

/** SAML (docs/api.md 14.5): the AuthnRequest to the IdP by HTTP-Redirect. Being built. */
export async function samlRedirectUrl(
  _deps: Pick<Deps, 'config'>,
  _connection: SamlConnection,
  _pending: FederationRequest,
  _loginHint?: string,
): Promise<string> {
  throw new FederationRefused('idp_unreachable', 'SAML not built yet');
}
