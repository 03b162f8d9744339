import { type AuditDeps, bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { NotFoundError, ServiceUnavailableError, UnauthorizedError } from '../errors';
import { selfEvent } from '../events/self';
import type { Identity } from '../tokens/access-token';
import type { User } from '../users/user';
import { connectionOf, connectionsOf } from './live-session';
import { isLiveFor } from './liveness';
import type { Session } from './session';

export const SESSION_NOT_FOUND = 'Session not found';

/** A session as its owner sees it in the session list (docs/api.md 8.3): never a token or its hash. */
export interface SessionView {
  id: string;
  /** The session of the access token that asked. */
  current: boolean;
  /** ISO 8601, as every time of the account routes. */
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  amr: string[];
  userAgent: string | null;
  ipAddress: string | null;
}

type SessionDeps = Pick<Deps, 'store' | 'clock' | 'log'> & AuditDeps;

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** The last sign-in, refresh or reauthentication: each writes one of these three times. */
const lastUsedAt = (session: Session) => Math.max(session.createdAt, session.refreshedAt ?? 0, session.authTime ?? 0);

function viewOf(session: Session, currentId: string): SessionView {
  return {
    id: session.id,
    current: session.id === currentId,
    createdAt: iso(session.createdAt),
    lastUsedAt: iso(lastUsedAt(session)),
    expiresAt: iso(session.expiresAt),
    amr: [...session.amr],
    userAgent: session.userAgent ?? null,
    ipAddress: session.ipAddress ?? null,
  };
}

async function ownUser(deps: SessionDeps, identity: Identity): Promise<User> {
  const user = await deps.store.users.findById(identity.tenantId, identity.userId);
  // The authorizer found the user a moment ago: gone now, the session is over.
  if (!user) throw new UnauthorizedError();
  return user;
}

/** The user's live sessions, newest first, from the owner index (eventually consistent), with the caller's own always in. */
async function liveSessions(deps: SessionDeps, identity: Identity, user: User): Promise<Session[]> {
  const now = epochSeconds(deps.clock);
  const sessions = await deps.store.sessions.listByUser(identity.tenantId, identity.userId);
  const connection = await connectionsOf(deps, sessions);
  const live = sessions.filter((session) => isLiveFor(user, session, now, connection(session)));
  if (live.some((session) => session.id === identity.sessionId)) return live;
  // A session a moment old may not be in the index yet; the caller's own is read directly.
  const current = await deps.store.sessions.find(identity.tenantId, identity.sessionId);
  if (!current || !isLiveFor(user, current, now, await connectionOf(deps, current))) return live;
  return [current, ...live];
}

/** docs/api.md 8.3: the caller's live sessions, the current one flagged. */
export async function listSessions(deps: SessionDeps, identity: Identity): Promise<{ sessions: SessionView[] }> {
  const user = await ownUser(deps, identity);
  const sessions = await liveSessions(deps, identity, user);
  return { sessions: sessions.map((session) => viewOf(session, identity.sessionId)) };
}

/**
 * docs/api.md 8.3: revokes one session of the caller (also the current one, as logout
 * does), in one conditional write on the session and its owner. An unknown id and
 * another user's session are alike: 404 `Session not found`. A session of the caller
 * that is already revoked or over answers as revoked: the DELETE is idempotent.
 */
export async function revokeSession(deps: SessionDeps, identity: Identity, sessionId: string): Promise<void> {
  const { tenantId, userId } = identity;
  const event = selfEvent(deps, identity, 'identity.session.revoked', { reason: 'revoked', endedSessions: [sessionId] });
  const revoked = await deps.store
    .emitting([event])
    .sessions.revokeOfUser({ tenantId, id: sessionId }, userId, epochSeconds(deps.clock), 'revoked_by_user');
  if (!revoked) throw new NotFoundError(SESSION_NOT_FOUND, { code: 'SESSION_NOT_FOUND' });
  deps.log.info('session_revoked', { tenantId, userId, sessionId, by: identity.sessionId });
  await recordEvent(deps, { ...bySelf(identity), type: 'session_revoked', outcome: 'success', details: { sessionId } });
}

/** How often the user is read again when it changed meanwhile. */
const ATTEMPTS = 5;

/**
 * docs/api.md 8.3: ends every session of the caller but the current one, in one
 * transaction (the user's sign-in generation moves on, the current session with it), so
 * that also a session not yet in the index ends; OAuth grants stay. The count is of the
 * live sessions listed just before. When the caller's own session ended meanwhile (another
 * "sign out other sessions" won the race), 401 `Unauthorized`.
 */
export async function signOutOtherSessions(deps: SessionDeps, identity: Identity): Promise<{ revoked: number }> {
  const { tenantId, userId, sessionId } = identity;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await ownUser(deps, identity);
    const others = (await liveSessions(deps, identity, user)).filter((session) => session.id !== sessionId);
    const event = selfEvent(deps, identity, 'identity.session.revoked', {
      reason: 'other_sessions',
      endedSessions: 'all',
      keptSessionId: sessionId,
    });
    if (await deps.store.emitting([event]).sessions.signOutOthers(user, sessionId)) {
      deps.log.info('other_sessions_revoked', { tenantId, userId, sessionId, revoked: others.length });
      const details = { sessionId, revoked: others.length };
      await recordEvent(deps, { ...bySelf(identity), type: 'other_sessions_revoked', outcome: 'success', details });
      return { revoked: others.length };
    }
    const { session, user: owner } = await deps.store.sessions.findWithOwner(tenantId, sessionId, userId);
    if (!isLiveFor(owner, session, epochSeconds(deps.clock), await connectionOf(deps, session))) throw new UnauthorizedError();
  }
  // The user kept changing under us: the caller may try again.
  throw new ServiceUnavailableError();
}
