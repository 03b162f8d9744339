import { bySelf, recordEvent } from '../audit/record';
import type { Deps } from '../deps';
import { ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import { notifyUser } from '../notifications/notify';
import { revokeOtherSessions } from '../sessions/revocation';
import { checkPassword } from '../sessions/sign-in';
import type { Identity } from '../tokens/access-token';
import { isCommonPassword } from './common-passwords';

export interface PasswordChangeRequest {
  currentPassword: string;
  newPassword: string;
}

/**
 * Password change (docs/api.md 8.2): the current password under the login lockout (400
 * `Invalid credentials`), the new one by the registration rules, then the new hash and
 * the end of every other session and grant of the user in one transaction. The caller's
 * session stays. Should the user change meanwhile (another change, a reset), the current
 * password is checked again against what is stored then.
 */
export async function changePassword(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'store' | 'hasher' | 'log' | 'source' | 'deviceTokens' | 'mfaDelivery'>,
  identity: Identity,
  { currentPassword, newPassword }: PasswordChangeRequest,
): Promise<{ message: 'Password changed' }> {
  const invalid = () => new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' });
  const { tenantId, userId, username, sessionId } = identity;
  const { user, afterSuccess } = await checkPassword(deps, { tenantId, username, password: currentPassword }, invalid, ({ reason }) =>
    recordEvent(deps, { ...bySelf(identity), type: 'password_change_failed', outcome: 'failure', details: { reason } }),
  );
  // The counter cleared (and a stale hash upgraded) before the hash is replaced.
  await afterSuccess;
  if (user.id !== userId) throw invalid();
  if (await isCommonPassword(newPassword)) throw new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' });
  const passwordHash = await deps.hasher.hash(newPassword);
  const stillCurrent = async (current: { passwordHash?: string | undefined }) => {
    if (current.passwordHash === user.passwordHash) return;
    if (!current.passwordHash || !(await deps.hasher.verify(current.passwordHash, currentPassword)).ok) throw invalid();
  };
  // Every other session and grant ends; the caller's stays (docs/events.md).
  const changed = selfEvent(deps, identity, 'identity.password.changed', { endedSessions: 'all', keptSessionId: sessionId });
  await revokeOtherSessions(deps, { tenantId, userId }, sessionId, { set: { passwordHash }, check: stillCurrent, events: [changed] });
  deps.log.info('password_changed', { tenantId, userId, sessionId });
  await Promise.all([
    recordEvent(deps, { ...bySelf(identity), type: 'password_changed', outcome: 'success', details: { sessionId } }),
    notifyUser(deps, { tenantId, userId }, { kind: 'password-changed' }),
  ]);
  return { message: 'Password changed' };
}
