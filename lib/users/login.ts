import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { TooManyRequestsError, UnauthorizedError } from '../errors';
import { type SecondFactorRequest, secondFactor } from '../mfa/mfa';
import { type AuthPayload, startSession } from '../sessions/sessions';
import { keys } from '../store/keys';
import type { User } from './user';

/** CONTRACT 4.1: 5 failed attempts per (tenant, username) in 15 minutes. */
export const LOGIN_ATTEMPTS = { max: 5, windowSeconds: 15 * 60 };

export interface LoginRequest {
  tenantId: string;
  username: string;
  password: string;
}

/**
 * Checks a password for (tenant, username) under the attempt limit. Unknown users
 * cost one Argon2id verification like known ones and get the same answer.
 */
export async function checkPassword(deps: Deps, { tenantId, username, password }: LoginRequest): Promise<User> {
  const { store, hasher, log } = deps;
  const now = epochSeconds(deps.clock);
  const attemptsKey = keys.loginAttempts(tenantId, username);
  // Independent reads run together: the lookup is wasted only for a locked account.
  const [reservation, user] = await Promise.all([
    store.attempts.reserve(attemptsKey, now, LOGIN_ATTEMPTS),
    store.users.findByUsername(tenantId, username),
  ]);
  if (!reservation.allowed) {
    log.warn('login_locked', { tenantId, username });
    throw new TooManyRequestsError(reservation.retryAfterSeconds);
  }

  const verdict = user ? await hasher.verify(user.passwordHash, password) : await hasher.verifyDummy(password).then(() => undefined);
  if (!user || !verdict?.ok || user.status !== 'active') {
    log.info('login_failed', { tenantId, username, reason: user ? 'wrong_password' : 'unknown_user' });
    throw new UnauthorizedError('Invalid credentials');
  }
  await Promise.all([
    store.attempts.clear(attemptsKey),
    // The cost parameters changed since this hash was made: upgrade it now that we know the password.
    verdict.stale && hasher.hash(password).then((fresh) => store.users.replacePasswordHash(user, user.passwordHash, fresh)),
  ]);
  return user;
}

/** login: password check, then the second factor if the user has one, then a new session. */
export async function login(deps: Deps, request: LoginRequest & SecondFactorRequest): Promise<AuthPayload> {
  const user = await checkPassword(deps, request);
  const amr = await secondFactor(deps, { tenantId: user.tenantId, userId: user.id, username: user.username }, request);
  const payload = await startSession(deps, user, amr);
  deps.log.info('login_succeeded', { tenantId: user.tenantId, userId: user.id, username: user.username, amr });
  return payload;
}
