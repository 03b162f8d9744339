import type { Deps } from '../deps';
import { UnauthorizedError } from '../errors';
import type { PendingEvent } from '../events/event';
import type { RevokeSessionsOptions } from '../store/users';
import type { User } from '../users/user';

/** How often the user is read again when it changed meanwhile (another write, a transaction conflict). */
const ATTEMPTS = 5;

export interface RevokeOtherSessionsOptions {
  /** Written in the same transaction (a new password hash): never one without the other. */
  set?: RevokeSessionsOptions['set'];
  /** Sees each read of the user (e.g. that the password is still the one verified) and may throw. */
  check?: (user: User) => Promise<void>;
  /** Carried by the transaction (docs/events.md): published if and only if it is written. */
  events?: PendingEvent[];
}

/**
 * Ends every session and OAuth grant of the user but the caller's session, in one
 * transaction on the user (and `set`) and the caller's session (docs/api.md 8.1, 8.2).
 * The user is read again when it changed meanwhile.
 */
export async function revokeOtherSessions(
  deps: Pick<Deps, 'store'>,
  account: { tenantId: string; userId: string },
  keepSessionId: string,
  { set = {}, check = async () => undefined, events = [] }: RevokeOtherSessionsOptions = {},
): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await deps.store.users.findById(account.tenantId, account.userId);
    if (!user) throw new UnauthorizedError();
    await check(user);
    if (await deps.store.emitting(events).users.revokeSessions(user, { keepSessionId, set })) return;
  }
  // The caller's session was revoked meanwhile (or the user kept changing): the session is over.
  throw new UnauthorizedError();
}
