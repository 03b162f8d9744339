import * as z from 'zod';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { type AppError, ConflictError, ForbiddenError, TooManyRequestsError, UnauthorizedError, ValidationError } from '../errors';
import type { Amr } from '../sessions/session';
import { keys } from '../store/keys';
import type { Identity } from '../tokens/access-token';
import { CODE_TTL_SECONDS, generateCode, isCodeShaped } from './codes';
import { type DeliveredEnrollment, type DeliveredMethod, maskDestination, type MfaEnrollment, type MfaMethod, type TotpEnrollment } from './methods';
import { matchTotp, otpauthUri, parseTotpSecret } from './totp';

/** CONTRACT 4.5: 5 wrong codes per (user, method) in 15 minutes lock the method. */
export const MFA_ATTEMPTS = { max: 5, windowSeconds: 15 * 60 };

type MfaDeps = Pick<Deps, 'config' | 'clock' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery'>;

/** Whose second factor: what every audit line names. */
export interface Account {
  tenantId: string;
  userId: string;
  username: string;
}

export function accountOf(identity: Identity): Account {
  return { tenantId: identity.tenantId, userId: identity.userId, username: identity.username };
}

// What sealed secrets and code digests are bound to: a value copied to another user's record does not open.
const secretContext = ({ tenantId, userId }: Account) => `totp-secret\u0000${tenantId}\u0000${userId}`;
const codeContext = ({ tenantId, userId }: Account, method: DeliveredMethod) => `code\u0000${tenantId}\u0000${userId}\u0000${method}`;

const E164 = /^\+[1-9][0-9]{6,14}$/;
const emailAddress = z.email().max(254);

/**
 * Who may add a method: anyone while the user has no active method; once one is
 * active, only a session that passed it (`amr` otp), so that a session from before
 * MFA (or a stolen one) cannot add a factor of its own. 403 `Permission denied`.
 */
export async function authorizeMfaEnrollment(deps: Pick<Deps, 'store'>, identity: Identity | null): Promise<void> {
  if (!identity || identity.amr.includes('otp')) return;
  const methods = await deps.store.mfa.list(identity.tenantId, identity.userId);
  if (methods.some((method) => method.status === 'active')) throw new ForbiddenError();
}

export interface EnableRequest {
  method: MfaMethod;
  /** TOTP: the base32 shared secret; SMS: an E.164 phone number; EMAIL: an email address. */
  secret: string;
}

export interface EnableResult {
  message: 'MFA enabled successfully';
  method: MfaMethod;
  status: 'pending';
  /** TOTP only: the URI for the authenticator app (it holds the secret). */
  otpauthUri?: string;
}

async function storeEnrollment(deps: MfaDeps, enrollment: MfaEnrollment, now: number): Promise<void> {
  const result = await deps.store.mfa.enroll(enrollment, now);
  if (result.outcome === 'already_active') throw new ConflictError('MFA method already enabled');
  if (result.outcome === 'throttled') throw new TooManyRequestsError(result.retryAfterSeconds, 'Too many requests');
}

/** Sends a fresh code: the outbox or SNS/SES gets the code, the log only a masked destination. */
async function deliver(deps: MfaDeps, account: Account, method: DeliveredMethod, destination: string, code: string) {
  await deps.mfaDelivery.send({ tenantId: account.tenantId, userId: account.userId, method, destination, code });
  deps.log.info('mfa_code_sent', { ...account, method, destination: maskDestination(destination) });
}

/**
 * enableMFA (CONTRACT 4.4): stores the method as pending. TOTP: the secret sealed,
 * and the otpauth URI in the answer. SMS/EMAIL: a 6-digit code sent, valid 10 minutes.
 * A pending method is replaced; an active one is not (409 `MFA method already enabled`).
 */
export async function enableMfa(deps: MfaDeps, account: Account, request: EnableRequest): Promise<EnableResult> {
  const now = epochSeconds(deps.clock);
  const pending = { tenantId: account.tenantId, userId: account.userId, status: 'pending' as const, createdAt: now };
  const enabled = { message: 'MFA enabled successfully' as const, method: request.method, status: 'pending' as const };

  if (request.method === 'TOTP') {
    const secret = parseTotpSecret(request.secret);
    if (!secret) throw new ValidationError('Invalid TOTP secret');
    const sealedSecret = await deps.mfaSecrets.seal(secret, secretContext(account));
    await storeEnrollment(deps, { ...pending, method: 'TOTP', sealedSecret } satisfies TotpEnrollment, now);
    deps.log.info('mfa_enabled', { ...account, method: 'TOTP' });
    return { ...enabled, otpauthUri: otpauthUri(secret, deps.config.mfa.totpIssuer, `${account.username} (${account.tenantId})`) };
  }

  const method = request.method;
  const destination = request.secret.trim();
  if (method === 'SMS' && !E164.test(destination)) throw new ValidationError('Invalid phone number');
  if (method === 'EMAIL' && !emailAddress.safeParse(destination).success) throw new ValidationError('Invalid email address');
  const code = generateCode();
  const enrollment: DeliveredEnrollment = {
    ...pending,
    method,
    destination,
    codeDigest: await deps.mfaSecrets.digest(code, codeContext(account, method)),
    codeSentAt: now,
    codeExpiresAt: now + CODE_TTL_SECONDS,
  };
  await storeEnrollment(deps, enrollment, now);
  await deliver(deps, account, method, destination, code);
  deps.log.info('mfa_enabled', { ...account, method });
  return enabled;
}

type Rejection = 'wrong_code' | 'replayed' | 'expired' | 'no_code';

async function acceptTotp(deps: MfaDeps, account: Account, enrollment: TotpEnrollment, code: string): Promise<Rejection | undefined> {
  const secret = await deps.mfaSecrets.open(enrollment.sealedSecret, secretContext(account));
  const nowMs = deps.clock.now();
  const step = matchTotp(secret, code, nowMs, enrollment.lastTimeStep);
  if (step === undefined) return matchTotp(secret, code, nowMs) === undefined ? 'wrong_code' : 'replayed';
  const accepted = await deps.store.mfa.acceptTimeStep(account.tenantId, account.userId, enrollment.sealedSecret, step, epochSeconds(deps.clock));
  // Another request accepted this step (or a later one) first.
  return accepted ? undefined : 'replayed';
}

async function acceptDeliveredCode(deps: MfaDeps, account: Account, enrollment: DeliveredEnrollment, code: string): Promise<Rejection | undefined> {
  const now = epochSeconds(deps.clock);
  const { codeDigest, codeExpiresAt } = enrollment;
  if (!codeDigest || codeExpiresAt === undefined) return 'no_code';
  if (!isCodeShaped(code) || !(await deps.mfaSecrets.matches(codeDigest, code, codeContext(account, enrollment.method)))) return 'wrong_code';
  if (codeExpiresAt <= now) return 'expired';
  const consumed = await deps.store.mfa.consumeCode(account.tenantId, account.userId, enrollment.method, codeDigest, now);
  // Another request used this code first (or it expired or was replaced meanwhile).
  return consumed ? undefined : 'replayed';
}

/**
 * Checks a code of one method under the MFA lockout: an attempt is reserved before
 * the check (so concurrent guesses cannot pass the limit) and a right code clears the
 * counter. A locked method answers 429 and loses its outstanding SMS/EMAIL code.
 */
async function checkCode(deps: MfaDeps, account: Account, enrollment: MfaEnrollment, code: string, invalid: () => AppError) {
  const { tenantId, userId } = account;
  const { method } = enrollment;
  const attemptsKey = keys.mfaAttempts(tenantId, userId, method);
  const reservation = await deps.store.attempts.reserve(attemptsKey, epochSeconds(deps.clock), MFA_ATTEMPTS);
  if (!reservation.allowed) {
    if (method !== 'TOTP') await deps.store.mfa.dropCode(tenantId, userId, method);
    deps.log.warn('mfa_locked', { ...account, method });
    throw new TooManyRequestsError(reservation.retryAfterSeconds);
  }
  const rejection =
    enrollment.method === 'TOTP' ? await acceptTotp(deps, account, enrollment, code) : await acceptDeliveredCode(deps, account, enrollment, code);
  if (rejection) {
    deps.log.info('mfa_verify_failed', { ...account, method, reason: rejection });
    throw invalid();
  }
  await deps.store.attempts.clear(attemptsKey);
  deps.log.info('mfa_verified', { ...account, method, activated: enrollment.status === 'pending' });
}

export interface VerifyRequest {
  method: MfaMethod;
  code: string;
}

/** verifyMFA (CONTRACT 4.5): a right code activates a pending method. */
export async function verifyMfa(deps: MfaDeps, account: Account, { method, code }: VerifyRequest) {
  const enrollment = await deps.store.mfa.find(account.tenantId, account.userId, method);
  if (!enrollment) throw new ValidationError('MFA method not enabled');
  await checkCode(deps, account, enrollment, code, () => new ValidationError('Invalid MFA code'));
  return { message: 'MFA verified successfully' as const };
}

export interface SecondFactorRequest {
  mfaCode?: string | undefined;
  mfaMethod?: MfaMethod | undefined;
}

/** Gives an active SMS/EMAIL method a fresh code, unless one went out less than 30 s ago. */
async function sendLoginCode(deps: MfaDeps, account: Account, enrollment: DeliveredEnrollment) {
  const now = epochSeconds(deps.clock);
  const code = generateCode();
  const digest = await deps.mfaSecrets.digest(code, codeContext(account, enrollment.method));
  const issued = await deps.store.mfa.issueCode(account.tenantId, account.userId, enrollment.method, {
    digest,
    sentAt: now,
    expiresAt: now + CODE_TTL_SECONDS,
  });
  if (issued) await deliver(deps, account, enrollment.method, enrollment.destination, code);
  else deps.log.info('mfa_code_throttled', { ...account, method: enrollment.method });
}

/**
 * The MFA step of login (CONTRACT 4.1), after the password: the `amr` of the session
 * to start. A user with an active method must send a code of one (`mfaMethod`; by
 * default TOTP if active, else the first activated): without one, 401
 * `MFA code required` with `X-MFA-Methods` (and SMS/EMAIL get a fresh code); with a
 * wrong one, 401 `Invalid MFA code`, counted by the MFA lockout.
 */
export async function secondFactor(
  deps: MfaDeps,
  account: Account,
  { mfaCode, mfaMethod }: SecondFactorRequest,
  /** The user's methods, when the caller has read them already (login reads them while Argon2id runs). */
  methods: Promise<MfaEnrollment[]> = deps.store.mfa.list(account.tenantId, account.userId),
): Promise<Amr[]> {
  const active = (await methods)
    .filter((enrollment) => enrollment.status === 'active')
    .sort((a, b) => (a.activatedAt ?? 0) - (b.activatedAt ?? 0));
  if (active.length === 0) return ['pwd'];

  const headers = { 'X-MFA-Methods': active.map((enrollment) => enrollment.method).join(',') };
  const chosen = mfaMethod
    ? active.find((enrollment) => enrollment.method === mfaMethod)
    : (active.find((enrollment) => enrollment.method === 'TOTP') ?? active[0]);
  if (!chosen) throw new ValidationError('MFA method not enabled');
  if (!mfaCode) {
    if (chosen.method !== 'TOTP') await sendLoginCode(deps, account, chosen);
    deps.log.info('login_mfa_required', { ...account, method: chosen.method });
    throw new UnauthorizedError('MFA code required', headers);
  }
  await checkCode(deps, account, chosen, mfaCode, () => new UnauthorizedError('Invalid MFA code', headers));
  return ['pwd', 'otp'];
}
