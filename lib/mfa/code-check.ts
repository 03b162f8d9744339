import { type AttemptBudget, clearBudget, ESCALATING_BUDGET, reserveBudget } from '../abuse/attempt-budget';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { type AppError, ForbiddenError, TooManyRequestsError } from '../errors';
import type { PendingEvent } from '../events/event';
import { notifyUser } from '../notifications/notify';
import type { SessionRevocation } from '../store/session-revocation';
import { type Account, codeContext, recoveryContext, secretContext } from './account';
import { isCodeShaped } from './codes';
import type { DeliveredEnrollment, MfaEnrollment, TotpEnrollment } from './methods';
import { normalizeRecoveryCode, type RecoveryCodes } from './recovery-codes';
import { matchTotp } from './totp';

/**
 * docs/api.md 4.5, 10: one budget of codes per user, whatever the method (three methods
 * do not triple it), escalating: 5 in 15 minutes, 10 in 2 hours, 20 in a day.
 */
export const MFA_BUDGET: AttemptBudget = ESCALATING_BUDGET;

/**
 * Wrong codes in a row, however slowly, after which a method is locked for good
 * (NIST SP 800-63B 5.2.2: at most 100): 5 per 15 minutes would otherwise let a holder
 * of the password guess a TOTP code with about 10% success in 73 days.
 */
export const MAX_FAILED_CODES = 100;

type CheckDeps = Pick<Deps, 'config' | 'clock' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery'>;

type Rejection = 'wrong_code' | 'replayed' | 'expired' | 'no_code';

/**
 * What the write that uses a right code carries: `revoking`, the user's other sessions
 * ended (a first method activated), and `events`, the change's (docs/events.md).
 */
export interface CodeUse {
  revoking?: SessionRevocation | undefined;
  events?: PendingEvent[] | undefined;
}

/** The stores whose next write (the code's use) carries the use's events. */
const usingStores = (deps: Pick<CheckDeps, 'store'>, { events = [] }: CodeUse) =>
  events.length > 0 ? deps.store.emitting(events) : deps.store;

async function acceptTotp(
  deps: CheckDeps,
  account: Account,
  enrollment: TotpEnrollment,
  code: string,
  use: CodeUse,
): Promise<Rejection | undefined> {
  const secret = await deps.mfaSecrets.open(enrollment.sealedSecret, secretContext(account));
  const nowMs = deps.clock.now();
  const step = matchTotp(secret, code, nowMs, enrollment.lastTimeStep);
  if (step === undefined) return matchTotp(secret, code, nowMs) === undefined ? 'wrong_code' : 'replayed';
  const accepted = await usingStores(deps, use).mfa.acceptTimeStep(
    account.tenantId,
    account.userId,
    enrollment.sealedSecret,
    step,
    epochSeconds(deps.clock),
    use.revoking,
  );
  // Another request accepted this step (or a later one) first.
  return accepted ? undefined : 'replayed';
}

async function acceptDeliveredCode(
  deps: CheckDeps,
  account: Account,
  enrollment: DeliveredEnrollment,
  code: string,
  use: CodeUse,
): Promise<Rejection | undefined> {
  const now = epochSeconds(deps.clock);
  const { codeDigest, codeExpiresAt } = enrollment;
  if (!codeDigest || codeExpiresAt === undefined) return 'no_code';
  if (!isCodeShaped(code) || !(await deps.mfaSecrets.matches(codeDigest, code, codeContext(account, enrollment.method))))
    return 'wrong_code';
  if (codeExpiresAt <= now) return 'expired';
  const consumed = await usingStores(deps, use).mfa.consumeCode(
    account.tenantId,
    account.userId,
    enrollment.method,
    codeDigest,
    now,
    use.revoking,
  );
  // Another request used this code first (or it expired or was replaced meanwhile).
  return consumed ? undefined : 'replayed';
}

/** A recovery code (docs/api.md 8.6): compared with every unused code's digest, then used once. */
async function acceptRecoveryCode(
  deps: CheckDeps,
  account: Account,
  codes: RecoveryCodes,
  code: string,
  use: CodeUse,
): Promise<Rejection | undefined> {
  const typed = normalizeRecoveryCode(code);
  if (!typed) return 'wrong_code';
  const context = recoveryContext(account);
  let used: string | undefined;
  for (const digest of codes.digests ?? []) if (await deps.mfaSecrets.matches(digest, typed, context)) used = digest;
  if (!used) return 'wrong_code';
  const consumed = await usingStores(deps, use).mfa.useRecoveryCode(account.tenantId, account.userId, used, epochSeconds(deps.clock));
  // Another request used this code first, or a new set replaced it.
  return consumed ? undefined : 'replayed';
}

/** The methods whose codes are sent, and voided when the budget is spent. */
const DELIVERED = ['SMS', 'EMAIL'] as const;

/** What a code is checked against: a method, or the user's recovery codes. */
export type Factor = MfaEnrollment | RecoveryCodes;

/**
 * Checks a code of one method (or a recovery code) under the MFA lockout: an attempt is
 * reserved in the user's budget before the check (so concurrent guesses cannot pass the
 * limit) and a right code clears it; a spent budget answers 429. A wrong code throws
 * `invalid()`, and if its attempt was the last the budget allowed, the user's outstanding
 * SMS/EMAIL codes are void: the guesses on them are spent. (Voiding them on the refusals
 * instead would race the allowed attempts still in flight, and let a guesser void a code
 * its owner asked for during the lockout.) A right code is used up (single use), and activates
 * a pending method, in one transaction with what `use` carries (the user's other sessions
 * ended, the change's events).
 */
export async function checkCode(
  deps: CheckDeps,
  account: Account,
  factor: Factor,
  code: string,
  invalid: () => AppError | Promise<AppError>,
  use: CodeUse = {},
): Promise<void> {
  const { tenantId, userId } = account;
  const { method } = factor;
  if ((factor.failedCodes ?? 0) >= MAX_FAILED_CODES) {
    deps.log.warn('mfa_method_locked', { ...account, method });
    throw new ForbiddenError('MFA method locked', { code: 'MFA_METHOD_LOCKED' });
  }
  const budget = (tier: number) => ({ kind: 'mfa', tenantId, userId, tier }) as const;
  const reservation = await reserveBudget(deps.store.attempts, budget, epochSeconds(deps.clock), MFA_BUDGET);
  if (!reservation.allowed) {
    deps.log.warn('mfa_locked', { ...account, method });
    throw new TooManyRequestsError(reservation.retryAfterSeconds);
  }
  const rejection =
    factor.method === 'TOTP'
      ? await acceptTotp(deps, account, factor, code, use)
      : factor.method === 'RECOVERY'
        ? await acceptRecoveryCode(deps, account, factor, code, use)
        : await acceptDeliveredCode(deps, account, factor, code, use);
  if (rejection) {
    deps.log.info('mfa_verify_failed', { ...account, method, reason: rejection });
    if (reservation.remaining === 0) await Promise.all(DELIVERED.map((delivered) => deps.store.mfa.dropCode(tenantId, userId, delivered)));
    const failed = rejection === 'wrong_code' ? await deps.store.mfa.countFailedCode(tenantId, userId, method) : 0;
    if (failed >= MAX_FAILED_CODES) {
      deps.log.warn('mfa_method_locked', { ...account, method });
      // Told once, by the code that locked it (docs/api.md 8.9).
      if (failed === MAX_FAILED_CODES) await notifyUser(deps, account, { kind: 'mfa-locked', method });
    }
    throw await invalid();
  }
  await clearBudget(deps.store.attempts, budget, MFA_BUDGET);
  deps.log.info('mfa_verified', { ...account, method, activated: 'status' in factor && factor.status === 'pending' });
}
