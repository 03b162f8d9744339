import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditDetails } from '../audit/events';
import { recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { TooManyRequestsError, ValidationError } from '../errors';
import { type EventValue, newEvent } from '../events/event';
import { CODE_TTL_SECONDS, generateCode, isCodeShaped } from '../mfa/codes';
import { maskDestination } from '../mfa/masking';
import type { DeliveredMethod, MfaEnrollment } from '../mfa/methods';
import { type SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import { notifyUser } from '../notifications/notify';
import { passkeyView } from '../passkeys/passkey';
import { NOBODY, secondFactorRefusal } from '../sessions/sign-in';
import type { AccountCodeKey } from '../store/account-codes';
import { isCommonPassword } from './common-passwords';
import type { User } from './user';

type ResetDeps = Pick<
  Deps,
  | 'config'
  | 'clock'
  | 'random'
  | 'log'
  | 'store'
  | 'hasher'
  | 'mfaSecrets'
  | 'mfaDelivery'
  | 'source'
  | 'deviceTokens'
  | 'forgotAnswerFloorMs'
>;

/** The audit event of a reset step (docs/api.md 9.8): the caller is anonymous, the account is the one the username names. */
const resetEvent = (
  deps: ResetDeps,
  { tenantId, username }: { tenantId: string; username: string },
  userId: string | null,
  type: 'password_reset_requested' | 'password_reset' | 'password_reset_failed',
  details: AuditDetails = {},
) =>
  recordEvent(deps, {
    tenantId,
    type,
    actor: { type: 'user', id: null },
    targetUserId: userId,
    outcome: type === 'password_reset_failed' ? 'failure' : 'success',
    details: { username, ...details },
  });

/**
 * The published event of a reset step (docs/events.md), from the same facts as its audit
 * event: the caller is anonymous, the subject is the account.
 */
const resetPublished = (
  deps: ResetDeps,
  { tenantId }: { tenantId: string },
  userId: string,
  type: 'identity.password.reset_requested' | 'identity.password.reset' | 'identity.passkey.removed',
  data: Record<string, EventValue> = {},
) => newEvent(deps, { tenantId, type, subject: userId, actor: { type: 'user', id: null }, data });

/** docs/api.md 8.7: at most one reset code per user every 60 s. */
export const RESET_RESEND_SECONDS = 60;
/**
 * docs/api.md 8.7: reset codes an account is sent per hour at the request of unknown
 * sources (any caller without a device token of the account). Below the per-destination
 * send quota (5), so strangers asking for resets never use up what the user's own
 * devices, sign-in codes and notices need.
 */
export const RESET_CODES_FROM_UNKNOWN_SOURCES = { max: 3, windowSeconds: 3600 };
/** docs/api.md 8.7: a reset code allows 5 tries. */
export const RESET_CODE_TRIES = 5;
/** Wrong reset codes per username in 15 minutes, across the codes sent: new codes do not bring new guesses. */
export const RESET_ATTEMPTS = { max: 5, windowSeconds: 15 * 60 };
/**
 * The least time the forgot-password answer takes, in ms of wall time: the one step
 * an unknown user cannot imitate (handing the code to SES or SNS) ends well within it,
 * so the answer's time does not tell whether the account exists.
 */
export const FORGOT_ANSWER_FLOOR_MS = 400;

const FORGOT_MESSAGE = 'If the account exists, a reset code has been sent' as const;

/** The context a reset code is digested under: it opens nothing of another user or tenant. */
const resetContext = (tenantId: string, userId: string) => `reset-code\u0000${tenantId}\u0000${userId}`;

interface Channel {
  method: DeliveredMethod;
  destination: string;
}

/** Where a reset code goes: the verified email, else the first active SMS/EMAIL method. */
function resetChannel(user: User, methods: MfaEnrollment[]): Channel | undefined {
  if (user.email && user.emailVerified) return { method: 'EMAIL', destination: user.email };
  const delivered = methods
    .filter((enrollment) => enrollment.status === 'active' && enrollment.method !== 'TOTP')
    .sort((a, b) => (a.activatedAt ?? 0) - (b.activatedAt ?? 0))[0];
  return delivered && 'destination' in delivered ? { method: delivered.method, destination: delivered.destination } : undefined;
}

export interface ForgotRequest {
  tenantId: string;
  username: string;
  /** A device token of the account (docs/api.md 10.1), when the caller has one. */
  deviceToken?: string | undefined;
}

/**
 * Whether an unknown source may have a new code sent: not while the account's hourly
 * allowance for unknown sources is spent (a peek, counted only once a code is issued, so
 * requests that send nothing spend nothing).
 */
async function unknownSourceAllowance(deps: ResetDeps, subject: { tenantId: string; username: string }, now: number) {
  const peeked = await deps.store.attempts.peek({ kind: 'reset-request', ...subject }, now, RESET_CODES_FROM_UNKNOWN_SOURCES);
  return peeked.allowed;
}

/**
 * Forgotten password (docs/api.md 8.7): a reset code to the account's channel, at most
 * one per 60 s. A caller without a device token of the account (an unknown source, as at
 * login, docs/api.md 10.1) gets no new code while the last one is outstanding (the code
 * already on its way to the user serves), and unknown sources together get at most
 * RESET_CODES_FROM_UNKNOWN_SOURCES an hour, so strangers cannot spend the account's send
 * quota; a device the user signed in from always gets its code. Known and unknown
 * usernames (and accounts without a channel) do the same reads, the same digest and the
 * same conditional writes, and answer the same 202 in at least FORGOT_ANSWER_FLOOR_MS
 * (`deps.forgotAnswerFloorMs`, lowered by tests whose subject it is not);
 * only a known account's code is handed to the delivery port, whose failure is logged,
 * never answered. A known account's request is an audit event, written alongside the
 * code (and within the floor): the answer never tells.
 */
export async function requestPasswordReset(
  deps: ResetDeps,
  { tenantId, username, deviceToken }: ForgotRequest,
): Promise<{ message: typeof FORGOT_MESSAGE }> {
  const started = performance.now();
  const now = epochSeconds(deps.clock);
  const account = { tenantId, username };
  const [found, knownDevice] = await Promise.all([
    deps.store.users.findByUsername(tenantId, username),
    deps.deviceTokens.verify(deviceToken, account, now).then((deviceId) => deviceId !== undefined),
  ]);
  const user = found?.status === 'active' ? found : undefined;
  const [methods, allowed] = await Promise.all([
    deps.store.mfa.list(tenantId, user?.id ?? NOBODY),
    knownDevice || unknownSourceAllowance(deps, account, now),
  ]);
  const channel = user && resetChannel(user, methods);
  const userId = channel && user ? user.id : NOBODY;
  const code = generateCode(deps.random);
  const digest = await deps.mfaSecrets.digest(code, resetContext(tenantId, userId));
  const [issued] = await Promise.all([
    allowed &&
      // A known account's request is published with the code it issued: no code, no event.
      (user
        ? deps.store.emitting([resetPublished(deps, account, user.id, 'identity.password.reset_requested')])
        : deps.store
      ).accountCodes.issue(
        { purpose: 'reset', tenantId, username },
        { userId, digest, sentAt: now, expiresAt: now + CODE_TTL_SECONDS, destination: channel?.destination },
        RESET_RESEND_SECONDS,
        knownDevice ? undefined : { maxTries: RESET_CODE_TRIES },
      ),
    user && resetEvent(deps, account, user.id, 'password_reset_requested'),
  ]);
  // The conditional write lets one request of a burst through: the allowance counts it.
  if (issued && !knownDevice)
    await deps.store.attempts.reserve({ kind: 'reset-request', ...account }, now, RESET_CODES_FROM_UNKNOWN_SOURCES);
  if (issued && user && channel) {
    try {
      await deps.mfaDelivery.send({ tenantId, userId: user.id, ...channel, code, purpose: 'reset' });
      deps.log.info('password_reset_code_sent', {
        tenantId,
        userId: user.id,
        method: channel.method,
        destination: maskDestination(channel.destination),
      });
    } catch (error) {
      // Answered like any other request: a refusal here would tell that the account exists.
      deps.log.warn('password_reset_code_not_sent', { tenantId, userId: user.id, error: error instanceof Error ? error.name : 'unknown' });
    }
  } else {
    // Withheld (logged, never answered): the allowance spent, a code outstanding, or one sent within 60 s.
    const withheld = !allowed ? 'unknown_source_limit' : knownDevice ? 'throttled' : 'outstanding';
    deps.log.info('password_reset_code_not_sent', { tenantId, username, reason: issued ? 'no_channel' : withheld });
  }
  const left = (deps.forgotAnswerFloorMs ?? FORGOT_ANSWER_FLOOR_MS) - (performance.now() - started);
  if (left > 0) await sleep(left);
  return { message: FORGOT_MESSAGE };
}

/**
 * A passkey whose registration ended between the reset's listing and its transaction
 * (its session was still live when it checked) is not in the transaction: it goes now.
 * One registered later finds its session revoked and removes itself (lib/passkeys/ceremonies.ts).
 * Best effort after the reset: a failure here is logged, never answered as the reset's.
 */
async function removeLatePasskeys(deps: ResetDeps, user: User, now: number): Promise<void> {
  try {
    for (const late of await deps.store.passkeys.listByUser(user.tenantId, user.id)) {
      // The owner index lags: it may still list passkeys the transaction removed.
      const removing = deps.store.emitting([
        resetPublished(deps, user, user.id, 'identity.passkey.removed', { passkeyId: late.id, reason: 'password_reset' }),
      ]);
      if (!(await removing.passkeys.remove(user.tenantId, user.id, late.id, now))) continue;
      deps.log.info('passkey_removed', { tenantId: user.tenantId, userId: user.id, passkeyId: late.id, reason: 'password_reset' });
    }
  } catch (error) {
    deps.log.warn('password_reset_passkeys_left', {
      tenantId: user.tenantId,
      userId: user.id,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}

export interface ResetRequest extends SecondFactorRequest {
  tenantId: string;
  username: string;
  code: string;
  newPassword: string;
  /** Removes every passkey of the user with the reset (docs/api.md 8.7); kept by default. */
  removePasskeys?: boolean | undefined;
}

/** How often the user is read again when it changed between the read and the reset's transaction. */
const ATTEMPTS = 5;

/**
 * Password reset (docs/api.md 8.7), in order: the username's reset attempts (429), a try
 * of the live code (400 `Invalid reset code`; 5 per code), the new password's rules, the
 * second factor when MFA is active (a method other than the reset code's channel, or a
 * recovery code: lib/mfa/second-factor.ts, as at login); then in one transaction the code
 * used, the new hash, every session and grant revoked, the login lockout cleared, and
 * with `removePasskeys` every passkey of the user removed. The notification lists the
 * passkeys (kept or removed: a kept one still signs in without the password). The
 * reset and each refusal but the throttle are audit events (docs/api.md 9.8).
 */
export async function resetPassword(deps: ResetDeps, request: ResetRequest): Promise<{ message: 'Password reset' }> {
  const { tenantId, username, code, newPassword } = request;
  const invalid = () => new ValidationError('Invalid reset code', { code: 'INVALID_RESET_CODE' });
  const key: AccountCodeKey & { purpose: 'reset' } = { purpose: 'reset', tenantId, username };
  const now = epochSeconds(deps.clock);
  const attempts = { kind: 'reset', tenantId, username } as const;
  const reservation = await deps.store.attempts.reserve(attempts, now, RESET_ATTEMPTS);
  if (!reservation.allowed) throw new TooManyRequestsError(reservation.retryAfterSeconds);

  const record = await deps.store.accountCodes.spendTry(key, now, RESET_CODE_TRIES);
  const digest = record?.digest;
  // A code of nobody (an unknown username's) names no user.
  const failed = (details: AuditDetails) =>
    resetEvent(deps, request, record && record.userId !== NOBODY ? record.userId : null, 'password_reset_failed', details);
  if (!record || !digest || !isCodeShaped(code) || !(await deps.mfaSecrets.matches(digest, code, resetContext(tenantId, record.userId)))) {
    deps.log.info('password_reset_failed', { tenantId, username, reason: 'invalid_code' });
    await failed({ reason: 'invalid_code' });
    throw invalid();
  }
  if (await isCommonPassword(newPassword)) {
    await failed({ reason: 'password_too_common' });
    throw new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' });
  }
  let user = await deps.store.users.findById(tenantId, record.userId);
  if (user?.status !== 'active') {
    await failed({ reason: user ? 'disabled' : 'unknown_user' });
    throw invalid();
  }
  const account = { tenantId, userId: user.id, username: user.username };
  const channel = record.destination?.toLowerCase();
  try {
    await secondFactor(deps, account, request, deps.store.mfa.list(tenantId, user.id), {
      excluded: (enrollment) => 'destination' in enrollment && enrollment.destination.toLowerCase() === channel,
    });
  } catch (error) {
    const refusal = secondFactorRefusal(error);
    if (refusal) await failed({ reason: refusal.reason, ...(request.mfaMethod ? { method: request.mfaMethod } : {}) });
    throw error;
  }
  const passwordHash = await deps.hasher.hash(newPassword);

  for (let attempt = 0; attempt < ATTEMPTS && user; attempt++) {
    // A passkey signs in without the password: the reset names the user's passkeys, and
    // removes them in its own transaction when asked to (docs/api.md 8.7, 8.9).
    const passkeys = await deps.store.passkeys.listByUser(tenantId, user.id);
    const removed = request.removePasskeys === true ? passkeys.map((passkey) => passkey.id) : [];
    // Every session and grant ends, and the passkeys removed with it (docs/events.md).
    const { id: userId } = user;
    const events = [
      resetPublished(deps, request, userId, 'identity.password.reset', {
        endedSessions: 'all',
        ...(request.removePasskeys === true ? { passkeysRemoved: removed.length } : {}),
      }),
      ...removed.map((passkeyId) =>
        resetPublished(deps, request, userId, 'identity.passkey.removed', { passkeyId, reason: 'password_reset' }),
      ),
    ];
    if (await deps.store.emitting(events).accountCodes.resetPassword(key, digest, now, user, passwordHash, removed)) {
      if (request.removePasskeys === true) await removeLatePasskeys(deps, user, now);
      deps.log.info('password_reset', { tenantId, userId: user.id, passkeysRemoved: removed.length });
      const notice = { kind: 'password-reset', passkeys: passkeys.map(passkeyView), passkeysRemoved: removed.length > 0 } as const;
      await Promise.all([
        resetEvent(deps, request, user.id, 'password_reset', request.removePasskeys === true ? { passkeysRemoved: removed.length } : {}),
        notifyUser(deps, user, notice),
      ]);
      return { message: 'Password reset' };
    }
    // Used by a concurrent reset (the code is gone), or the user changed: read both again.
    if ((await deps.store.accountCodes.find(key))?.digest !== digest) break;
    user = await deps.store.users.findById(tenantId, user.id);
  }
  await failed({ reason: 'invalid_code' });
  throw invalid();
}
