import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { AppError, type BearerErrorCode, UnauthorizedError } from '../errors';
import { verifyOAuthAccessToken } from '../oauth/access-token';
import { narrowedTo, parseScope } from '../oauth/scope';
import { connectionOf } from '../sessions/live-session';
import { isOfLiveConnection } from '../sessions/liveness';
import { isOfCurrentEpoch } from '../users/user';
import { isOpenIdScope, type UserClaims, userClaims } from './claims';

/** The RFC 6750 3 challenge of a refused bearer token. */
const challenge = (error: BearerErrorCode, extra = '') => ({ 'WWW-Authenticate': `Bearer error="${error}"${extra}` });

/** The failures of userinfo (docs/api.md 11.2), each with its RFC 6750 3 challenge. */
export const userInfoErrors = {
  /** No credentials at all: the challenge without an error code. */
  noToken: () => new UnauthorizedError('Unauthorized', { 'WWW-Authenticate': 'Bearer' }),
  /** `invalid_token`: unknown, malformed, expired, revoked, or not an OAuth access token of a user. */
  invalidToken: () => new UnauthorizedError('Invalid token', challenge('invalid_token'), { code: 'INVALID_TOKEN' }),
  /** `insufficient_scope`: a valid token without `openid` (OIDC Core 5.3). */
  insufficientScope: () =>
    new AppError(403, 'Insufficient scope', challenge('insufficient_scope', ', scope="openid"'), 'INSUFFICIENT_SCOPE'),
};
const { noToken, invalidToken, insufficientScope } = userInfoErrors;

/** The access token of an `Authorization: Bearer` header (RFC 6750 2.1), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * The userinfo endpoint (OIDC Core 5.3, docs/api.md 11.2): the claims of the user an OAuth
 * access token with `openid` was issued for, as its scope grants them (the same as the ID
 * token's). The token must verify (signature, `typ` at+jwt, issuer, expiry), belong to a
 * user's grant that is live (not revoked, not expired, the user active and of the grant's
 * generation) of a client that still exists; the claims are those of the scope that the
 * client's registration still allows. Session tokens, client_credentials tokens and anything else are `invalid_token`.
 */
export async function userInfo(
  deps: Pick<Deps, 'config' | 'clock' | 'store' | 'publicKeys'>,
  authorization: string | undefined,
): Promise<UserClaims> {
  if (!authorization) throw noToken();
  const token = bearerToken(authorization);
  if (!token) throw invalidToken();
  const now = epochSeconds(deps.clock);
  const claims = await verifyOAuthAccessToken(await deps.publicKeys.load(), deps.config.issuer, token, now);
  // No grant: a client_credentials token, whose subject is the client and no user.
  if (!claims?.grant_id) throw invalidToken();
  // The client is read with the grant: what was issued to a deleted client is dead (docs/api.md 9.12).
  const [grant, client] = await Promise.all([
    deps.store.oauthGrants.find(claims.tenantId, claims.grant_id),
    deps.store.oauthClients.find(claims.client_id),
  ]);
  if (grant?.kind !== 'authorization_code' || grant.clientId !== claims.client_id || grant.subject !== claims.sub) throw invalidToken();
  if (client?.tenantId !== claims.tenantId) throw invalidToken();
  if (grant.revokedAt !== undefined || grant.expiresAt <= now) throw invalidToken();
  const [user, connection] = await Promise.all([deps.store.users.findById(grant.tenantId, grant.subject), connectionOf(deps, grant)]);
  if (user?.status !== 'active' || !isOfCurrentEpoch(user, grant) || !isOfLiveConnection(grant, connection)) throw invalidToken();
  // Only what the client's registration still allows (docs/api.md 9.11).
  const scope = narrowedTo(parseScope(claims.scope) ?? [], client.scopes);
  if (!isOpenIdScope(scope)) throw insufficientScope();
  return userClaims(user, scope);
}
