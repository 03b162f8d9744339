import type { Deps } from '../deps';
import type { OidcConnection } from './connection';

/*
 * The client secret of an OIDC connection (docs/api.md 14.1), sealed by the secret box
 * (lib/mfa/secret-box.ts) and bound to its tenant and connection: a sealed value copied
 * onto another connection does not open.
 */

const contextOf = (connection: Pick<OidcConnection, 'tenantId' | 'id'>) =>
  `federation client secret ${connection.tenantId} ${connection.id}`;

/** The secret as stored (`clientSecretSealed`). */
export function sealClientSecret(
  deps: Pick<Deps, 'mfaSecrets'>,
  connection: Pick<OidcConnection, 'tenantId' | 'id'>,
  secret: string,
): Promise<string> {
  return deps.mfaSecrets.seal(secret, contextOf(connection));
}

/** The secret to authenticate to the IdP's token endpoint with (lib/federation/oidc.ts). */
export function openClientSecret(
  deps: Pick<Deps, 'mfaSecrets'>,
  connection: Pick<OidcConnection, 'tenantId' | 'id' | 'clientSecretSealed'>,
): Promise<string> {
  return deps.mfaSecrets.open(connection.clientSecretSealed, contextOf(connection));
}
