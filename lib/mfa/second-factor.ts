import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { UnauthorizedError, ValidationError } from '../errors';
import type { Amr } from '../sessions/session';
import { type Account, codeContext } from './account';
import { checkCode } from './code-check';
import { CODE_TTL_SECONDS, generateCode, sendCode } from './codes';
import type { DeliveredEnrollment, MfaEnrollment, MfaMethod } from './methods';

type SecondFactorDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery'>;

export interface SecondFactorRequest {
  mfaCode?: string | undefined;
  mfaMethod?: MfaMethod | undefined;
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

/**
 * The MFA step of login (docs/api.md 4.1), after the password: the `amr` of the session
 * to start. A user with an active method must send a code of one (`mfaMethod`; by
 * default TOTP if active, else the first activated): without one, 401
 * `MFA code required` with `X-MFA-Methods` (and SMS/EMAIL get a fresh code); with a
 * wrong one, 401 `Invalid MFA code`, counted by the MFA lockout.
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

  const headers = { 'X-MFA-Methods': active.map((enrollment) => enrollment.method).join(',') };
  const chosen = mfaMethod
    ? active.find((enrollment) => enrollment.method === mfaMethod)
    : (active.find((enrollment) => enrollment.method === 'TOTP') ?? active[0]);
  if (!chosen) {
    // An excluded method, or none left: MFA is still required, by another factor.
    if (active.length === 0 || allActive.some((enrollment) => enrollment.method === mfaMethod))
      throw new UnauthorizedError('MFA code required', headers, { code: 'MFA_REQUIRED' });
    throw new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' });
  }
  if (!mfaCode) {
    if (chosen.method !== 'TOTP') await sendLoginCode(deps, account, chosen);
    deps.log.info('login_mfa_required', { ...account, method: chosen.method });
    throw new UnauthorizedError('MFA code required', headers, { code: 'MFA_REQUIRED' });
  }
  await checkCode(deps, account, chosen, mfaCode, () => new UnauthorizedError('Invalid MFA code', headers, { code: 'INVALID_MFA_CODE' }));
  return ['pwd', 'otp'];
}
