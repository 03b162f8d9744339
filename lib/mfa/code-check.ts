import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { type AppError, ForbiddenError, TooManyRequestsError } from '../errors';
import { notifyUser } from '../notifications/notify';
import type { SessionRevocation } from '../store/session-revocation';
import { type Account, codeContext, secretContext } from './account';
import { isCodeShaped } from './codes';
import type { DeliveredEnrollment, MfaEnrollment, TotpEnrollment } from './methods';
import { matchTotp } from './totp';

/** docs/api.md 4.5: 5 wrong codes per (user, method) in 15 minutes lock the method. */
export const MFA_ATTEMPTS = { max: 5, windowSeconds: 15 * 60 };

/**
 * Wrong codes in a row, however slowly, after which a method is locked for good
 * (NIST SP 800-63B 5.2.2: at most 100): 5 per 15 minutes would otherwise let a holder
 * of the password guess a TOTP code with about 10% success in 73 days.
 */
export const MAX_FAILED_CODES = 100;

type CheckDeps = Pick<Deps, 'config' | 'clock' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery'>;

type Rejection = 'wrong_code' | 'replayed' | 'expired' | 'no_code';

async function acceptTotp(
  deps: CheckDeps,
  account: Account,
  enrollment: TotpEnrollment,
  code: string,
  revoking: SessionRevocation | undefined,
): Promise<Rejection | undefined> {
  const secret = await deps.mfaSecrets.open(enrollment.sealedSecret, secretContext(account));
  const nowMs = deps.clock.now();
  const step = matchTotp(secret, code, nowMs, enrollment.lastTimeStep);
  if (step === undefined) return matchTotp(secret, code, nowMs) === undefined ? 'wrong_code' : 'replayed';
  const accepted = await deps.store.mfa.acceptTimeStep(
    account.tenantId,
    account.userId,
    enrollment.sealedSecret,
    step,
    epochSeconds(deps.clock),
    revoking,
  );
  // Another request accepted this step (or a later one) first.
  return accepted ? undefined : 'replayed';
}

async function acceptDeliveredCode(
  deps: CheckDeps,
  account: Account,
  enrollment: DeliveredEnrollment,
  code: string,
  revoking: SessionRevocation | undefined,
): Promise<Rejection | undefined> {
  const now = epochSeconds(deps.clock);
  const { codeDigest, codeExpiresAt } = enrollment;
  if (!codeDigest || codeExpiresAt === undefined) return 'no_code';
  if (!isCodeShaped(code) || !(await deps.mfaSecrets.matches(codeDigest, code, codeContext(account, enrollment.method))))
    return 'wrong_code';
  if (codeExpiresAt <= now) return 'expired';
  const consumed = await deps.store.mfa.consumeCode(account.tenantId, account.userId, enrollment.method, codeDigest, now, revoking);
  // Another request used this code first (or it expired or was replaced meanwhile).
  return consumed ? undefined : 'replayed';
}

/**
 * Checks a code of one method under the MFA lockout: an attempt is reserved before
 * the check (so concurrent guesses cannot pass the limit) and a right code clears the
 * counter. A locked method answers 429 and loses its outstanding SMS/EMAIL code; a
 * wrong code throws `invalid()`. A right code is used up (single use), and activates
 * a pending method, in one transaction with `revoking` (the user's other sessions ended).
 */
export async function checkCode(
  deps: CheckDeps,
  account: Account,
  enrollment: MfaEnrollment,
  code: string,
  invalid: () => AppError,
  revoking?: SessionRevocation,
): Promise<void> {
  const { tenantId, userId } = account;
  const { method } = enrollment;
  if ((enrollment.failedCodes ?? 0) >= MAX_FAILED_CODES) {
    deps.log.warn('mfa_method_locked', { ...account, method });
    throw new ForbiddenError('MFA method locked', { code: 'MFA_METHOD_LOCKED' });
  }
  const attempts = { kind: 'mfa', tenantId, userId, method } as const;
  const reservation = await deps.store.attempts.reserve(attempts, epochSeconds(deps.clock), MFA_ATTEMPTS);
  if (!reservation.allowed) {
    if (method !== 'TOTP') await deps.store.mfa.dropCode(tenantId, userId, method);
    deps.log.warn('mfa_locked', { ...account, method });
    throw new TooManyRequestsError(reservation.retryAfterSeconds);
  }
  const rejection =
    enrollment.method === 'TOTP'
      ? await acceptTotp(deps, account, enrollment, code, revoking)
      : await acceptDeliveredCode(deps, account, enrollment, code, revoking);
  if (rejection) {
    deps.log.info('mfa_verify_failed', { ...account, method, reason: rejection });
    const failed = rejection === 'wrong_code' ? await deps.store.mfa.countFailedCode(tenantId, userId, method) : 0;
    if (failed >= MAX_FAILED_CODES) {
      deps.log.warn('mfa_method_locked', { ...account, method });
      // Told once, by the code that locked it (docs/api.md 8.9).
      if (failed === MAX_FAILED_CODES) await notifyUser(deps, account, { kind: 'mfa-locked', method });
    }
    throw invalid();
  }
  await deps.store.attempts.clear(attempts);
  deps.log.info('mfa_verified', { ...account, method, activated: enrollment.status === 'pending' });
}
