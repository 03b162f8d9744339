import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { isRefreshHashOf } from '../token-families/refresh-family';
import { type OAuthAccessClaims, verifyOAuthAccessToken } from './access-token';
import type { OAuthClient } from './client';
import { type OAuthGrant, parseGrantRefreshToken } from './grant';

export type ClientToken =
  | { kind: 'access_token'; claims: OAuthAccessClaims; grant: OAuthGrant }
  /** A stateless access token (client_credentials): no grant; revoked by a deny record under its `jti`. */
  | { kind: 'client_access_token'; claims: OAuthAccessClaims }
  /** `current`: the grant's current refresh token, not a retired one. */
  | { kind: 'refresh_token'; grant: OAuthGrant; current: boolean };

/**
 * A token issued to `client`, with its grant, whatever its kind (refresh tokens and
 * JWTs cannot be mistaken for each other, so a `token_type_hint` is not needed), or
 * undefined for anything else: unknown, malformed, expired access tokens, or tokens
 * of another client (a client sees and revokes only its own, RFC 7009 2.1, RFC 7662 4).
 * Revocation and expiry of the grant, and the deny record of a stateless token, are
 * the caller's to check.
 */
export async function findClientToken(
  deps: Pick<Deps, 'config' | 'store' | 'publicKeys'>,
  client: OAuthClient,
  token: string,
  now: number,
  /**
   * `tenant`: also the access tokens of the other clients of the client's tenant (a
   * resource server's introspection, docs/api.md 4.14); never another tenant's, and
   * never another client's refresh token (a credential of that client alone, RFC 6749 10.4).
   */
  reach: 'own' | 'tenant' = 'own',
): Promise<ClientToken | undefined> {
  const refresh = parseGrantRefreshToken(token);
  if (refresh) {
    const grant = await deps.store.oauthGrants.find(client.tenantId, refresh.grantId);
    if (!grant || grant.clientId !== client.clientId) return undefined;
    const hash = hashToken(token);
    if (isRefreshHashOf(grant, hash, false)) return { kind: 'refresh_token', grant, current: true };
    return isRefreshHashOf(grant, hash, true) ? { kind: 'refresh_token', grant, current: false } : undefined;
  }
  const claims = await verifyOAuthAccessToken(await deps.publicKeys.load(), deps.config.issuer, token, now);
  if (!claims || claims.tenantId !== client.tenantId) return undefined;
  if (claims.client_id !== client.clientId && reach !== 'tenant') return undefined;
  if (claims.grant_id === undefined) {
    // Only client_credentials tokens are stateless, and they are their client's own.
    return claims.sub === claims.client_id ? { kind: 'client_access_token', claims } : undefined;
  }
  const grant = await deps.store.oauthGrants.find(client.tenantId, claims.grant_id);
  if (!grant || grant.clientId !== claims.client_id) return undefined;
  return { kind: 'access_token', claims, grant };
}
