import type { Deps } from '../deps';
import { isLive } from '../token-families/refresh-family';
import type { Identity } from '../tokens/access-token';
import { isSessionOfCurrentGeneration } from '../users/user';

/** Who an access token names: its user, in its tenant, in its session. */
export interface SessionClaim {
  tenantId: string;
  sessionId: string;
  userId: string;
}

/**
 * The identity of a session as it stands now, read on every request (docs/api.md 3): the
 * session must exist, be the named user's, not be revoked or expired, and belong to the
 * user's current generations (no "revoke everything", no "sign out other sessions" since
 * it began); the user must be active. The user's role, shop and username come from the user record, so a
 * change by an ADMIN is what the next request carries, whatever the token says.
 * Undefined when the session is not live.
 */
export async function liveSession(
  deps: Pick<Deps, 'store'>,
  claim: SessionClaim,
  now: number,
): Promise<Pick<Identity, 'username' | 'role' | 'shopId' | 'authTime' | 'amr'> | undefined> {
  const { session, user } = await deps.store.sessions.findWithOwner(claim.tenantId, claim.sessionId, claim.userId);
  if (!session || !user || session.userId !== claim.userId || !isLive(session, now)) return undefined;
  if (user.status !== 'active' || !isSessionOfCurrentGeneration(user, session)) return undefined;
  return {
    username: user.username,
    role: user.role,
    shopId: user.shopId,
    authTime: session.authTime ?? session.createdAt,
    amr: session.amr,
  };
}
