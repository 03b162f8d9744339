import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { type AppError, TooManyRequestsError, UnauthorizedError } from '../errors';
import type { MfaEnrollment } from '../mfa/methods';
import { type SecondFactorRequest, secondFactor } from '../mfa/second-factor';
import { notifyUser } from '../notifications/notify';
import { type AuthPayload, startSession } from '../sessions/sessions';
import type { User } from './user';

/** docs/api.md 4.1: 5 failed attempts per (tenant, username) in 15 minutes. */
export const LOGIN_ATTEMPTS = { max: 5, windowSeconds: 15 * 60 };

/** A user id no user has (ids are UUIDs): an unknown username reads the MFA methods of nobody. */
const NOBODY = 'none';

export interface LoginRequest {
  tenantId: string;
  username: string;
  password: string;
}

/** A right password: the user, and the work started for what follows. */
export interface PasswordAccepted {
  user: User;
  /** The user's MFA methods, read while Argon2id ran. */
  mfaMethods: Promise<MfaEnrollment[]>;
  /** Clearing the attempt counter (and upgrading a stale hash): runs while the session is made. */
  afterSuccess: Promise<unknown>;
}

/** Marks a promise as handled now; whoever awaits it later still sees its failure. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * Checks a password for (tenant, username) under the attempt limit. Unknown users
 * cost one Argon2id verification like known ones, the same reads, and get the same answer.
 * Round trips: the attempt reservation alongside the user lookup, then the hash
 * alongside the read of the MFA methods (Argon2id runs off the main thread).
 * A wrong password throws `invalid()` (401 `Invalid credentials` at login).
 */
export async function checkPassword(
  deps: Pick<Deps, 'config' | 'clock' | 'store' | 'hasher' | 'log' | 'mfaDelivery'>,
  { tenantId, username, password }: LoginRequest,
  invalid: () => AppError = () => new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' }),
): Promise<PasswordAccepted> {
  const { store, hasher, log } = deps;
  const now = epochSeconds(deps.clock);
  const attempts = { kind: 'login', tenantId, username } as const;
  // Independent reads run together: the lookup is wasted only for a locked account.
  const [reservation, user] = await Promise.all([
    store.attempts.reserve(attempts, now, LOGIN_ATTEMPTS),
    store.users.findByUsername(tenantId, username),
  ]);
  if (!reservation.allowed) {
    log.warn('login_locked', { tenantId, username });
    throw new TooManyRequestsError(reservation.retryAfterSeconds);
  }

  // Read for every attempt that reaches the hash (of nobody for an unknown user), so a
  // wrong password and an unknown user do the same work; used only after a right one.
  const mfaMethods = started(store.mfa.list(tenantId, user?.id ?? NOBODY));
  const verdict = user ? await hasher.verify(user.passwordHash, password) : await hasher.verifyDummy(password).then(() => undefined);
  if (!user || !verdict?.ok || user.status !== 'active') {
    await mfaMethods.catch(() => undefined);
    log.info('login_failed', { tenantId, username, reason: user ? 'wrong_password' : 'unknown_user' });
    // This failure filled the window: the account is locked now (docs/api.md 8.9).
    if (user && reservation.remaining === 0) await notifyUser(deps, user, { kind: 'account-locked' });
    throw invalid();
  }
  const afterSuccess = started(
    Promise.all([
      store.attempts.clear(attempts),
      // The cost parameters changed since this hash was made: upgrade it now that we know the password.
      verdict.stale && hasher.hash(password).then((fresh) => store.users.replacePasswordHash(user, user.passwordHash, fresh)),
    ]),
  );
  return { user, mfaMethods, afterSuccess };
}

/**
 * login: password check, then the second factor if the user has one, then a new
 * session. The attempt counter is cleared while the second factor is checked and the
 * session written (a right password clears it, whatever the second factor says);
 * the answer waits for both.
 */
export async function login(
  deps: Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'hasher' | 'keys' | 'mfaSecrets' | 'mfaDelivery'>,
  request: LoginRequest & SecondFactorRequest,
): Promise<AuthPayload> {
  const { user, mfaMethods, afterSuccess } = await checkPassword(deps, request);
  try {
    const account = { tenantId: user.tenantId, userId: user.id, username: user.username };
    const amr = await secondFactor(deps, account, request, mfaMethods);
    const payload = await startSession(deps, user, amr);
    deps.log.info('login_succeeded', { tenantId: user.tenantId, userId: user.id, username: user.username, amr });
    return payload;
  } finally {
    await afterSuccess;
  }
}
