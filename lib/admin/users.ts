import * as z from 'zod';
import { byAdmin, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors';
import type { MfaMethod } from '../mfa/methods';
import { isLiveFor } from '../sessions/liveness';
import type { ListedUser, UserChange, UserFilter, UserPosition } from '../store/tenant-users';
import type { Identity } from '../tokens/access-token';
import { epochOf, type Role, type User } from '../users/user';
import { tenantShop } from './shops';

/** docs/api.md 9: the tenant must keep an active ADMIN. */
export const LAST_ADMIN = 'A tenant must keep an active ADMIN';
export const USER_NOT_FOUND = 'User not found';
export const INVALID_CURSOR = 'Invalid cursor';

/** How often a change is tried when the user (or the ADMIN that must stay) changed meanwhile. */
const ATTEMPTS = 5;

/** Waits a little longer after each refused attempt, so that concurrent changes of one user pass one by one. */
const backOff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 15 * (attempt + 1)));

/** Still refused after every attempt: the user is changing under heavy contention, the caller may try again. */
const stillContended = () => new ServiceUnavailableError();

/** A user as the tenant administration answers with it (docs/api.md 9.1): never a hash. */
export interface AdminUserView {
  id: string;
  username: string;
  role: Role;
  shopId: string;
  status: User['status'];
  email: string | null;
  emailVerified: boolean;
  mfaMethods: MfaMethod[];
  createdAt: string;
  lastLoginAt: string | null;
}

type AdminDeps = Pick<Deps, 'store' | 'clock' | 'log' | 'config' | 'random' | 'source'>;

async function viewOf(deps: AdminDeps, user: ListedUser): Promise<AdminUserView> {
  const [methods, lastLogin] = await Promise.all([
    deps.store.mfa.list(user.tenantId, user.id),
    deps.store.tenantUsers.lastSessionAt(user.tenantId, user.id),
  ]);
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    shopId: user.shopId,
    status: user.status,
    email: user.email ?? null,
    emailVerified: user.emailVerified ?? false,
    mfaMethods: methods.filter((method) => method.status === 'active').map((method) => method.method),
    createdAt: user.createdAt,
    lastLoginAt: lastLogin === undefined ? null : new Date(lastLogin * 1000).toISOString(),
  };
}

/*
 * The cursor is the position of the page's last user and the tenant it belongs to. The
 * start key is rebuilt from the caller's tenant, so no cursor can reach into another
 * tenant's partition; one of another tenant, or not one we wrote, is refused.
 */
const cursorSchema = z.strictObject({ t: z.string(), c: z.iso.datetime(), i: z.string().min(1).max(128) });

function encodeCursor(tenantId: string, position: UserPosition): string {
  return Buffer.from(JSON.stringify({ t: tenantId, c: position.createdAt, i: position.id })).toString('base64url');
}

function decodeCursor(tenantId: string, cursor: string): UserPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' });
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success || parsed.data.t !== tenantId) throw new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' });
  return { createdAt: parsed.data.c, id: parsed.data.i };
}

/** docs/api.md 9.1: a page of the tenant's users, oldest first. */
export async function listUsers(
  deps: AdminDeps,
  admin: Identity,
  query: UserFilter & { limit: number; cursor?: string | undefined },
): Promise<{ users: AdminUserView[]; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodeCursor(admin.tenantId, query.cursor);
  const page = await deps.store.tenantUsers.list(admin.tenantId, { limit: query.limit, after, role: query.role, status: query.status });
  return {
    users: await Promise.all(page.users.map((user) => viewOf(deps, user))),
    nextCursor: page.next ? encodeCursor(admin.tenantId, page.next) : null,
  };
}

/** The user of the ADMIN's tenant; an id of another tenant is not found, like an unknown one. */
async function findUser(deps: AdminDeps, admin: Identity, userId: string): Promise<User> {
  const user = await deps.store.users.findById(admin.tenantId, userId);
  if (!user) throw new NotFoundError(USER_NOT_FOUND);
  return user;
}

/** docs/api.md 9.2. */
export async function readUser(deps: AdminDeps, admin: Identity, userId: string): Promise<AdminUserView> {
  return viewOf(deps, await findUser(deps, admin, userId));
}

const isActiveAdmin = (user: Pick<User, 'role' | 'status'>) => user.role === 'ADMIN' && user.status === 'active';

/**
 * The ADMINs whose being active ADMINs the change checks in its transaction, when it takes
 * an active ADMIN away: the acting ADMIN when they act on someone else (so two ADMINs
 * demoting each other cannot both succeed), else another active ADMIN of the tenant.
 * Empty: nobody would be left (409).
 */
async function guardsFor(deps: AdminDeps, admin: Identity, user: User): Promise<string[]> {
  if (user.id !== admin.userId) return [admin.userId];
  return deps.store.tenantUsers.otherActiveAdmins(user.tenantId, user.id);
}

/**
 * Applies `set` to the user, and with `revoke` ends every session and grant, keeping an
 * active ADMIN in the tenant (docs/api.md 9.3). Tried again when the user or the ADMIN
 * that must stay changed meanwhile. Returns the user as changed.
 */
async function changeKeepingAdmin(deps: AdminDeps, admin: Identity, userId: string, set: UserChange, revoke: boolean): Promise<User> {
  let guarded = false;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await findUser(deps, admin, userId);
    const after = { ...user, ...set };
    let guard: string | undefined;
    if (isActiveAdmin(user) && !isActiveAdmin(after)) {
      const guards = await guardsFor(deps, admin, user);
      guard = guards[attempt % Math.max(1, guards.length)];
      if (guard === undefined) throw new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' });
      guarded = true;
    }
    if (await deps.store.tenantUsers.change(user, set, { revoke, guardAdminId: guard })) {
      return { ...after, sessionEpoch: revoke ? epochOf(user) + 1 : user.sessionEpoch };
    }
    await backOff(attempt);
  }
  if (guarded) throw new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' });
  throw stillContended();
}

/**
 * docs/api.md 9.3: changes role, shop (one of the tenant's, 9.7) or status; disabling
 * ends every session and grant.
 */
export async function changeUser(deps: AdminDeps, admin: Identity, userId: string, set: UserChange): Promise<AdminUserView> {
  if (set.shopId !== undefined) await tenantShop(deps, admin.tenantId, set.shopId);
  const changed = await changeKeepingAdmin(deps, admin, userId, set, set.status === 'disabled');
  deps.log.info('admin_user_changed', { tenantId: admin.tenantId, actorId: admin.userId, userId, ...set });
  const [view] = await Promise.all([
    viewOf(deps, changed),
    recordEvent(deps, { ...byAdmin(admin, userId), type: 'admin_user_changed', outcome: 'success', details: set }),
  ]);
  return view;
}

/**
 * docs/api.md 9.4: erases the user. First disabled with every session and grant ended
 * (keeping an active ADMIN), then their MFA records, sessions and grants deleted, then the
 * profile and username record: a DELETE that fails midway leaves a disabled user that
 * the same DELETE finishes.
 */
export async function deleteUser(deps: AdminDeps, admin: Identity, userId: string): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // After a refused erasure: gone means erased (by this call, whose answer was lost, or another).
    if (attempt > 0 && !(await deps.store.users.findById(admin.tenantId, userId))) break;
    const disabled = await changeKeepingAdmin(deps, admin, userId, { status: 'disabled' }, true);
    await deps.store.tenantUsers.eraseOwned(admin.tenantId, userId);
    if (await deps.store.tenantUsers.erase(disabled)) break;
    if (attempt === ATTEMPTS - 1) throw stillContended();
    await backOff(attempt);
  }
  // A login that read the user before it was disabled may have opened a session since.
  await deps.store.tenantUsers.eraseOwned(admin.tenantId, userId);
  deps.log.info('admin_user_deleted', { tenantId: admin.tenantId, actorId: admin.userId, userId });
  await recordEvent(deps, { ...byAdmin(admin, userId), type: 'admin_user_deleted', outcome: 'success' });
}

/** Ends every session and grant of the user (tried again while the user changes); the number of live sessions ended. */
async function revokeAll(deps: AdminDeps, admin: Identity, userId: string): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await findUser(deps, admin, userId);
    const now = epochSeconds(deps.clock);
    const live = (await deps.store.sessions.listByUser(admin.tenantId, userId)).filter((session) => isLiveFor(user, session, now));
    if (await deps.store.users.revokeSessions(user)) return live.length;
    await backOff(attempt);
  }
  throw stillContended();
}

/** docs/api.md 9.6: signs the user out everywhere. */
export async function signOutUser(deps: AdminDeps, admin: Identity, userId: string): Promise<{ revoked: number }> {
  const revoked = await revokeAll(deps, admin, userId);
  deps.log.info('admin_user_signed_out', { tenantId: admin.tenantId, actorId: admin.userId, userId, revoked });
  await recordEvent(deps, { ...byAdmin(admin, userId), type: 'admin_user_signed_out', outcome: 'success', details: { revoked } });
  return { revoked };
}

/** docs/api.md 9.5: removes every factor of the user, passkeys too (docs/api.md 12), and ends their sessions (helpdesk recovery). */
export async function resetMfa(deps: AdminDeps, admin: Identity, userId: string): Promise<void> {
  await findUser(deps, admin, userId);
  // Sessions first: a passkey registration still running in one then fails (lib/passkeys/ceremonies.ts).
  await revokeAll(deps, admin, userId);
  await deps.store.tenantUsers.eraseMfa(admin.tenantId, userId);
  await deps.store.passkeys.eraseAll(admin.tenantId, userId);
  deps.log.info('admin_mfa_reset', { tenantId: admin.tenantId, actorId: admin.userId, userId });
  await recordEvent(deps, { ...byAdmin(admin, userId), type: 'admin_mfa_reset', outcome: 'success' });
}
