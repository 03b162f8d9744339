import type { Deps } from '../deps';
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

/**
 * The one place each MFA security event is announced, after it took effect: logged (with
 * whose account, never a code or a destination). The security notifications of
 * docs/api.md 8 go out from here.
 */
export async function announceMfaEvent(deps: Pick<Deps, 'log'>, account: Account, { event, ...details }: MfaSecurityEvent): Promise<void> {
  deps.log.info(event, { ...account, ...details });
}
