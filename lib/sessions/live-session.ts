import type { Deps } from '../deps';
import type { Identity } from '../tokens/access-token';
import { isLiveFor } from './liveness';

/** Who an access token names: its user, in its tenant, in its session. */
export interface SessionClaim {
  tenantId: string;
  sessionId: string;
  userId: string;
}

/**
 * The identity of a session as it stands now, read on every request (docs/api.md 3): the
 * session must be live for the named user (lib/sessions/liveness.ts). The user's role,
 * shop and username come from the user record, so a change by an ADMIN is what the next
 * request carries, whatever the token says.
 * Undefined when the session is not live.
 *
 * The everyday read takes the two records apart, so a transaction that moves both (a
 * password change or a first MFA activation keeping the caller's session in the user's
 * new generation) can fall between them and make a live session look revoked. A refusal
 * of two records that exist is therefore confirmed by a read of both as of one moment
 * before it stands; a session that is live needs no second read.
 */
export async function liveSession(
  deps: Pick<Deps, 'store'>,
  claim: SessionClaim,
  now: number,
): Promise<Pick<Identity, 'username' | 'role' | 'shopId' | 'authTime' | 'amr'> | undefined> {
  const find = (isolated: boolean) => deps.store.sessions.findWithOwner(claim.tenantId, claim.sessionId, claim.userId, { isolated });
  let { session, user } = await find(false);
  if (session && user && !isLiveFor(user, session, now)) ({ session, user } = await find(true));
  if (!session || !user || user.id !== claim.userId || !isLiveFor(user, session, now)) return undefined;
  return {
    username: user.username,
    role: user.role,
    shopId: user.shopId,
    authTime: session.authTime ?? session.createdAt,
    amr: session.amr,
  };
}
