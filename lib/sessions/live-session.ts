import type { Deps } from '../deps';
import type { Connection } from '../federation/connection';
import type { Identity } from '../tokens/access-token';
import { isLiveFor } from './liveness';
import type { Session } from './session';

/** Who an access token names: its user, in its tenant, in its session (and the connection of a federated one). */
export interface SessionClaim {
  tenantId: string;
  sessionId: string;
  userId: string;
  idp?: string | undefined;
}

/**
 * The connection a federated session came through (docs/api.md 14.1), which the
 * liveness rule needs for such a session; nothing is read for any other.
 */
export function connectionOf(deps: Pick<Deps, 'store'>, session: Pick<Session, 'idp'> | undefined): Promise<Connection | undefined> {
  return session?.idp === undefined ? Promise.resolve(undefined) : deps.store.connections.find(session.idp);
}

/** The connections of a list of sessions, each read once, for judging them all (listings). */
export async function connectionsOf(
  deps: Pick<Deps, 'store'>,
  sessions: ReadonlyArray<Pick<Session, 'idp'>>,
): Promise<(session: Pick<Session, 'idp'>) => Connection | undefined> {
  const ids = [...new Set(sessions.flatMap((session) => (session.idp === undefined ? [] : [session.idp])))];
  const found = new Map(await Promise.all(ids.map(async (id) => [id, await deps.store.connections.find(id)] as const)));
  return (session) => (session.idp === undefined ? undefined : found.get(session.idp));
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
 * before it stands; a session that is live needs no second read. The connection of a
 * federated session is read alongside when the token names it, else after the session.
 */
export async function liveSession(
  deps: Pick<Deps, 'store'>,
  claim: SessionClaim,
  now: number,
): Promise<Pick<Identity, 'username' | 'role' | 'shopId' | 'authTime' | 'amr'> | undefined> {
  const find = (isolated: boolean) => deps.store.sessions.findWithOwner(claim.tenantId, claim.sessionId, claim.userId, { isolated });
  const [records, named] = await Promise.all([find(false), connectionOf(deps, claim)]);
  let { session, user } = records;
  const connection = session?.idp === claim.idp ? named : await connectionOf(deps, session);
  if (session && user && !isLiveFor(user, session, now, connection)) ({ session, user } = await find(true));
  if (!session || !user || user.id !== claim.userId || !isLiveFor(user, session, now, connection)) return undefined;
  return {
    username: user.username,
    role: user.role,
    shopId: user.shopId,
    authTime: session.authTime ?? session.createdAt,
    amr: session.amr,
  };
}
