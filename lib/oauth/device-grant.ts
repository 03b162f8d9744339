import { epochSeconds } from '../clock';
import { hashToken } from '../crypto/token-hash';
import type { Deps } from '../deps';
import { isOpenIdScope } from '../oidc/claims';
import { connectionOf } from '../sessions/live-session';
import { isLiveFor } from '../sessions/liveness';
import { NoRs256KeyError } from '../tokens/signing-keys';
import { epochOf, type User } from '../users/user';
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS } from './access-token';
import type { OAuthClient } from './client';
import { oauthErrors } from './errors';
import { formatGrantRefreshToken, GRANT_MAX_AGE_SECONDS, type OAuthGrant } from './grant';
import { narrowedTo } from './scope';

/** What an approved device code gives (docs/api.md 16.4): the grant stored, its refresh token, the ID token's subject. */
export interface DeviceCodeIssue {
  grant: OAuthGrant;
  refreshToken: string | undefined;
  now: number;
  oidc?: { user: User; client: OAuthClient; sessionId: string; authTime: number; amr: string[]; idp?: string | undefined };
}

type GrantDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'keys' | 'log'>;

/**
 * The token endpoint's device code grant (RFC 8628 3.4, 3.5), in this order: find the
 * device code under the client's tenant (another client's or unknown: `invalid_grant`);
 * redeemed already (then its grant is revoked: a second use means the code leaked);
 * expired (`expired_token`); polled too early (`slow_down`, one conditional write per
 * poll); denied (`access_denied`); still pending (`authorization_pending`). An approval
 * is redeemed as an authorization code is: the user and the approving browser session
 * still live, the grant stored with the redemption in one transaction, so that exactly
 * one poll gets tokens.
 */
export async function redeemDeviceCode(
  deps: GrantDeps,
  client: OAuthClient,
  deviceCode: string,
  /** RFC 8707: the resource asked for; RFC 9449 5: the key a public client's refresh tokens are bound to. */
  { resource, dpopJkt }: { resource?: string | undefined; dpopJkt?: string | undefined } = {},
): Promise<DeviceCodeIssue> {
  const now = epochSeconds(deps.clock);
  const { tenantId } = client;
  const found = await deps.store.deviceCodes.find(tenantId, hashToken(deviceCode));
  if (!found || found.clientId !== client.clientId) throw oauthErrors.invalidGrant();
  if (found.redeemedAt !== undefined) {
    if (found.grantId) await deps.store.oauthGrants.revoke({ tenantId, id: found.grantId }, now, 'device_code_reuse');
    deps.log.warn('device_code_reuse_detected', { tenantId, clientId: client.clientId, grantId: found.grantId });
    throw oauthErrors.invalidGrant();
  }
  if (found.expiresAt <= now) throw oauthErrors.expiredToken();
  const polled = await deps.store.deviceCodes.poll(found, now);
  if (!polled.paced) throw oauthErrors.slowDown();
  const authorization = polled.authorization;
  if (authorization.status === 'denied') throw oauthErrors.accessDenied();
  if (authorization.status === 'pending' || !authorization.userId || !authorization.sessionId) throw oauthErrors.authorizationPending();
  if (authorization.redeemedAt !== undefined) throw oauthErrors.invalidGrant();

  const scope = narrowedTo(authorization.scope, client.scopes);
  if (scope.length === 0) throw oauthErrors.invalidGrant();
  const { session, user } = await deps.store.sessions.findWithOwner(tenantId, authorization.sessionId, authorization.userId);
  if (!session || !user || !isLiveFor(user, session, now, await connectionOf(deps, session))) throw oauthErrors.invalidGrant();
  // Read before the code is spent, as for an authorization code: a failed read leaves it to a retry.
  const claimsUser = isOpenIdScope(scope) ? await deps.store.users.findById(tenantId, user.id) : undefined;
  if (isOpenIdScope(scope) && !claimsUser) throw oauthErrors.invalidGrant();
  if (claimsUser && client.idTokenSignedResponseAlg === 'RS256' && !(await deps.keys.load()).rs256) throw new NoRs256KeyError();

  const withRefresh = client.grantTypes.includes('refresh_token');
  const grantId = deps.random.id();
  const refreshToken = withRefresh ? formatGrantRefreshToken({ grantId, generation: 0, secret: deps.random.token() }) : undefined;
  // A user's grant like one from an authorization code, and listed, revoked and refreshed as one (docs/decisions/022-device-flow.md).
  const grant: OAuthGrant = {
    id: grantId,
    tenantId,
    clientId: client.clientId,
    kind: 'authorization_code',
    subject: user.id,
    sessionId: authorization.sessionId,
    scope,
    ...(resource === undefined ? {} : { resource }),
    createdAt: now,
    userEpoch: epochOf(user),
    authTime: authorization.authTime ?? session.authTime ?? session.createdAt,
    amr: [...(authorization.amr ?? session.amr)],
    ...(session.idp === undefined ? {} : { idp: session.idp }),
    expiresAt: now + (withRefresh ? GRANT_MAX_AGE_SECONDS : OAUTH_ACCESS_TOKEN_TTL_SECONDS),
    ...(refreshToken === undefined ? {} : { refreshHash: hashToken(refreshToken), refreshGeneration: 0, retired: {} }),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  };
  if (!(await deps.store.deviceCodes.redeem(authorization, grant, now))) throw oauthErrors.invalidGrant();
  deps.log.info('device_code_redeemed', { tenantId, clientId: client.clientId, userId: user.id, grantId });
  const oidc = claimsUser
    ? {
        user: claimsUser,
        client,
        sessionId: authorization.sessionId,
        authTime: grant.authTime ?? now,
        amr: grant.amr ?? [],
        idp: grant.idp,
      }
    : undefined;
  return { grant, refreshToken, now, ...(oidc ? { oidc } : {}) };
}
