import type { Deps } from '../deps';
import type { User } from '../users/user';
import { renderNotification, type SecurityEvent } from './messages';

export type { SecurityEvent } from './messages';

type NotifyDeps = Pick<Deps, 'config' | 'clock' | 'log' | 'store' | 'mfaDelivery'>;

/** Who is told: a user as read (with their email), or only their ids (then read here). */
export type NotifiedUser = Pick<User, 'tenantId' | 'id' | 'email' | 'emailVerified'>;

/**
 * Tells the user about a security event (docs/api.md 8.9) by email, through the
 * delivery port (counted by the send quotas): to the verified address only, never with
 * a secret. Best effort: a failure to notify (no verified address, a quota, an outage) is
 * logged and never fails the operation that caused it.
 */
export async function notifyUser(
  deps: NotifyDeps,
  user: NotifiedUser | { tenantId: string; userId: string },
  event: SecurityEvent,
): Promise<void> {
  const ids = 'userId' in user ? user : { tenantId: user.tenantId, userId: user.id };
  const fields = { tenantId: ids.tenantId, userId: ids.userId, notification: event.kind };
  try {
    const recipient = 'userId' in user ? await deps.store.users.findById(user.tenantId, user.userId) : user;
    if (!recipient?.email || recipient.emailVerified !== true) {
      deps.log.info('notification_skipped', { ...fields, reason: 'no_verified_email' });
      return;
    }
    const notification = renderNotification(event, deps.config.mfa.totpIssuer, new Date(deps.clock.now()));
    await deps.mfaDelivery.send({
      tenantId: ids.tenantId,
      userId: ids.userId,
      method: 'EMAIL',
      destination: recipient.email,
      notification,
    });
    deps.log.info('notification_sent', fields);
  } catch (error) {
    deps.log.warn('notification_failed', { ...fields, error: error instanceof Error ? error.name : 'unknown' });
  }
}
