import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ConflictError, TooManyRequestsError, ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import { notifyUser } from '../notifications/notify';
import * as z from '../zod';
import { type Account, codeContext, secretContext } from './account';
import { checkCode } from './code-check';
import { CODE_TTL_SECONDS, generateCode } from './codes';
import { sendCode } from './delivery';
import type { DeliveredEnrollment, MfaEnrollment, MfaMethod, TotpEnrollment } from './methods';
import { otpauthUri, parseTotpSecret } from './totp';

type EnrolmentDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery' | 'source'>;

/** The audit event of a change of the account's own factors (docs/api.md 9.8). */
const factorChanged = (deps: EnrolmentDeps, account: Account, type: 'mfa_method_added' | 'mfa_method_activated', method: MfaMethod) =>
  recordEvent(deps, { ...bySelf(account), type, outcome: 'success', details: { method } });

const E164 = /^\+[1-9][0-9]{6,14}$/;
const emailAddress = z.email().check(z.maxLength(254));

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

async function storeEnrollment(deps: EnrolmentDeps, enrollment: MfaEnrollment, now: number): Promise<void> {
  const added = selfEvent(deps, enrollment, 'identity.mfa.method_added', { method: enrollment.method });
  const result = await deps.store.emitting([added]).mfa.enroll(enrollment, now);
  if (result.outcome === 'already_active') throw new ConflictError('MFA method already enabled', { code: 'MFA_ALREADY_ENABLED' });
  if (result.outcome === 'throttled')
    throw new TooManyRequestsError(result.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
}

/**
 * enableMFA (docs/api.md 4.4): stores the method as pending. TOTP: the secret sealed,
 * and the otpauth URI in the answer. SMS/EMAIL: a 6-digit code sent, valid 10 minutes.
 * A pending method is replaced; an active one is not (409 `MFA method already enabled`).
 */
export async function enableMfa(deps: EnrolmentDeps, account: Account, request: EnableRequest): Promise<EnableResult> {
  const now = epochSeconds(deps.clock);
  const pending = { tenantId: account.tenantId, userId: account.userId, status: 'pending' as const, createdAt: now };
  const enabled = { message: 'MFA enabled successfully' as const, method: request.method, status: 'pending' as const };

  if (request.method === 'TOTP') {
    const secret = parseTotpSecret(request.secret);
    if (!secret) throw new ValidationError('Invalid TOTP secret', { fields: [{ path: 'secret', message: 'Invalid TOTP secret' }] });
    const sealedSecret = await deps.mfaSecrets.seal(secret, secretContext(account));
    await storeEnrollment(deps, { ...pending, method: 'TOTP', sealedSecret } satisfies TotpEnrollment, now);
    deps.log.info('mfa_enabled', { ...account, method: 'TOTP' });
    await factorChanged(deps, account, 'mfa_method_added', 'TOTP');
    return { ...enabled, otpauthUri: otpauthUri(secret, deps.config.mfa.totpIssuer, `${account.username} (${account.tenantId})`) };
  }

  const method = request.method;
  const destination = request.secret.trim();
  if (method === 'SMS' && !E164.test(destination))
    throw new ValidationError('Invalid phone number', { fields: [{ path: 'secret', message: 'Invalid phone number' }] });
  const countries = deps.config.mfa.smsCountries;
  if (method === 'SMS' && countries !== 'any' && !countries.some((prefix) => destination.startsWith(prefix))) {
    throw new ValidationError('Phone number country not allowed', { code: 'SMS_COUNTRY_NOT_ALLOWED' });
  }
  if (method === 'EMAIL' && !emailAddress.safeParse(destination).success)
    throw new ValidationError('Invalid email address', { fields: [{ path: 'secret', message: 'Invalid email address' }] });
  const code = generateCode(deps.random);
  const enrollment: DeliveredEnrollment = {
    ...pending,
    method,
    destination,
    codeDigest: await deps.mfaSecrets.digest(code, codeContext(account, method)),
    codeSentAt: now,
    codeExpiresAt: now + CODE_TTL_SECONDS,
  };
  await storeEnrollment(deps, enrollment, now);
  await sendCode(deps, account, method, destination, code);
  deps.log.info('mfa_enabled', { ...account, method });
  await factorChanged(deps, account, 'mfa_method_added', method);
  return enabled;
}

export interface VerifyRequest {
  method: MfaMethod;
  code: string;
}

/**
 * verifyMFA (docs/api.md 4.5): a right code activates a pending method. The user's first
 * active method ends every other session and grant (docs/api.md 8.1): they were opened
 * without it. Both happen in one transaction, so neither is ever without the other.
 */
export async function verifyMfa(deps: EnrolmentDeps, account: Account, { method, code }: VerifyRequest, sessionId: string) {
  const [methods, user] = await Promise.all([
    deps.store.mfa.list(account.tenantId, account.userId),
    deps.store.users.findById(account.tenantId, account.userId),
  ]);
  const enrollment = methods.find((candidate) => candidate.method === method);
  if (!enrollment) throw new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' });
  const first = enrollment.status === 'pending' && !methods.some((candidate) => candidate.status === 'active');
  const revoking = first && user ? { user, keepSessionId: sessionId } : undefined;
  // Activating the first method ends every other session (docs/events.md, Sessions that end).
  const ended: Record<string, string> = revoking ? { endedSessions: 'all', keptSessionId: sessionId } : {};
  const events = enrollment.status === 'pending' ? [selfEvent(deps, account, 'identity.mfa.method_activated', { method, ...ended })] : [];
  const invalid = () => new ValidationError('Invalid MFA code', { code: 'INVALID_MFA_CODE' });
  await checkCode(deps, account, enrollment, code, invalid, { revoking, events });
  if (revoking) deps.log.info('mfa_first_method_sessions_revoked', { ...account, method, sessionId });
  if (enrollment.status === 'pending') {
    await Promise.all([
      factorChanged(deps, account, 'mfa_method_activated', method),
      notifyUser(deps, user ?? account, { kind: 'mfa-added', method }),
    ]);
  }
  return { message: 'MFA verified successfully' as const };
}
