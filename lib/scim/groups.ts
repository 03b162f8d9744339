import { SCIM_DEFAULT_ROLE } from '../admin/tenant';
import { modifyUser } from '../admin/users';
import type { ScimCaller } from '../audit/record';
import { ROLES, type Role } from '../caller';
import type { User } from '../users/user';
import { ScimError, scimErrors } from './errors';
import { GROUP_SCHEMA, LIST_SCHEMA, type PatchRequest } from './schema';
import type { ScimDeps } from './users';

/** docs/api.md 13.3: one fixed group per role, its id and displayName the role's name. */
const roleOf = (groupId: string): Role => {
  const role = ROLES.find((candidate) => candidate === groupId);
  if (!role) throw scimErrors.notFound('Group');
  return role;
};

const location = (deps: Pick<ScimDeps, 'config'>, role: Role) => `${deps.config.issuer}/scim/v2/Groups/${role}`;

/** The members of a role's group: the tenant's users of that role, from the tenant index. */
async function membersOf(deps: ScimDeps, tenantId: string, role: Role) {
  const members: Array<{ value: string; display: string; $ref: string }> = [];
  let after: { createdAt: string; id: string } | undefined;
  do {
    const { users, next } = await deps.store.tenantUsers.list(tenantId, { limit: 100, after, role });
    for (const user of users)
      members.push({ value: user.id, display: user.username, $ref: `${deps.config.issuer}/scim/v2/Users/${user.id}` });
    after = next;
  } while (after);
  return members;
}

async function groupOf(deps: ScimDeps, caller: ScimCaller, role: Role, withMembers: boolean) {
  return {
    schemas: [GROUP_SCHEMA],
    id: role,
    displayName: role,
    ...(withMembers ? { members: await membersOf(deps, caller.tenantId, role) } : {}),
    meta: { resourceType: 'Group', location: location(deps, role) },
  };
}

/** docs/api.md 13.3: `excludedAttributes=members` (as Entra ID asks) leaves the members out. */
const wantsMembers = (excludedAttributes: string | undefined) =>
  !(excludedAttributes ?? '').split(',').some((name) => name.trim().toLowerCase() === 'members');

/** docs/api.md 13.3: a role's group; an unknown id is 404. */
export async function readScimGroup(deps: ScimDeps, caller: ScimCaller, groupId: string, excludedAttributes?: string) {
  return groupOf(deps, caller, roleOf(groupId), wantsMembers(excludedAttributes));
}

/** docs/api.md 13.3: the groups, filtered by `displayName eq` (as Okta and Entra ID look a group up); members on GET by id. */
export async function listScimGroups(deps: ScimDeps, caller: ScimCaller, filter: string | undefined) {
  let roles: readonly Role[] = ROLES;
  if (filter !== undefined) {
    const match = /^\s*displayName\s+eq\s+"([^"\\]*)"\s*$/i.exec(filter);
    if (!match) throw scimErrors.invalidFilter('Only displayName eq "<role>" is supported on Groups');
    roles = ROLES.filter((role) => role === match[1]);
  }
  const groups = await Promise.all(roles.map((role) => groupOf(deps, caller, role, false)));
  return { schemas: [LIST_SCHEMA], totalResults: groups.length, itemsPerPage: groups.length, startIndex: 1, Resources: groups };
}

/** The highest of the roles (docs/api.md 3 lists them from the highest). */
const highest = (roles: readonly Role[]): Role | undefined => ROLES.find((role) => roles.includes(role));

/** The user ids a members operation names: `value` of each member, or the one of a `members[value eq "<id>"]` path. */
function memberIds(path: string | undefined, value: unknown): string[] {
  const byPath = /^members\[\s*value\s+eq\s+"([^"\\]{1,128})"\s*\]$/i.exec(path ?? '');
  if (byPath?.[1]) return [byPath[1]];
  if (path !== undefined && path.toLowerCase() !== 'members') throw scimErrors.invalidPath('Only members can change');
  const members = path === undefined && typeof value === 'object' && value !== null && 'members' in value ? value.members : value;
  if (!Array.isArray(members) || members.length > 100) throw scimErrors.invalidValue('members: expected an array of at most 100 { value }');
  return members.map((member) => {
    const id = typeof member === 'object' && member !== null && 'value' in member ? member.value : undefined;
    if (typeof id !== 'string' || id.length === 0 || id.length > 128)
      throw scimErrors.invalidValue('members: each needs a value, a user id');
    return id;
  });
}

/** Okta's path-less `replace` of `{ id, displayName }` with the group's own name: nothing to change. */
function namesItself(value: unknown, role: Role): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return entries.length > 0 && entries.every(([name, given]) => ['id', 'displayname'].includes(name.toLowerCase()) && given === role);
}

/**
 * docs/api.md 13.3: adds users to or removes them from a role's group. A user's role is
 * the highest of their groups, or the tenant's SCIM default role without one; each user is
 * changed through the tenant administration's change (last-ADMIN rule included). Every
 * member is checked before anyone changes: one unknown id (400) changes nobody.
 */
export async function patchScimGroup(deps: ScimDeps, caller: ScimCaller, groupId: string, request: PatchRequest): Promise<void> {
  const role = roleOf(groupId);
  const changes = new Map<string, 'add' | 'remove'>();
  for (const { op, path, value } of request.Operations) {
    if (op === 'replace' && path?.toLowerCase() === 'displayname' && value === role) continue;
    // Entra ID's group mapping sends the group's objectId as externalId: not stored, ignored as on users.
    if (path?.toLowerCase() === 'externalid') continue;
    if (op === 'replace' && path === undefined && namesItself(value, role)) continue;
    if (op === 'replace') throw scimErrors.mutability('Groups are fixed: members are added and removed');
    for (const id of memberIds(path, value)) changes.set(id, op);
  }
  const users = await Promise.all([...changes.keys()].map((id) => deps.store.users.findById(caller.tenantId, id)));
  if (users.some((user) => user === undefined)) throw scimErrors.invalidValue('members: unknown user');
  const tenant = await deps.store.tenants.find(caller.tenantId);
  const fallback = tenant?.scimDefaultRole ?? SCIM_DEFAULT_ROLE;
  // Adds first: a PATCH that replaces the last ADMIN (remove A, add B) must not be refused by the rule of 9.3.
  const ordered = [...changes].sort(([, a], [, b]) => (a === b ? 0 : a === 'add' ? -1 : 1));
  for (const [userId, op] of ordered) {
    await modifyUser(deps, caller, userId, async (user: User) => {
      // A user never put in a group over SCIM is a member of their role's group (membersOf reads
      // `role`), unless that role is the default one, which is what being in no group means.
      const groups = new Set(user.scimGroups ?? (user.role === fallback ? [] : [user.role]));
      if (op === 'add') groups.add(role);
      else groups.delete(role);
      const next = highest([...groups]) ?? fallback;
      return {
        set: next === user.role ? {} : { role: next },
        profile: { scimGroups: ROLES.filter((candidate) => groups.has(candidate)), updatedAt: new Date(deps.clock.now()).toISOString() },
      };
    });
  }
}

/** docs/api.md 13.3: groups are the roles, fixed; creating or deleting one is refused. */
export const fixedGroups = () => new ScimError(403, 'Groups are the service’s roles and are fixed: they cannot be created or deleted');
