import { isLive } from '../token-families/refresh-family';
import { isSessionOfCurrentGeneration, type User } from '../users/user';
import type { Session } from './session';

/** A browser session unused this long is over (docs/api.md 11.6). */
export const BROWSER_IDLE_SECONDS = 30 * 60;

/** What the rule reads of a user (the authorizer's read has no more). */
export type LivenessUser = Pick<User, 'id' | 'tenantId' | 'status' | 'sessionEpoch' | 'signInEpoch'>;

/** What the rule reads of a session (the authorizer's read has no more). */
export type LivenessSession = Pick<
  Session,
  'tenantId' | 'userId' | 'expiresAt' | 'revokedAt' | 'userEpoch' | 'signInEpoch' | 'browserHash' | 'seenAt' | 'idp'
>;

/** What the rule reads of the connection a federated session came through (docs/api.md 14.3). */
export interface LivenessConnection {
  id: string;
  tenantId: string;
  enabled: boolean;
}

/**
 * Whether a session is live for its user at `now` (epoch seconds): the one rule every
 * place that judges a session applies (docs/api.md 3, 8.3, 11.6). Both exist, are of one
 * tenant and the session is the user's; it is neither revoked nor past its end; a browser
 * session was used within its idle timeout; it began in the user's current session
 * generation (no password change or reset, MFA reset, disabling or "sign out everywhere"
 * since) and sign-in generation (no "sign out my other sessions" since); the user is active.
 * A federated session (`idp`) lives only while its connection exists and is enabled
 * (docs/api.md 14.1): the caller reads it (lib/sessions/live-session.ts `connectionOf`),
 * and one judged without it is over.
 */
export function isLiveFor(
  user: LivenessUser | undefined,
  session: LivenessSession | undefined,
  now: number,
  connection?: LivenessConnection | undefined,
): boolean {
  if (!user || !session) return false;
  if (session.idp !== undefined && !(connection?.enabled && connection.id === session.idp && connection.tenantId === session.tenantId)) {
    return false;
  }
  if (session.tenantId !== user.tenantId || session.userId !== user.id) return false;
  if (!isLive(session, now)) return false;
  if (session.browserHash !== undefined && (session.seenAt ?? 0) <= now - BROWSER_IDLE_SECONDS) return false;
  return user.status === 'active' && isSessionOfCurrentGeneration(user, session);
}
