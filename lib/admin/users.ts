import type { AuditActor } from '../audit/events';
import { byActor, byAdmin, recordEvent, type TenantActor } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../errors';
import { newEvent, type PendingEvent } from '../events/event';
import type { MfaEnrollment, MfaMethod } from '../mfa/methods';
import { connectionsOf } from '../sessions/live-session';
import { isLiveFor } from '../sessions/liveness';
import type { ListedUser, ProfileChange, UserChange, UserFilter } from '../store/tenant-users';
import type { Identity } from '../tokens/access-token';
import { userChangeEvents } from '../users/events';
import { epochOf, type Role, type User } from '../users/user';
import { decodePageCursor, encodePageCursor } from './page-cursor';
import { tenantShop } from './shops';

/** docs/api.md 9: the tenant must keep an active ADMIN. */
export const LAST_ADMIN = 'A tenant must keep an active ADMIN';
export const USER_NOT_FOUND = 'User not found';

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

/** The view of a user with their MFA methods (pending and active) and the start of their newest session. */
function viewFrom(user: ListedUser, methods: MfaEnrollment[], lastSessionAt: number | undefined): AdminUserView {
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
    lastLoginAt: lastSessionAt === undefined ? null : new Date(lastSessionAt * 1000).toISOString(),
  };
}

async function viewOf(deps: AdminDeps, user: ListedUser): Promise<AdminUserView> {
  const [methods, lastLogin] = await Promise.all([
    deps.store.mfa.list(user.tenantId, user.id),
    deps.store.tenantUsers.lastSessionAt(user.tenantId, user.id),
  ]);
  return viewFrom(user, methods, lastLogin);
}

/**
 * The views of a page of users in a bounded number of round trips whatever its size
 * (docs/decisions/027-bounded-admin-lists.md): the users come with their activity, then
 * the MFA methods they enrolled are read in one BatchGetItem per 100 methods.
 */
async function viewsOf(deps: AdminDeps, tenantId: string, users: ListedUser[]): Promise<AdminUserView[]> {
  const activities = await deps.store.tenantUsers.activities(tenantId, users);
  const methods = await deps.store.mfa.listOf(
    tenantId,
    users.map((user, i) => ({ userId: user.id, methods: activities[i]?.mfaMethods ?? [] })),
  );
  return users.map((user, i) => viewFrom(user, methods[i] ?? [], activities[i]?.lastSessionAt));
}

/** docs/api.md 9.1: a page of the tenant's users, oldest first; `search` is the tenant console's (15.3.1). */
export async function listUsers(
  deps: AdminDeps,
  admin: Identity,
  query: UserFilter & { limit: number; cursor?: string | undefined },
): Promise<{ users: AdminUserView[]; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodePageCursor(admin.tenantId, query.cursor);
  const { limit, role, status, search } = query;
  const page = await deps.store.tenantUsers.list(admin.tenantId, { limit, after, role, status, search });
  return {
    users: await viewsOf(deps, admin.tenantId, page.users),
    nextCursor: page.next ? encodePageCursor(admin.tenantId, page.next) : null,
  };
}

/** The user of the actor's tenant; an id of another tenant is not found, like an unknown one. */
async function findUser(deps: AdminDeps, admin: Pick<TenantActor, 'tenantId'>, userId: string): Promise<User> {
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
 * demoting each other cannot both succeed), else (the ADMIN themselves, or a SCIM client)
 * another active ADMIN of the tenant. Empty: nobody would be left (409).
 */
async function guardsFor(deps: AdminDeps, actor: TenantActor, user: User): Promise<string[]> {
  if ('userId' in actor && user.id !== actor.userId) return [actor.userId];
  return deps.store.tenantUsers.otherActiveAdmins(user.tenantId, user.id);
}

/** A change of a user made from the user as read: what an ADMIN sets, and what a SCIM client changes besides. */
export type UserEdit = (user: User) => Promise<{ set: UserChange; profile?: ProfileChange | undefined }>;

const fixed =
  (set: UserChange): UserEdit =>
  async () => ({ set });

/** The events a change of the user as read carries (docs/events.md, Users). */
type ChangeEvents = (user: User, set: UserChange, profile: ProfileChange | undefined) => PendingEvent[];

/**
 * Applies the edit to the user as read, and when it disables the user ends every session
 * and grant, keeping an active ADMIN in the tenant (docs/api.md 9.3). Tried again, on the
 * user read again, when the user or the ADMIN that must stay changed meanwhile; each try's
 * write carries the events of its own change. Returns the user as changed and what was set.
 */
async function changeKeepingAdmin(
  deps: AdminDeps,
  admin: TenantActor,
  userId: string,
  edit: UserEdit,
  events: ChangeEvents = () => [],
): Promise<{ user: User; set: UserChange }> {
  let guarded = false;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await findUser(deps, admin, userId);
    const { set, profile } = await edit(user);
    const revoke = set.status === 'disabled';
    const after = { ...user, ...set, ...withoutRemoved(profile) };
    let guard: string | undefined;
    if (isActiveAdmin(user) && !isActiveAdmin(after)) {
      const guards = await guardsFor(deps, admin, user);
      guard = guards[attempt % Math.max(1, guards.length)];
      if (guard === undefined) throw new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' });
      guarded = true;
    }
    const store = deps.store.emitting(events(user, set, profile));
    if (await store.tenantUsers.change(user, set, { revoke, guardAdminId: guard, profile })) {
      const version = profile ? (user.version ?? 0) + 1 : user.version;
      return { user: { ...after, version, sessionEpoch: revoke ? epochOf(user) + 1 : user.sessionEpoch }, set };
    }
    await backOff(attempt);
  }
  if (guarded) throw new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' });
  throw stillContended();
}

/** The user with a profile change applied: a removed attribute (null) is gone. */
function withoutRemoved(profile: ProfileChange | undefined): Partial<User> {
  return Object.fromEntries(Object.entries(profile ?? {}).map(([name, value]) => [name, value ?? undefined]));
}

const actorIdOf = (actor: TenantActor) => ('scimTokenId' in actor ? actor.scimTokenId : actor.userId);

/** The actor of an event of something an ADMIN or a SCIM client did. */
const eventActor = (actor: TenantActor): AuditActor => byActor(actor).actor;

/** An event about the user `userId` of the ADMIN's (or SCIM client's) tenant. */
const aboutUser = (
  deps: AdminDeps,
  actor: TenantActor,
  userId: string,
  type: 'identity.user.deleted' | 'identity.session.revoked' | 'identity.mfa.reset',
  data: Record<string, string | number>,
) => newEvent(deps, { tenantId: actor.tenantId, type, subject: userId, actor: eventActor(actor), data });

/**
 * docs/api.md 9.3 and 13.3: changes a user of the actor's tenant (an ADMIN, or a SCIM client)
 * as `edit` says; a shop must be one of the tenant's (9.7); disabling ends every session and
 * grant; the tenant keeps an active ADMIN (409). Audited as `admin_user_changed`.
 */
export async function modifyUser(deps: AdminDeps, actor: TenantActor, userId: string, edit: UserEdit): Promise<User> {
  const { user, set } = await changeKeepingAdmin(
    deps,
    actor,
    userId,
    async (read) => {
      const change = await edit(read);
      if (change.set.shopId !== undefined && change.set.shopId !== read.shopId) await tenantShop(deps, actor.tenantId, change.set.shopId);
      return change;
    },
    (read, set, profile) => userChangeEvents(deps, eventActor(actor), read, set, profile),
  );
  const details = { role: set.role, shopId: set.shopId, status: set.status };
  deps.log.info('admin_user_changed', { tenantId: actor.tenantId, actorId: actorIdOf(actor), userId, ...details });
  await recordEvent(deps, { ...byActor(actor, userId), type: 'admin_user_changed', outcome: 'success', details });
  return user;
}

/**
 * docs/api.md 9.3: changes role, shop (one of the tenant's, 9.7) or status; disabling
 * ends every session and grant.
 */
export async function changeUser(deps: AdminDeps, admin: Identity, userId: string, set: UserChange): Promise<AdminUserView> {
  if (set.shopId !== undefined) await tenantShop(deps, admin.tenantId, set.shopId);
  return viewOf(deps, await modifyUser(deps, admin, userId, fixed(set)));
}

/**
 * docs/api.md 9.4: erases the user. First disabled with every session and grant ended
 * (keeping an active ADMIN), then their MFA records, sessions and grants deleted, then the
 * profile and username record: a DELETE that fails midway leaves a disabled user that
 * the same DELETE finishes.
 */
export async function deleteUser(deps: AdminDeps, admin: TenantActor, userId: string): Promise<void> {
  // The apps that held the user's sessions hear of the deletion after the grants are erased (docs/api.md 17.3).
  const grants = await deps.store.oauthGrants.listBySubject(admin.tenantId, userId);
  await deps.store.oauthGrants.keepForLogout(admin.tenantId, userId, grants, epochSeconds(deps.clock));
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // After a refused erasure: gone means erased (by this call, whose answer was lost, or another).
    if (attempt > 0 && !(await deps.store.users.findById(admin.tenantId, userId))) break;
    const { user: disabled } = await changeKeepingAdmin(deps, admin, userId, fixed({ status: 'disabled' }));
    await deps.store.tenantUsers.eraseOwned(admin.tenantId, userId);
    // The erasure is the change its event tells of; the disabling before it is its first step.
    const deleted = aboutUser(deps, admin, userId, 'identity.user.deleted', { username: disabled.username, endedSessions: 'all' });
    if (await deps.store.emitting([deleted]).tenantUsers.erase(disabled)) break;
    if (attempt === ATTEMPTS - 1) throw stillContended();
    await backOff(attempt);
  }
  // A login that read the user before it was disabled may have opened a session since.
  await deps.store.tenantUsers.eraseOwned(admin.tenantId, userId);
  deps.log.info('admin_user_deleted', { tenantId: admin.tenantId, actorId: actorIdOf(admin), userId });
  await recordEvent(deps, { ...byActor(admin, userId), type: 'admin_user_deleted', outcome: 'success' });
}

/**
 * Ends every session and grant of the user (tried again while the user changes), the
 * write carrying the event `eventOf` makes of the number of live sessions ended; that number.
 */
async function revokeAll(deps: AdminDeps, admin: Identity, userId: string, eventOf: (revoked: number) => PendingEvent): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await findUser(deps, admin, userId);
    const now = epochSeconds(deps.clock);
    const sessions = await deps.store.sessions.listByUser(admin.tenantId, userId);
    const connection = await connectionsOf(deps, sessions);
    const live = sessions.filter((session) => isLiveFor(user, session, now, connection(session)));
    if (await deps.store.emitting([eventOf(live.length)]).users.revokeSessions(user)) return live.length;
    await backOff(attempt);
  }
  throw stillContended();
}

/** docs/api.md 9.6: signs the user out everywhere. */
export async function signOutUser(deps: AdminDeps, admin: Identity, userId: string): Promise<{ revoked: number }> {
  const revoked = await revokeAll(deps, admin, userId, (count) =>
    aboutUser(deps, admin, userId, 'identity.session.revoked', { reason: 'admin', revoked: count, endedSessions: 'all' }),
  );
  deps.log.info('admin_user_signed_out', { tenantId: admin.tenantId, actorId: admin.userId, userId, revoked });
  await recordEvent(deps, { ...byAdmin(admin, userId), type: 'admin_user_signed_out', outcome: 'success', details: { revoked } });
  return { revoked };
}

/** docs/api.md 9.5: removes every factor of the user, passkeys too (docs/api.md 12), and ends their sessions (helpdesk recovery). */
export async function resetMfa(deps: AdminDeps, admin: Identity, userId: string): Promise<void> {
  await findUser(deps, admin, userId);
  // Sessions first: a passkey registration still running in one then fails (lib/passkeys/ceremonies.ts).
  // The reset's event goes with this first write: the one that ends the sessions (docs/events.md, Users).
  await revokeAll(deps, admin, userId, () => aboutUser(deps, admin, userId, 'identity.mfa.reset', { endedSessions: 'all' }));
  await deps.store.tenantUsers.eraseMfa(admin.tenantId, userId);
  await deps.store.passkeys.eraseAll(admin.tenantId, userId);
  deps.log.info('admin_mfa_reset', { tenantId: admin.tenantId, actorId: admin.userId, userId });
  await recordEvent(deps, { ...byAdmin(admin, userId), type: 'admin_mfa_reset', outcome: 'success' });
}
