import type { Deps } from '../deps';
import { notifyUser, type SecurityEvent } from '../notifications/notify';
import type { Account } from './account';
import type { MfaMethod } from './methods';

/**
 * The MFA lifecycle events a user should hear about (docs/api.md 8.6): a method removed,
 * a set of recovery codes generated, a recovery code used.
 */
export type MfaSecurityEvent =
  | { event: 'mfa_method_removed'; method: MfaMethod }
  | { event: 'recovery_codes_generated' }
  | { event: 'recovery_code_used'; remaining: number };

/** The notification (docs/api.md 8.9) each event sends. */
function notificationOf(event: MfaSecurityEvent): SecurityEvent {
  switch (event.event) {
    case 'mfa_method_removed':
      return { kind: 'mfa-removed', method: event.method };
    case 'recovery_codes_generated':
      return { kind: 'recovery-codes-generated' };
    case 'recovery_code_used':
      return { kind: 'recovery-codes-used', remaining: event.remaining };
  }
}

/**
 * The one place each MFA security event is announced, after it took effect: logged (with
 * whose account, never a code or a destination) and told to the user's verified address
 * (docs/api.md 8.9; best effort: a notification that cannot go out never fails the operation).
 */
export async function announceMfaEvent(
  deps: Pick<Deps, 'config' | 'clock' | 'log' | 'store' | 'mfaDelivery'>,
  account: Account,
  event: MfaSecurityEvent,
): Promise<void> {
  const { event: name, ...details } = event;
  deps.log.info(name, { ...account, ...details });
  await notifyUser(deps, account, notificationOf(event));
}
