import { type AttemptBudget, clearBudget, ESCALATING_BUDGET, reserveBudget } from '../abuse/attempt-budget';
import { sourceOf } from '../abuse/source-address';
import { type AuditDetails, safeDetails } from '../audit/events';
import { bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { AppError, TooManyRequestsError, UnauthorizedError, ValidationError } from '../errors';
import { newEvent, type PendingEvent } from '../events/event';
import type { MfaEnrollment } from '../mfa/methods';
import type { SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import { notifyUser } from '../notifications/notify';
import type { AttemptPolicy, AttemptSubject, ReserveResult } from '../store/login-attempts';
import type { Identity } from '../tokens/access-token';
import type { User } from '../users/user';
import type { Device } from './device';
import type { Amr } from './session';
import { type AuthPayload, startSession } from './sessions';

/*
 * The one sign-in pipeline (docs/api.md 4.1, 8.1, 10, 11.7, 12.6): every door that lets a
 * person in (the JSON login, the hosted pages, reauthenticate, passkeys) runs the same
 * named steps in the same order: the first factor (a password under the attempt limits,
 * or one a door established itself), the second factor, then the session, the device
 * token and the audit event together. A door chooses its first factor, what the session
 * is (`Opening`) and whether the audit trail records a sign-in or a reauthentication.
 */

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
/** A user id no user has (ids are UUIDs): what an unknown username's work is done for, so it answers as a known one. */
export const NOBODY = 'none';

export type SignInDeps = Pick<
  Deps,
  'config' | 'clock' | 'random' | 'log' | 'store' | 'hasher' | 'keys' | 'mfaSecrets' | 'mfaDelivery' | 'source' | 'deviceTokens'
>;

// ---------------------------------------------------------------------------------------
// Step 1: the password, under the attempt limits.

/** A password to check for (tenant, username), with what chooses the budget it counts in. */
export interface PasswordRequest {
  tenantId: string;
  username: string;
  password: string;
  /** A device token presented with the request (docs/api.md 10): chooses the device's own budget. */
  deviceToken?: string | undefined;
  /** The caller's address as API Gateway saw it: counted by the per-source limit. */
  sourceIp?: string | undefined;
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
function budgetOf(deps: CheckDeps, { tenantId, username }: PasswordRequest, deviceId: string | undefined) {
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

const invalidCredentials = () => new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' });

/**
 * Replaces a stale hash (older Argon2id parameters, or an imported one) with today's
 * Argon2id in one conditional write. The sign-in answers after it (signIn awaits
 * `afterSuccess`), so an imported hash is gone once the first sign-in with it succeeded;
 * the write is refused only when the hash changed meanwhile (a concurrent sign-in upgraded
 * it, a reset replaced it), which is logged.
 */
async function upgradeHash(deps: Pick<CheckDeps, 'hasher' | 'store' | 'log'>, user: User, stored: string, password: string): Promise<void> {
  const fresh = await deps.hasher.hash(password);
  if (!(await deps.store.users.replacePasswordHash(user, stored, fresh))) {
    deps.log.info('password_rehash_skipped', { tenantId: user.tenantId, userId: user.id, reason: 'hash_changed' });
  }
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
  request: PasswordRequest,
  invalid: () => AppError = invalidCredentials,
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
  // An account without a password (docs/api.md 5.1) is refused like an unknown one, at the same cost.
  const stored = user?.passwordHash;
  const verdict = stored ? await hasher.verify(stored, password) : await hasher.verifyDummy(password).then(() => undefined);
  // Refused at import, or stored before the ceilings (docs/api.md 13.2): a wrong password, and a line for the operator.
  if (verdict?.unusable) log.warn('password_hash_unusable', { tenantId, userId: user?.id });
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
      // Other cost parameters, or a hash imported from another platform (docs/api.md 13.2): now
      // that the password is known, today's Argon2id replaces it, if it is still the one verified.
      verdict.stale && stored && upgradeHash(deps, user, stored, password),
    ]),
  );
  return { user, mfaMethods, afterSuccess };
}

// ---------------------------------------------------------------------------------------
// The audit trail of a sign-in.

const PUBLISHED = {
  login_succeeded: 'identity.login.succeeded',
  login_failed: 'identity.login.failed',
  login_locked: 'identity.login.locked',
} as const;

/**
 * A sign-in's event (docs/events.md, Sign-in and credentials), from the same facts as its
 * audit event: its subject is the account it claims (none for an unknown username).
 */
export function signInPublished(
  deps: Pick<Deps, 'config' | 'clock' | 'random'>,
  tenantId: string,
  username: string | undefined,
  user: User | undefined,
  type: keyof typeof PUBLISHED,
  details: AuditDetails,
): PendingEvent {
  // The username as typed reaches the event as it reaches the trail: no control character does.
  const data = safeDetails(Object.fromEntries(Object.entries({ username, ...details }).filter(([, value]) => value !== undefined)));
  return newEvent(deps, {
    tenantId,
    type: PUBLISHED[type],
    subject: user?.id ?? null,
    actor: { type: 'user', id: user?.id ?? null },
    data: data as Record<string, string | number | boolean | string[]>,
  });
}

/**
 * A refused sign-in's audit event (docs/api.md 9.8) and its published event: its actor
 * is the account it claims, known or not; a passkey of no known user names no username.
 * The refusal changes nothing else its event could ride on (the attempt counters moved
 * before the outcome was known), so the event is a write of its own, alongside the audit's.
 */
export async function signInEvent(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>,
  tenantId: string,
  username: string | undefined,
  user: User | undefined,
  type: 'login_failed' | 'login_locked',
  details: AuditDetails,
): Promise<void> {
  await Promise.all([
    recordSignIn(deps, tenantId, username, user, type, details),
    deps.store.events.write([signInPublished(deps, tenantId, username, user, type, details)]),
  ]);
}

/** A sign-in's audit event (docs/api.md 9.8). */
function recordSignIn(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>,
  tenantId: string,
  username: string | undefined,
  user: User | undefined,
  type: keyof typeof PUBLISHED,
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

/** The events a new session's write carries (a sign-in's success), given the session's id. */
export type SessionEvents = (sessionId: string) => PendingEvent[];

/**
 * What an attempt's audit trail records and the platform hears: its refusals (locked or
 * not), and its success: the audit event, and the published event that the opening's
 * write carries (docs/events.md).
 */
interface SignInEvents {
  refused(user: User | undefined, locked: boolean, details: AuditDetails): Promise<void>;
  succeeded(user: User, amr: Amr[]): { recorded: Promise<void>; published: SessionEvents };
}

// ---------------------------------------------------------------------------------------
// The pipeline.

/**
 * How the person proved who they are first. `password` is checked here (step 1); the
 * others were established by their door, which also refused and audited their failures:
 * `password-proven` by an earlier step of the same interaction (the hosted second-factor
 * page), `passkey` by lib/passkeys/ceremonies.ts (possession and user verification: it
 * satisfies MFA, docs/api.md 12.6), `federated` by the organization's identity provider,
 * whose `amr` the session takes, `invitation` by the acceptance of an invitation that
 * created the account with the password or passkey just chosen (docs/api.md 13.1): the
 * account has no second factor yet.
 */
export type FirstFactor =
  | ({ kind: 'password' } & Omit<PasswordRequest, 'tenantId'>)
  | { kind: 'password-proven'; user: User }
  | { kind: 'passkey'; user: User; amr: Amr[]; passkeyId: string }
  | { kind: 'federated'; user: User; amr: Amr[]; connectionId: string }
  | { kind: 'invitation'; user: User; amr: Amr[]; invitationId: string };

/** Where a sign-in came from, for what it opens: the connection of a federated one (docs/api.md 14.3). */
export interface Origin {
  idp?: string | undefined;
}

/** What a sign-in opens once both factors hold: a new session, or a new proof in the caller's. */
export interface Opening<T> {
  /** `published`: the events the write of a new session carries (none for a proof in the caller's session). */
  open(user: User, amr: Amr[], origin: Origin, published: SessionEvents): Promise<T>;
}

/** The second factor's check: lib/mfa/second-factor.ts `secondFactor`, or the same rules. */
export type SecondFactorCheck = typeof secondFactor;

/**
 * The second factor after a password: the code sent with it (a user with an active method
 * must give one, docs/api.md 4.1) and the check that weighs it. The doors that take a
 * password hand the check in, so that a door whose first factor satisfies MFA by itself
 * (a passkey) does not carry the code checks in its bundle (docs/performance.md).
 */
export interface SecondFactorStep {
  request: SecondFactorRequest;
  check: SecondFactorCheck;
}

export interface SignInAttempt<T> {
  tenantId: string;
  firstFactor: FirstFactor;
  /** Required after a password (`password`, `password-proven`). */
  secondFactor?: SecondFactorStep;
  /**
   * The door asks for the code on a page of its own (docs/api.md 11.7): asking is a step,
   * not a refused sign-in. Called with the user when a code is needed, before the request
   * for one (401 `MFA code required` with `X-MFA-Methods`) is thrown.
   */
  asksForCode?: (user: User) => Promise<unknown>;
  opening: Opening<T>;
  /**
   * A rule of the door that refuses the user the first factor proved, before the second
   * factor (docs/api.md 14.1: the password of a user whose organization requires its IdP),
   * audited as a refused sign-in with its reason.
   */
  refuse?: (user: User) => Promise<{ reason: NonNullable<AuditDetails['reason']>; error: AppError } | undefined>;
  /**
   * The session of this identity proves its user again (reauthenticate, docs/api.md 8.1):
   * a wrong password is 400, the password must be the session user's, and the audit trail
   * records `reauthenticated` / `reauthentication_failed` instead of a sign-in.
   */
  reauthenticating?: Identity;
  /** The door, for the log line of a success (the JSON routes name none). */
  door?: 'hosted';
  /** The OAuth client the person signs in to, when a door knows it (the hosted pages): named by the success's event. */
  clientId?: string | undefined;
}

export interface SignedIn<T> {
  user: User;
  amr: Amr[];
  opened: T;
}

/** The first factor's user, with the password check's work still running for the rest. */
interface FirstFactorProof {
  user: User;
  /** Set when the first factor satisfies MFA by itself (a passkey, a federated sign-in). */
  amr?: Amr[];
  mfaMethods?: Promise<MfaEnrollment[]>;
  afterSuccess: Promise<unknown>;
}

function eventsOf(deps: SignInDeps, attempt: SignInAttempt<unknown>): SignInEvents {
  const { firstFactor, reauthenticating: identity } = attempt;
  if (identity) {
    return {
      refused: (_user, _locked, details) =>
        recordEvent(deps, { ...bySelf(identity), type: 'reauthentication_failed', outcome: 'failure', details }),
      // A proof again in the caller's session: no sign-in, and no change the catalogue publishes.
      succeeded: (_user, amr) => ({
        recorded: recordEvent(deps, {
          ...bySelf(identity),
          type: 'reauthenticated',
          outcome: 'success',
          details: { sessionId: identity.sessionId, amr },
        }),
        published: () => [],
      }),
    };
  }
  // The account the attempt claims: the username as typed, else the one the factor proved.
  const claimed = (user: User | undefined) => (firstFactor.kind === 'password' ? firstFactor.username : user?.username);
  const proof: Pick<AuditDetails, 'passkeyId' | 'invitationId' | 'connectionId'> & Record<string, string> =
    firstFactor.kind === 'passkey'
      ? { passkeyId: firstFactor.passkeyId }
      : firstFactor.kind === 'invitation'
        ? { invitationId: firstFactor.invitationId }
        : firstFactor.kind === 'federated'
          ? { connectionId: firstFactor.connectionId }
          : {};
  return {
    refused: (user, locked, details) =>
      signInEvent(deps, attempt.tenantId, claimed(user), user, locked ? 'login_locked' : 'login_failed', { ...details, ...proof }),
    succeeded: (user, amr) => ({
      recorded: recordSignIn(deps, attempt.tenantId, claimed(user), user, 'login_succeeded', { amr, ...proof }),
      published: (sessionId) => [
        newEvent(deps, {
          tenantId: attempt.tenantId,
          type: 'identity.login.succeeded',
          subject: user.id,
          actor: { type: 'user', id: user.id },
          data: {
            username: user.username,
            sessionId,
            methods: amr,
            ...(attempt.clientId === undefined ? {} : { clientId: attempt.clientId }),
            ...proof,
          },
        }),
      ],
    }),
  };
}

/** Step 1: the first factor; a password is checked under the attempt limits, its refusals audited. */
async function proveFirstFactor(deps: SignInDeps, attempt: SignInAttempt<unknown>, events: SignInEvents): Promise<FirstFactorProof> {
  const { firstFactor } = attempt;
  switch (firstFactor.kind) {
    case 'password': {
      const { kind: _, ...password } = firstFactor;
      const identity = attempt.reauthenticating;
      const invalid = identity ? () => new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' }) : invalidCredentials;
      const accepted = await checkPassword(deps, { tenantId: attempt.tenantId, ...password }, invalid, ({ reason, user }) =>
        events.refused(user, reason === 'password_attempts', { reason }),
      );
      // Another user's password does not prove this session's user.
      if (identity && accepted.user.id !== identity.userId) {
        await accepted.afterSuccess;
        throw invalid();
      }
      return accepted;
    }
    case 'password-proven':
      return { user: firstFactor.user, afterSuccess: Promise.resolve() };
    case 'passkey':
    case 'federated':
    case 'invitation':
      return { user: firstFactor.user, amr: firstFactor.amr, afterSuccess: Promise.resolve() };
  }
}

/**
 * Step 2: the second factor (lib/mfa/second-factor.ts, its lockout included) after a
 * password, the session's `amr`; a refusal is audited (but a door's own request for a
 * code), alongside the work of the password check it waits for.
 */
async function proveSecondFactor(
  deps: SignInDeps,
  attempt: SignInAttempt<unknown>,
  proof: FirstFactorProof,
  events: SignInEvents,
): Promise<Amr[]> {
  if (proof.amr) return proof.amr;
  const { user } = proof;
  if (!attempt.secondFactor) throw new Error(`A ${attempt.firstFactor.kind} sign-in needs its second factor step`);
  const { request, check } = attempt.secondFactor;
  try {
    return await check(deps, { tenantId: user.tenantId, userId: user.id, username: user.username }, request, proof.mfaMethods);
  } catch (error) {
    if (attempt.asksForCode && error instanceof AppError && error.code === 'MFA_REQUIRED') {
      await attempt.asksForCode(user);
      throw error;
    }
    const refusal = secondFactorRefusal(error);
    if (refusal) {
      const method = request.mfaMethod;
      const details = { reason: refusal.reason, ...(method ? { method } : {}) };
      await Promise.all([events.refused(user, refusal.locked, details), proof.afterSuccess.catch(() => undefined)]);
    }
    throw error;
  }
}

/**
 * One sign-in, whatever the door: the first factor, the second factor, then the
 * opening (a new session, or the proof recorded in the caller's) with the success's
 * audit event alongside, so it adds no round trip; the session's write carries the
 * published `identity.login.succeeded` (docs/events.md). The password's attempt counter is
 * cleared while the rest runs (a right password clears it, whatever the second factor
 * says); the answer waits for it. Every outcome but a fault is an audit event
 * (docs/api.md 9.8).
 */
export async function signIn<T>(deps: SignInDeps, attempt: SignInAttempt<T>): Promise<SignedIn<T>> {
  const events = eventsOf(deps, attempt);
  const proof = await proveFirstFactor(deps, attempt, events);
  try {
    const { user } = proof;
    const refusal = await attempt.refuse?.(user);
    if (refusal) {
      await events.refused(user, false, { reason: refusal.reason });
      throw refusal.error;
    }
    const amr = await proveSecondFactor(deps, attempt, proof, events);
    const origin = attempt.firstFactor.kind === 'federated' ? { idp: attempt.firstFactor.connectionId } : {};
    const { recorded, published } = events.succeeded(user, amr);
    const [opened] = await Promise.all([attempt.opening.open(user, amr, origin, published), recorded]);
    if (!attempt.reauthenticating) {
      const door = attempt.door ? { door: attempt.door } : {};
      deps.log.info('login_succeeded', { tenantId: user.tenantId, userId: user.id, username: user.username, amr, ...door });
    }
    return { user, amr, opened };
  } finally {
    await proof.afterSuccess;
  }
}

// ---------------------------------------------------------------------------------------
// Openings.

/** A new session of the JSON API: its Auth payload (docs/api.md 5.2), recording the device it came from. */
export function apiSession(deps: SignInDeps, device: Device = {}): Opening<AuthPayload> {
  return { open: (user, amr, origin, published) => startSession(deps, user, amr, device, origin, published) };
}

/** A new device token of the user's account (docs/api.md 10.1): the browser or app that signed in is a known device. */
function issueDeviceToken(deps: Pick<Deps, 'clock' | 'deviceTokens'>, user: User): Promise<string> {
  return deps.deviceTokens.issue({ tenantId: user.tenantId, username: user.username }, epochSeconds(deps.clock));
}

/** The opening, and a new device token of the account issued alongside it. */
export function withDeviceToken<T>(deps: SignInDeps, opening: Opening<T>): Opening<{ opened: T; deviceToken: string }> {
  return {
    open: async (user, amr, origin, published) => {
      const [opened, deviceToken] = await Promise.all([opening.open(user, amr, origin, published), issueDeviceToken(deps, user)]);
      return { opened, deviceToken };
    },
  };
}
