import { type AttemptBudget, clearBudget, ESCALATING_BUDGET, reserveBudget } from '../abuse/attempt-budget';
import { sourceOf } from '../abuse/source-address';
import type { AuditDetails } from '../audit/events';
import { recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { AppError, TooManyRequestsError, UnauthorizedError } from '../errors';
import type { MfaEnrollment } from '../mfa/methods';
import { type SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import { notifyUser } from '../notifications/notify';
import type { Device } from '../sessions/device';
import type { Amr } from '../sessions/session';
import { type AuthPayload, startSession } from '../sessions/sessions';
import type { AttemptPolicy, AttemptSubject, ReserveResult } from '../store/login-attempts';
import type { User } from './user';

/**
 * docs/api.md 4.1: 5 failed attempts in 15 minutes, the first window of the budget of
 * unknown sources per (tenant, username), and the whole budget of one known device.
 */
export const LOGIN_ATTEMPTS: AttemptPolicy = { max: 5, windowSeconds: 15 * 60 };

/** docs/api.md 10: what unknown sources share per account, escalating (15 minutes, 2 hours, a day). */
export const UNKNOWN_SOURCE_BUDGET: AttemptBudget = ESCALATING_BUDGET;

/** docs/api.md 10: the window of the per-source limit (its size is Config.loginFailuresPerSource). */
export const SOURCE_WINDOW_SECONDS = 15 * 60;

/** A user id no user has (ids are UUIDs): an unknown username reads the MFA methods of nobody. */
const NOBODY = 'none';

export interface LoginRequest {
  tenantId: string;
  username: string;
  password: string;
  /** A device token presented with the request (docs/api.md 10): chooses the device's own budget. */
  deviceToken?: string;
  /** The caller's address as API Gateway saw it: counted by the per-source limit. */
  sourceIp?: string;
}

/** A right password: the user, and the work started for what follows. */
export interface PasswordAccepted {
  user: User;
  /** The user's MFA methods, read while Argon2id ran. */
  mfaMethods: Promise<MfaEnrollment[]>;
  /** Clearing the attempt counter (and upgrading a stale hash): runs while the session is made. */
  afterSuccess: Promise<unknown>;
}

/** Why a password check failed (the audit trail's reasons), with the user if the username is known. */
export interface PasswordFailure {
  reason: 'unknown_user' | 'wrong_password' | 'disabled' | 'password_attempts';
  user: User | undefined;
}

type CheckDeps = Pick<Deps, 'config' | 'clock' | 'store' | 'hasher' | 'log' | 'deviceTokens' | 'mfaDelivery'>;

/**
 * The budget a login attempt is counted in: a known device's own (5 in 15 minutes), or
 * the one every unknown source of the account shares (escalating).
 */
function budgetOf(deps: CheckDeps, { tenantId, username }: LoginRequest, deviceId: string | undefined) {
  const { attempts } = deps.store;
  if (deviceId !== undefined) {
    const device: AttemptSubject = { kind: 'device', tenantId, username, deviceId };
    return {
      reserve: (now: number) => attempts.reserve(device, now, LOGIN_ATTEMPTS),
      clear: () => attempts.clear(device),
    };
  }
  const window = (tier: number): AttemptSubject => ({ kind: 'login', tenantId, username, tier });
  return {
    reserve: (now: number) => reserveBudget(attempts, window, now, UNKNOWN_SOURCE_BUDGET),
    clear: () => clearBudget(attempts, window, UNKNOWN_SOURCE_BUDGET),
  };
}

/** Marks a promise as handled now; whoever awaits it later still sees its failure. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * Checks a password for (tenant, username) under the attempt limits (docs/api.md 4.1,
 * 10): the per-source limit, then the budget of the request's known device or of the
 * account's unknown sources. Unknown users cost one Argon2id verification like known
 * ones, the same reads, and get the same answer. Round trips: the attempt reservation
 * and the source's count alongside the user lookup, then the hash alongside the read of
 * the MFA methods (Argon2id runs off the main thread). A wrong password throws
 * `invalid()` (401 `Invalid credentials` at login) and counts against the source.
 * Before any refusal `refused` runs (the caller's audit event), alongside what the
 * refusal waits for.
 */
export async function checkPassword(
  deps: CheckDeps,
  request: LoginRequest,
  invalid: () => AppError = () => new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' }),
  refused: (failure: PasswordFailure) => Promise<void> = async () => undefined,
): Promise<PasswordAccepted> {
  const { store, hasher, log } = deps;
  const { tenantId, username, password } = request;
  const now = epochSeconds(deps.clock);
  const deviceId = await deps.deviceTokens.verify(request.deviceToken, { tenantId, username }, now);
  const budget = budgetOf(deps, request, deviceId);
  const address = sourceOf(request.sourceIp);
  const source: AttemptSubject | undefined = address === undefined ? undefined : { kind: 'source', address };
  const sourcePolicy = { max: deps.config.loginFailuresPerSource, windowSeconds: SOURCE_WINDOW_SECONDS };
  const allowed: ReserveResult = { allowed: true, remaining: Number.POSITIVE_INFINITY };
  // Independent reads run together: the lookup is wasted only for a refused attempt.
  const [sourceVerdict, reservation, user] = await Promise.all([
    source ? store.attempts.peek(source, now, sourcePolicy) : allowed,
    budget.reserve(now),
    store.users.findByUsername(tenantId, username),
  ]);
  const failed = async () => {
    if (source) await store.attempts.reserve(source, now, sourcePolicy);
  };
  if (!sourceVerdict.allowed) {
    log.warn('login_source_limited', { tenantId, username });
    throw new TooManyRequestsError(sourceVerdict.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
  }
  if (!reservation.allowed) {
    log.warn('login_locked', { tenantId, username, source: deviceId === undefined ? 'unknown' : 'device' });
    await Promise.all([failed(), refused({ reason: 'password_attempts', user })]);
    throw new TooManyRequestsError(reservation.retryAfterSeconds);
  }

  // Read for every attempt that reaches the hash (of nobody for an unknown user), so a
  // wrong password and an unknown user do the same work; used only after a right one.
  const mfaMethods = started(store.mfa.list(tenantId, user?.id ?? NOBODY));
  const verdict = user ? await hasher.verify(user.passwordHash, password) : await hasher.verifyDummy(password).then(() => undefined);
  if (!user || !verdict?.ok || user.status !== 'active') {
    const reason = !user ? 'unknown_user' : !verdict?.ok ? 'wrong_password' : 'disabled';
    await Promise.all([mfaMethods.catch(() => undefined), failed(), refused({ reason, user })]);
    log.info('login_failed', { tenantId, username, reason: user ? 'wrong_password' : 'unknown_user' });
    // This failure filled the window: the account is locked now (docs/api.md 8.9).
    if (user && reservation.remaining === 0) await notifyUser(deps, user, { kind: 'account-locked' });
    throw invalid();
  }
  const afterSuccess = started(
    Promise.all([
      budget.clear(),
      // The cost parameters changed since this hash was made: upgrade it now that we know the password.
      verdict.stale && hasher.hash(password).then((fresh) => store.users.replacePasswordHash(user, user.passwordHash, fresh)),
    ]),
  );
  return { user, mfaMethods, afterSuccess };
}

/**
 * A sign-in's audit event (docs/api.md 9.8): its actor is the account it claims, known or
 * not; a passkey of no known user names no username.
 */
export function signInEvent(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>,
  tenantId: string,
  username: string | undefined,
  user: User | undefined,
  type: 'login_succeeded' | 'login_failed' | 'login_locked',
  details: AuditDetails,
): Promise<void> {
  return recordEvent(deps, {
    tenantId,
    type,
    actor: { type: 'user', id: user?.id ?? null },
    targetUserId: user?.id ?? null,
    outcome: type === 'login_succeeded' ? 'success' : 'failure',
    details: { ...(username === undefined ? {} : { username }), ...details },
  });
}

/** The audit reason of a second factor's refusal at a sign-in, and whether it is a lockout; undefined for a fault. */
export function secondFactorRefusal(error: unknown): { reason: AuditDetails['reason']; locked: boolean } | undefined {
  if (!(error instanceof AppError)) return undefined;
  switch (error.code) {
    case 'MFA_REQUIRED':
      return { reason: 'mfa_required', locked: false };
    case 'INVALID_MFA_CODE':
      return { reason: 'invalid_mfa_code', locked: false };
    case 'MFA_METHOD_NOT_ENABLED':
      return { reason: 'mfa_method_not_enabled', locked: false };
    case 'LOCKED':
      return { reason: 'mfa_attempts', locked: true };
    case 'MFA_METHOD_LOCKED':
      return { reason: 'mfa_method_locked', locked: true };
    default:
      return undefined;
  }
}

/** A login's answer: the Auth payload with the device token of the browser or app that signed in. */
export type LoginPayload = AuthPayload & { deviceToken: string };

/**
 * login: password check, then the second factor if the user has one, then a new
 * session and a new device token (docs/api.md 10). The attempt counter is cleared while the second factor is checked and the
 * session written (a right password clears it, whatever the second factor says);
 * the answer waits for both. Every outcome but a fault is an audit event (docs/api.md
 * 9.8), written alongside the request's last database work: a success with the
 * session, a refusal with the read or counter it waits for, so it adds no round trip.
 */
export async function login(
  deps: Pick<
    Deps,
    'config' | 'clock' | 'random' | 'log' | 'store' | 'hasher' | 'keys' | 'mfaSecrets' | 'mfaDelivery' | 'source' | 'deviceTokens'
  >,
  request: LoginRequest & SecondFactorRequest,
  device: Device = {},
): Promise<LoginPayload> {
  const { tenantId, username } = request;
  const attempt = (user: User | undefined, type: 'login_succeeded' | 'login_failed' | 'login_locked', details: AuditDetails) =>
    signInEvent(deps, tenantId, username, user, type, details);
  const { user, mfaMethods, afterSuccess } = await checkPassword(deps, request, undefined, (failure) =>
    attempt(failure.user, failure.reason === 'password_attempts' ? 'login_locked' : 'login_failed', { reason: failure.reason }),
  );
  try {
    const account = { tenantId: user.tenantId, userId: user.id, username: user.username };
    let amr: Amr[];
    try {
      amr = await secondFactor(deps, account, request, mfaMethods);
    } catch (error) {
      const refusal = secondFactorRefusal(error);
      const method = request.mfaMethod;
      if (refusal) {
        const type = refusal.locked ? 'login_locked' : 'login_failed';
        await Promise.all([
          attempt(user, type, { reason: refusal.reason, ...(method ? { method } : {}) }),
          afterSuccess.catch(() => undefined),
        ]);
      }
      throw error;
    }
    const [payload, deviceToken] = await Promise.all([
      startSession(deps, user, amr, device),
      deps.deviceTokens.issue({ tenantId: user.tenantId, username: user.username }, epochSeconds(deps.clock)),
      attempt(user, 'login_succeeded', { amr }),
    ]);
    deps.log.info('login_succeeded', { tenantId: user.tenantId, userId: user.id, username: user.username, amr });
    return { ...payload, deviceToken };
  } finally {
    await afterSuccess;
  }
}
