import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { UnauthorizedError, ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import type { Amr } from '../sessions/session';
import { type Account, codeContext } from './account';
import { checkCode } from './code-check';
import { CODE_TTL_SECONDS, generateCode } from './codes';
import { sendCode } from './delivery';
import type { DeliveredEnrollment, MfaEnrollment, SecondFactor } from './methods';
import { type RecoveryCodes, remainingCodes } from './recovery-codes';
import { announceMfaEvent } from './security-events';

type SecondFactorDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery' | 'source'>;

export interface SecondFactorRequest {
  mfaCode?: string | undefined;
  mfaMethod?: SecondFactor | undefined;
}

export interface SecondFactorOptions {
  /**
   * Active methods that cannot serve here (a password reset: the channel the reset code
   * went to, docs/api.md 8.7). They still make MFA required; when no other method is
   * left, only a recovery code can pass.
   */
  excluded?: (enrollment: MfaEnrollment) => boolean;
}

/** Gives an active SMS/EMAIL method a fresh code, unless one went out less than 30 s ago. */
async function sendLoginCode(deps: SecondFactorDeps, account: Account, enrollment: DeliveredEnrollment) {
  const now = epochSeconds(deps.clock);
  const code = generateCode(deps.random);
  const digest = await deps.mfaSecrets.digest(code, codeContext(account, enrollment.method));
  const issued = await deps.store.mfa.issueCode(account.tenantId, account.userId, enrollment.method, {
    digest,
    sentAt: now,
    expiresAt: now + CODE_TTL_SECONDS,
  });
  if (issued) await sendCode(deps, account, enrollment.method, enrollment.destination, code);
  else deps.log.info('mfa_code_throttled', { ...account, method: enrollment.method });
}

const notEnabled = () => new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' });

/**
 * The MFA step of login (docs/api.md 4.1), reauthenticate (8.1) and every other proof of
 * the user, after the password: the `amr` of the session. A user with an active method
 * must send a code of one (`mfaMethod`; by default TOTP if active, else the first
 * activated) or a recovery code (`mfaMethod` RECOVERY, docs/api.md 8.6): without one, 401
 * `MFA code required` with `X-MFA-Methods` (and SMS/EMAIL get a fresh code); with a
 * wrong one, 401 `Invalid MFA code`, counted by the MFA lockout. A recovery code is a
 * one-time password (RFC 8176 `otp`) like the others.
 */
export async function secondFactor(
  deps: SecondFactorDeps,
  account: Account,
  { mfaCode, mfaMethod }: SecondFactorRequest,
  /** The user's methods, when the caller has read them already (login reads them while Argon2id runs). */
  methods: Promise<MfaEnrollment[]> = deps.store.mfa.list(account.tenantId, account.userId),
  { excluded = () => false }: SecondFactorOptions = {},
): Promise<Amr[]> {
  const allActive = (await methods).filter((enrollment) => enrollment.status === 'active');
  if (allActive.length === 0) return ['pwd'];
  const active = allActive.filter((enrollment) => !excluded(enrollment)).sort((a, b) => (a.activatedAt ?? 0) - (b.activatedAt ?? 0));

  // Read only when needed (a recovery code, or a refusal's header): a TOTP sign-in does without.
  let recovery: Promise<RecoveryCodes | undefined> | undefined;
  const recoveryCodes = () => (recovery ??= deps.store.mfa.recoveryCodes(account.tenantId, account.userId));
  /** The active methods, and RECOVERY while unused recovery codes remain. */
  const headers = async () => {
    const factors = active.map((enrollment): SecondFactor => enrollment.method);
    if (remainingCodes(await recoveryCodes()) > 0) factors.push('RECOVERY');
    return { 'X-MFA-Methods': factors.join(',') };
  };
  const invalid = async () => new UnauthorizedError('Invalid MFA code', await headers(), { code: 'INVALID_MFA_CODE' });
  const required = async (method: SecondFactor) => {
    deps.log.info('login_mfa_required', { ...account, method });
    return new UnauthorizedError('MFA code required', await headers(), { code: 'MFA_REQUIRED' });
  };

  if (mfaMethod === 'RECOVERY') {
    const codes = await recoveryCodes();
    if (!codes || remainingCodes(codes) === 0) throw notEnabled();
    if (!mfaCode) throw await required('RECOVERY');
    const remaining = remainingCodes(codes) - 1;
    const used = selfEvent(deps, account, 'identity.mfa.recovery_code_used', { remaining });
    await checkCode(deps, account, codes, mfaCode, invalid, { events: [used] });
    await Promise.all([
      recordEvent(deps, { ...bySelf(account), type: 'recovery_code_used', outcome: 'success', details: { remaining } }),
      announceMfaEvent(deps, account, { event: 'recovery_code_used', remaining }),
    ]);
    return ['pwd', 'otp'];
  }

  const chosen = mfaMethod
    ? active.find((enrollment) => enrollment.method === mfaMethod)
    : (active.find((enrollment) => enrollment.method === 'TOTP') ?? active[0]);
  if (!chosen) {
    // An excluded method, or none left: MFA is still required, by another factor (a recovery code at least).
    if (active.length === 0 || allActive.some((enrollment) => enrollment.method === mfaMethod))
      throw await required(mfaMethod ?? 'RECOVERY');
    throw notEnabled();
  }
  if (!mfaCode) {
    if (chosen.method !== 'TOTP') await sendLoginCode(deps, account, chosen);
    throw await required(chosen.method);
  }
  await checkCode(deps, account, chosen, mfaCode, invalid);
  return ['pwd', 'otp'];
}
