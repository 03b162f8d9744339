import type { Deps } from '../deps';
import { ForbiddenError } from '../errors';
import type { Identity } from '../tokens/access-token';

/** Who asks to change a factor: the session's user and what the session proved (`amr`). */
export type FactorChanger = Pick<Identity, 'tenantId' | 'userId' | 'amr'>;

/**
 * Whether a session proved more than a password: a one-time code (`amr` otp), or a
 * passkey with user verification (hwk/swk with user), which satisfies MFA (docs/api.md 12.6).
 */
const passedMfa = (amr: readonly string[]) => amr.includes('otp') || (amr.includes('user') && (amr.includes('hwk') || amr.includes('swk')));

/**
 * Whether the session may add or remove a factor (docs/api.md 4.4, 8.6, 12.1): always
 * while the user has no active MFA method; once one is active, only a session that passed
 * one (or a passkey), so that a session from before MFA (or a stolen one) cannot add a
 * factor of its own, a passkey included, or remove the user's.
 */
export async function mayChangeFactors(deps: Pick<Deps, 'store'>, changer: FactorChanger): Promise<boolean> {
  if (passedMfa(changer.amr)) return true;
  const methods = await deps.store.mfa.list(changer.tenantId, changer.userId);
  return !methods.some((method) => method.status === 'active');
}

/** A route's check of {@link mayChangeFactors}: 403 `Permission denied` (code `MFA_STEP_UP_REQUIRED`). */
export async function authorizeFactorChange(deps: Pick<Deps, 'store'>, changer: FactorChanger | null): Promise<void> {
  if (changer && !(await mayChangeFactors(deps, changer))) throw new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' });
}
