import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import type { OAuthClient } from './client';
import { findClientToken } from './token-lookup';

/**
 * RFC 7009: revokes the grant of a token of this client, so the refresh token and
 * every access token of the family stop being active (2.1); a stateless access token
 * (client_credentials) gets a deny record under its `jti` until it expires. Unknown,
 * invalid or expired tokens, and tokens of other clients, are not an error (2.2) and
 * change nothing.
 */
export async function revokeToken(
  deps: Pick<Deps, 'config' | 'clock' | 'store' | 'publicKeys' | 'log'>,
  client: OAuthClient,
  token: string,
): Promise<void> {
  const now = epochSeconds(deps.clock);
  const found = await findClientToken(deps, client, token, now);
  if (!found) {
    deps.log.info('oauth_revocation_ignored', { clientId: client.clientId, tenantId: client.tenantId });
    return;
  }
  if (found.kind === 'client_access_token') {
    const { jti, exp } = found.claims;
    await deps.store.oauthGrants.denyAccessToken({
      tenantId: client.tenantId,
      clientId: client.clientId,
      jti,
      expiresAt: exp,
      now,
      reason: 'revoked_by_client:access_token',
    });
    deps.log.info('oauth_access_token_revoked', { clientId: client.clientId, tenantId: client.tenantId, jti });
    return;
  }
  await deps.store.oauthGrants.revoke({ tenantId: client.tenantId, id: found.grant.id }, now, `revoked_by_client:${found.kind}`);
  deps.log.info('oauth_grant_revoked', { clientId: client.clientId, tenantId: client.tenantId, grantId: found.grant.id, kind: found.kind });
}
