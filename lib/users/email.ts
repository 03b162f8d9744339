import { type AuditDeps, bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../errors';
import type { PendingEvent } from '../events/event';
import { selfEvent } from '../events/self';
import { CODE_TTL_SECONDS, generateCode, isCodeShaped, RESEND_INTERVAL_SECONDS } from '../mfa/codes';
import { maskDestination } from '../mfa/masking';
import { notifyUser } from '../notifications/notify';
import type { User } from './user';

type EmailDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery' | 'source'>;

/** docs/api.md 8.8: a verification code allows 5 tries. */
export const VERIFY_CODE_TRIES = 5;

/** The context a verification code is digested under: bound to the user and the address it verifies. */
const verifyContext = (user: Pick<User, 'tenantId' | 'id'>, email: string) =>
  `verify-email\u0000${user.tenantId}\u0000${user.id}\u0000${email}`;

/**
 * Stores `email` on the user, unverified, with a fresh verification code (10 minutes,
 * at most one per 30 s: 429 `Too many requests`), and sends the code there. The write
 * carries `events` (the change's, docs/events.md).
 */
export async function sendEmailVerification(deps: EmailDeps, user: User, email: string, events: PendingEvent[] = []): Promise<void> {
  const now = epochSeconds(deps.clock);
  const code = generateCode(deps.random);
  const stored = await deps.store.emitting(events).accountCodes.setEmail(
    user,
    email,
    {
      userId: user.id,
      digest: await deps.mfaSecrets.digest(code, verifyContext(user, email)),
      sentAt: now,
      expiresAt: now + CODE_TTL_SECONDS,
      destination: email,
    },
    RESEND_INTERVAL_SECONDS,
  );
  if (!stored) {
    const last = await deps.store.accountCodes.find({ purpose: 'verify-email', tenantId: user.tenantId, userId: user.id });
    if (!last) throw new UnauthorizedError();
    throw new TooManyRequestsError(last.sentAt + RESEND_INTERVAL_SECONDS - now, 'Too many requests', { code: 'RATE_LIMITED' });
  }
  await deps.mfaDelivery.send({
    tenantId: user.tenantId,
    userId: user.id,
    method: 'EMAIL',
    destination: email,
    code,
    purpose: 'verify-email',
  });
  deps.log.info('email_verification_sent', { tenantId: user.tenantId, userId: user.id, destination: maskDestination(email) });
}

/**
 * PUT /auth/email (docs/api.md 8.8): the new address is stored unverified and gets a
 * code; the old address, if it was verified, is told (docs/api.md 8.9). The change is an
 * audit event (docs/api.md 9.8), without the address.
 */
export async function changeEmail(
  deps: EmailDeps,
  { tenantId, userId }: { tenantId: string; userId: string },
  email: string,
): Promise<{ message: 'Verification code sent'; email: string; emailVerified: false }> {
  const user = await deps.store.users.findById(tenantId, userId);
  if (!user) throw new UnauthorizedError();
  // Without the address: of personal data an event carries the username at most.
  await sendEmailVerification(deps, user, email, [selfEvent(deps, { tenantId, userId }, 'identity.user.email_changed')]);
  await Promise.all([
    recordEvent(deps, { ...bySelf({ tenantId, userId }), type: 'email_changed', outcome: 'success' }),
    user.email && user.emailVerified && user.email !== email
      ? notifyUser(deps, user, { kind: 'email-changed', to: maskDestination(email) })
      : undefined,
  ]);
  return { message: 'Verification code sent', email, emailVerified: false };
}

/**
 * POST /auth/email/verify (docs/api.md 8.8): a try of the live code (5 per code), then the
 * code used and the address marked verified in one transaction, if it is still the
 * user's address. Wrong, expired, used or spent: 400 `Invalid verification code`. Both
 * outcomes are audit events (docs/api.md 9.8).
 */
export async function verifyEmail(
  deps: Pick<Deps, 'clock' | 'log' | 'store' | 'mfaSecrets'> & AuditDeps,
  { tenantId, userId }: { tenantId: string; userId: string },
  code: string,
): Promise<{ message: 'Email verified' }> {
  const invalid = () => new ValidationError('Invalid verification code', { code: 'INVALID_VERIFICATION_CODE' });
  const now = epochSeconds(deps.clock);
  const user = { tenantId, id: userId };
  const self = bySelf({ tenantId, userId });
  const failed = async () => {
    await recordEvent(deps, { ...self, type: 'email_verification_failed', outcome: 'failure', details: { reason: 'invalid_code' } });
    return invalid();
  };
  const record = await deps.store.accountCodes.spendTry({ purpose: 'verify-email', tenantId, userId }, now, VERIFY_CODE_TRIES);
  const { digest, destination } = record ?? {};
  if (!digest || !destination || !isCodeShaped(code) || !(await deps.mfaSecrets.matches(digest, code, verifyContext(user, destination)))) {
    deps.log.info('email_verification_failed', { tenantId, userId });
    throw await failed();
  }
  // Used by a concurrent request, or the address changed meanwhile.
  const verified = deps.store.emitting([selfEvent(deps, { tenantId, userId }, 'identity.user.email_verified')]);
  if (!(await verified.accountCodes.verifyEmail(user, digest, now, destination))) throw await failed();
  deps.log.info('email_verified', { tenantId, userId });
  await recordEvent(deps, { ...self, type: 'email_verified', outcome: 'success' });
  return { message: 'Email verified' };
}
