import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { AppError, type BearerErrorCode, UnauthorizedError } from '../errors';
import { type OAuthAccessClaims, verifyOAuthAccessToken } from '../oauth/access-token';
import { acceptDpopProof, DPOP_ALGS, type DpopProof, dpopErrors, verifyDpopProof } from '../oauth/dpop';
import { narrowedTo, parseScope } from '../oauth/scope';
import { connectionOf } from '../sessions/live-session';
import { isOfLiveConnection } from '../sessions/liveness';
import { isOfCurrentEpoch } from '../users/user';
import { isOpenIdScope, type UserClaims, userClaims } from './claims';

/** How an access token came: RFC 6750's `Bearer`, or RFC 9449's `DPoP` with a proof (docs/api.md 16.3). */
type TokenScheme = 'Bearer' | 'DPoP';

/** The challenge of a refused token (RFC 6750 3, RFC 9449 7.1), in the scheme it came with. */
const challenge = (scheme: TokenScheme, error: BearerErrorCode, extra = '') => ({
  'WWW-Authenticate': scheme === 'Bearer' ? `Bearer error="${error}"${extra}` : `DPoP error="${error}"${extra}, ${DPOP_ALGS}`,
});

/** The failures of userinfo (docs/api.md 11.2, 16.3), each with its RFC 6750 3 or RFC 9449 7.1 challenge. */
export const userInfoErrors = {
  /** No credentials at all: both schemes' challenges without an error code. */
  noToken: () => new UnauthorizedError('Unauthorized', { 'WWW-Authenticate': `Bearer, DPoP ${DPOP_ALGS}` }),
  /**
   * `invalid_token`: unknown, malformed, expired, revoked, or not an OAuth access token of
   * a user; or, for DPoP (RFC 9449 7.1), a bound token sent as `Bearer`, an unbound one sent
   * as `DPoP`, or a proof by another key than the token's.
   */
  invalidToken: (scheme: TokenScheme = 'Bearer') =>
    new UnauthorizedError('Invalid token', challenge(scheme, 'invalid_token'), { code: 'INVALID_TOKEN' }),
  /** `insufficient_scope`: a valid token without `openid` (OIDC Core 5.3). */
  insufficientScope: (scheme: TokenScheme = 'Bearer') =>
    new AppError(403, 'Insufficient scope', challenge(scheme, 'insufficient_scope', ', scope="openid"'), 'INSUFFICIENT_SCOPE'),
};
const { noToken, invalidToken, insufficientScope } = userInfoErrors;

/** What userinfo reads of a request: the `Authorization` and `DPoP` headers and the method. */
export interface UserInfoRequest {
  authorization: string | undefined;
  dpop: string | undefined;
  method: string;
}

/** The access token of an `Authorization: Bearer` header (RFC 6750 2.1), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/** The access token of an `Authorization: Bearer` or `Authorization: DPoP` header (RFC 9449 7.1), with its scheme. */
function presentedToken(authorization: string): { scheme: TokenScheme; token: string } | undefined {
  const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (!match?.[1] || !match[2]) return undefined;
  return { scheme: match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2] };
}

/**
 * RFC 9449 7.1: a DPoP-bound token comes with the `DPoP` scheme and a proof by its key
 * about this request and this token (`ath`); a Bearer token never with `DPoP`. The proof
 * found, to be accepted once the rest of the request holds; none for a Bearer token.
 */
async function tokenProof(
  deps: Pick<Deps, 'config' | 'clock' | 'log'>,
  request: UserInfoRequest,
  scheme: TokenScheme,
  token: string,
  claims: OAuthAccessClaims,
): Promise<DpopProof | undefined> {
  if (claims.cnf === undefined) {
    if (scheme === 'DPoP') throw invalidToken(scheme);
    return undefined;
  }
  // The downgrade RFC 9449 7.1 forbids: a bound token used as a bearer token.
  if (scheme === 'Bearer') throw invalidToken('DPoP');
  const url = `${deps.config.issuer}/oauth2/userinfo`;
  const proof = await verifyDpopProof(deps, 'resource', { header: request.dpop, method: request.method, url, accessToken: token });
  if (!proof) throw dpopErrors.invalidProof('resource');
  if (proof.jkt !== claims.cnf.jkt) throw invalidToken(scheme);
  return proof;
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
  deps: Pick<Deps, 'config' | 'clock' | 'store' | 'publicKeys' | 'log'>,
  request: UserInfoRequest,
): Promise<UserClaims> {
  if (!request.authorization) throw noToken();
  const presented = presentedToken(request.authorization);
  if (!presented) throw invalidToken();
  const { scheme, token } = presented;
  const now = epochSeconds(deps.clock);
  const claims = await verifyOAuthAccessToken(await deps.publicKeys.load(), deps.config.issuer, token, now);
  // No grant: a client_credentials token, whose subject is the client and no user.
  if (!claims?.grant_id) throw invalidToken(scheme);
  const proof = await tokenProof(deps, request, scheme, token, claims);
  // The client is read with the grant: what was issued to a deleted client is dead (docs/api.md 9.12).
  const [grant, client] = await Promise.all([
    deps.store.oauthGrants.find(claims.tenantId, claims.grant_id),
    deps.store.oauthClients.find(claims.client_id),
  ]);
  if (grant?.kind !== 'authorization_code' || grant.clientId !== claims.client_id || grant.subject !== claims.sub)
    throw invalidToken(scheme);
  if (client?.tenantId !== claims.tenantId) throw invalidToken(scheme);
  if (grant.revokedAt !== undefined || grant.expiresAt <= now) throw invalidToken(scheme);
  const [user, connection] = await Promise.all([deps.store.users.findById(grant.tenantId, grant.subject), connectionOf(deps, grant)]);
  if (user?.status !== 'active' || !isOfCurrentEpoch(user, grant) || !isOfLiveConnection(grant, connection)) throw invalidToken(scheme);
  // Only what the client's registration still allows (docs/api.md 9.11).
  const scope = narrowedTo(parseScope(claims.scope) ?? [], client.scopes);
  if (!isOpenIdScope(scope)) throw insufficientScope(scheme);
  // Last, so that only a request that is otherwise answered records its proof (RFC 9449 11.1).
  if (proof) await acceptDpopProof(deps, 'resource', claims.tenantId, proof);
  return userClaims(user, scope);
}
