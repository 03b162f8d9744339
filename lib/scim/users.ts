import { scimPatch } from 'scim-patch';
import { type Filter, parse } from 'scim2-parse-filter';
import { tenantShop } from '../admin/shops';
import { SCIM_DEFAULT_ROLE } from '../admin/tenant';
import { modifyUser, type UserEdit } from '../admin/users';
import { byActor, recordEvent, type ScimCaller } from '../audit/record';
import type { Deps } from '../deps';
import { fitsAfterNormalization } from '../http/schemas';
import { normalizeEmail, normalizeUsername } from '../store/keys';
import type { ProfileChange, UserChange } from '../store/tenant-users';
import type { User } from '../users/user';
import { scimErrors } from './errors';
import {
  COMMERCE_SCHEMA,
  LIST_SCHEMA,
  type ListQuery,
  MAX_RESULTS,
  PATCHABLE,
  type PatchRequest,
  parseScim,
  USER_SCHEMA,
  type UserInput,
  userInput,
} from './schema';

export type ScimDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

/** A user as a SCIM resource (RFC 7643 4.1, docs/api.md 13.3): never a hash. */
export type ScimUser = ReturnType<typeof resourceOf>;

const location = (deps: Pick<Deps, 'config'>, kind: 'Users' | 'Groups', id: string) =>
  `${deps.config.issuer}/scim/v2/${kind}/${encodeURIComponent(id)}`;

/** The emails of a user: as a SCIM client sent them, else the one the user set (docs/api.md 8.8). */
const emailsOf = (user: User) => user.emails ?? (user.email ? [{ value: user.email, primary: true }] : undefined);

/** docs/api.md 13.3: the SCIM resource of a user, however it was created. */
export function resourceOf(deps: Pick<Deps, 'config'>, user: User) {
  const emails = emailsOf(user);
  return {
    schemas: [USER_SCHEMA, COMMERCE_SCHEMA],
    id: user.id,
    ...(user.externalId !== undefined ? { externalId: user.externalId } : {}),
    userName: user.username,
    ...(user.name !== undefined ? { name: user.name } : {}),
    ...(user.displayName !== undefined ? { displayName: user.displayName } : {}),
    ...(emails !== undefined ? { emails } : {}),
    active: user.status === 'active',
    groups: [{ value: user.role, display: user.role, $ref: location(deps, 'Groups', user.role) }],
    [COMMERCE_SCHEMA]: { shopId: user.shopId },
    meta: {
      resourceType: 'User',
      created: user.createdAt,
      lastModified: user.updatedAt ?? user.createdAt,
      location: location(deps, 'Users', user.id),
      version: `W/"${user.version ?? 0}"`,
    },
  };
}

export const parseUserInput = (body: unknown): UserInput => parseScim(userInput, body);

const primaryEmail = (input: UserInput) => (input.emails?.find((email) => email.primary) ?? input.emails?.[0])?.value;

/** The user's externalId must stay unique in the tenant (docs/api.md 13.3): 409 `uniqueness`. */
async function checkExternalId(deps: ScimDeps, user: Pick<User, 'tenantId' | 'id'>, externalId: string | undefined) {
  if (externalId === undefined) return;
  const holder = await deps.store.users.findByExternalId(user.tenantId, externalId);
  if (holder && holder.id !== user.id) throw scimErrors.uniqueness('externalId already exists');
}

/**
 * What a SCIM write of `input` changes of the user as read: status (`active`), shop (the
 * commerce extension), and the attributes stored as sent. `userName` is the username and
 * cannot change (400 `mutability`).
 */
async function changesOf(deps: ScimDeps, user: User, input: UserInput): Promise<{ set: UserChange; profile: ProfileChange }> {
  if (normalizeUsername(input.userName) !== normalizeUsername(user.username)) throw scimErrors.mutability('userName cannot be changed');
  if (input.externalId !== user.externalId) await checkExternalId(deps, user, input.externalId);
  const set: UserChange = {};
  const status = input.active === false ? 'disabled' : 'active';
  if (status !== user.status) set.status = status;
  const shopId = input[COMMERCE_SCHEMA]?.shopId;
  if (shopId !== undefined && shopId !== user.shopId) set.shopId = shopId;
  const profile: ProfileChange = {
    externalId: input.externalId ?? null,
    displayName: input.displayName ?? null,
    name: input.name ?? null,
    emails: input.emails ?? null,
    updatedAt: new Date(deps.clock.now()).toISOString(),
  };
  const email = primaryEmail(input);
  // A new address is not verified (docs/api.md 8.8): the directory's word is not the user's proof.
  if (email === undefined ? user.email !== undefined : normalizeEmail(email) !== normalizeEmail(user.email ?? '')) {
    Object.assign(profile, { email: email ?? null, emailVerified: null });
  }
  return { set, profile };
}

/** docs/api.md 13.3: creates a user without a password, of the tenant's SCIM default role. */
export async function createScimUser(deps: ScimDeps, caller: ScimCaller, input: UserInput): Promise<ScimUser> {
  const { tenantId } = caller;
  const [tenant, shopId] = await Promise.all([
    deps.store.tenants.find(tenantId),
    tenantShop(deps, tenantId, input[COMMERCE_SCHEMA]?.shopId),
  ]);
  const now = new Date(deps.clock.now()).toISOString();
  const email = primaryEmail(input);
  const user: User = {
    id: deps.random.id(),
    tenantId,
    shopId,
    username: input.userName,
    role: tenant?.scimDefaultRole ?? SCIM_DEFAULT_ROLE,
    status: input.active === false ? 'disabled' : 'active',
    createdAt: now,
    updatedAt: now,
    ...(email !== undefined ? { email, emailVerified: false } : {}),
    ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
    ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.emails !== undefined ? { emails: input.emails } : {}),
  };
  const result = await deps.store.users.create(user, { createTenant: false });
  if (result === 'username_taken') throw scimErrors.uniqueness('userName already exists');
  if (result === 'external_id_taken') throw scimErrors.uniqueness('externalId already exists');
  deps.log.info('user_provisioned', { tenantId, scimTokenId: caller.scimTokenId, userId: user.id });
  const details = { username: user.username, role: user.role, shopId: user.shopId, status: user.status };
  await recordEvent(deps, { ...byActor(caller, user.id), type: 'user_provisioned', outcome: 'success', details });
  return resourceOf(deps, user);
}

/** docs/api.md 13.3: a user of the caller's tenant; another tenant's or an unknown id is 404. */
export async function readScimUser(deps: ScimDeps, caller: ScimCaller, userId: string): Promise<ScimUser> {
  const user = await deps.store.users.findById(caller.tenantId, userId);
  if (!user) throw scimErrors.notFound('User');
  return resourceOf(deps, user);
}

/** Changes a user through the tenant administration's one change (lib/admin/users.ts), as the SCIM token. */
const scimChange = async (deps: ScimDeps, caller: ScimCaller, userId: string, edit: UserEdit) =>
  resourceOf(deps, await modifyUser(deps, caller, userId, edit));

/** docs/api.md 13.3: PUT replaces what the user's resource says. */
export function replaceScimUser(deps: ScimDeps, caller: ScimCaller, userId: string, input: UserInput): Promise<ScimUser> {
  return scimChange(deps, caller, userId, (user) => changesOf(deps, user, input));
}

const READ_ONLY = ['id', 'meta', 'groups', 'schemas'];

/** The attribute a PATCH path names (RFC 7644 3.5.2): its first part, or the extension's URN. */
function attributeOf(path: string): string {
  const lower = path.toLowerCase();
  if (lower.startsWith(`${COMMERCE_SCHEMA.toLowerCase()}`)) return COMMERCE_SCHEMA.toLowerCase();
  if (lower.startsWith(`${USER_SCHEMA.toLowerCase()}:`)) return attributeOf(path.slice(USER_SCHEMA.length + 1));
  return lower.split(/[.[]/)[0] ?? lower;
}

/**
 * A path as RFC 7644 3.5.2 writes one: an attribute (or an extension's URN and an attribute),
 * a value filter, a sub-attribute. Anything else is refused (400 `invalidPath`).
 */
const WELL_FORMED = /^(?:urn:[\w.:-]+:)?[A-Za-z][\w$-]*(?:\[[^\]]*\])?(?:\.[A-Za-z][\w$-]*)?$|^urn:[\w.:-]+$/i;

/** Whether a path names a stored attribute; a well-formed path of another is ignored, a malformed one refused. */
function isStored(path: string): boolean {
  if (PATCHABLE.includes(attributeOf(path))) return true;
  if (!WELL_FORMED.test(path)) throw scimErrors.invalidPath(`Malformed path: ${path.slice(0, 100)}`);
  return false;
}

/**
 * The operations on stored attributes. Operations (and keys of a path-less value) on other
 * attributes are ignored, as POST and PUT ignore them (RFC 7644 3.3): Entra ID puts every
 * attribute it maps (title, phoneNumbers, the enterprise extension) in the PATCH that also
 * carries `active`, and refusing them would leave a deprovisioned user active.
 */
function storedOperations(request: PatchRequest): PatchRequest['Operations'] {
  return request.Operations.flatMap((operation) => {
    if (operation.path !== undefined) return isStored(operation.path) ? [operation] : [];
    if (!isRecord(operation.value)) {
      if (operation.op === 'remove') throw scimErrors.noTarget('A remove needs a path');
      throw scimErrors.invalidValue('An operation without a path needs an object value');
    }
    const value = Object.fromEntries(Object.entries(operation.value).filter(([name]) => isStored(name)));
    return Object.keys(value).length > 0 ? [{ ...operation, value }] : [];
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * RFC 7644 3.5.2 through scim-patch, its refusals as SCIM errors; operations on attributes
 * that are not stored are ignored. A `replace` whose value filter matches nothing adds the value
 * (`emails[type eq "work"].value` on a user without a work email), as Entra ID expects.
 */
function applyPatch(resource: ScimUser, request: PatchRequest): Record<string, unknown> {
  const operations = storedOperations(request);
  const document = {
    ...resource,
    meta: { ...resource.meta, created: new Date(resource.meta.created), lastModified: new Date(resource.meta.lastModified) },
  };
  let patched: Record<string, unknown>;
  try {
    // Paths compare case-insensitively (RFC 7644 3.10); scim-patch matches them as given.
    patched = scimPatch(
      document,
      operations.map(({ op, path, value }) => ({
        op,
        ...(path !== undefined ? { path: canonicalPath(path) } : {}),
        value,
      })) as never,
      { mutateDocument: false, treatMissingAsAdd: true },
    );
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const message = error instanceof Error ? error.message.slice(0, 200) : 'Invalid patch';
    if (name === 'NoTarget' || name === 'NoPathInScimPatchOp') throw scimErrors.noTarget(message);
    if (name === 'InvalidScimPatchRequest') throw scimErrors.invalidSyntax(message);
    throw scimErrors.invalidValue(message);
  }
  return Object.fromEntries(Object.entries(patched).filter(([name]) => !READ_ONLY.includes(name)));
}

/** The attribute names of a path as the resource spells them (`ACTIVE` → `active`). */
function canonicalPath(path: string): string {
  const names: Record<string, string> = {
    username: 'userName',
    externalid: 'externalId',
    displayname: 'displayName',
    active: 'active',
    name: 'name',
    emails: 'emails',
  };
  return path.replace(/^[A-Za-z]+/, (head) => names[head.toLowerCase()] ?? head);
}

/**
 * docs/api.md 13.3: PATCH applies RFC 7644 3.5.2 operations to the user as read; concurrent
 * ones apply one after another. A `userName` other than the stored one is ignored (it cannot
 * change), not refused: Entra ID sends a renamed UPN with every later PATCH, `active` included.
 */
export function patchScimUser(deps: ScimDeps, caller: ScimCaller, userId: string, request: PatchRequest): Promise<ScimUser> {
  return scimChange(deps, caller, userId, (user) => {
    const patched = applyPatch(resourceOf(deps, user), request);
    if (typeof patched.userName !== 'string' || normalizeUsername(patched.userName) !== normalizeUsername(user.username)) {
      deps.log.info('scim_username_change_ignored', { tenantId: caller.tenantId, scimTokenId: caller.scimTokenId, userId });
      patched.userName = user.username;
    }
    return changesOf(deps, user, parseUserInput(patched));
  });
}

/** A filter term the service answers (docs/api.md 13.3): `eq` on userName, externalId or emails.value. */
interface Term {
  attribute: 'username' | 'externalid' | 'emails.value';
  value: string;
}

const FILTERABLE = ['username', 'externalid', 'emails.value'] as const;

/** The terms of `eq` joined by `and`; anything else is 400 `invalidFilter`. */
export function termsOf(filter: string): Term[] {
  let tree: Filter;
  try {
    tree = parse(filter);
  } catch {
    throw scimErrors.invalidFilter('The filter does not parse');
  }
  const terms: Term[] = [];
  const visit = (node: Filter) => {
    if (node.op === 'and' && 'filters' in node) return node.filters.forEach(visit);
    if (node.op !== 'eq' || !('compValue' in node) || typeof node.compValue !== 'string') {
      throw scimErrors.invalidFilter('Only eq on userName, externalId or emails.value, joined by and, is supported');
    }
    const attribute = node.attrPath.toLowerCase().replace(`${USER_SCHEMA.toLowerCase()}:`, '');
    const known = FILTERABLE.find((name) => name === attribute);
    if (!known) throw scimErrors.invalidFilter(`Filtering on ${node.attrPath.slice(0, 100)} is not supported`);
    terms.push({ attribute: known, value: node.compValue });
  };
  visit(tree);
  return terms;
}

/** Whether the user matches a term: userName and emails regardless of case (RFC 7643 4.1), externalId exactly. */
function matches(user: User, term: Term): boolean {
  switch (term.attribute) {
    case 'username':
      return normalizeUsername(user.username) === normalizeUsername(term.value);
    case 'externalid':
      return user.externalId === term.value;
    case 'emails.value':
      return (emailsOf(user) ?? []).some(
        (email) => typeof email.value === 'string' && normalizeEmail(email.value) === normalizeEmail(term.value),
      );
  }
}

/** The users of a filter: one lookup (username record, externalId record, or email index), then every term checked. */
async function filtered(deps: ScimDeps, tenantId: string, terms: Term[]): Promise<User[]> {
  // A value beyond the bounds of every stored one (docs/api.md 10.2) matches no user.
  if (terms.some((term) => !fitsAfterNormalization(term.value))) return [];
  const by = (attribute: Term['attribute']) => terms.find((term) => term.attribute === attribute)?.value;
  const userName = by('username');
  const externalId = by('externalid');
  const email = by('emails.value');
  let found: Array<User | undefined>;
  if (userName !== undefined) found = [await deps.store.users.findByUsername(tenantId, userName)];
  else if (externalId !== undefined) found = [await deps.store.users.findByExternalId(tenantId, externalId)];
  else found = await deps.store.users.findByEmail(tenantId, email ?? '');
  return found.filter((user): user is User => user !== undefined && terms.every((term) => matches(user, term)));
}

/** The page of a list after the `startIndex - 1` first users, read from the tenant index. */
async function page(deps: ScimDeps, tenantId: string, skip: number, count: number): Promise<User[]> {
  const users: User[] = [];
  let after: { createdAt: string; id: string } | undefined;
  let seen = 0;
  while (users.length < count) {
    const { users: batch, next } = await deps.store.tenantUsers.list(tenantId, { limit: 100, after });
    for (const user of batch) if (seen++ >= skip && users.length < count) users.push(user);
    if (!next) break;
    after = next;
  }
  return users;
}

/** docs/api.md 13.3 and RFC 7644 3.4.2: a ListResponse of the tenant's users, filtered, a page at a time. */
export async function listScimUsers(deps: ScimDeps, caller: ScimCaller, query: ListQuery) {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, query.count ?? MAX_RESULTS));
  let total: number;
  let users: User[];
  if (query.filter !== undefined) {
    const all = await filtered(deps, caller.tenantId, termsOf(query.filter));
    total = all.length;
    users = all.slice(startIndex - 1, startIndex - 1 + count);
  } else {
    [total, users] = await Promise.all([deps.store.tenantUsers.count(caller.tenantId), page(deps, caller.tenantId, startIndex - 1, count)]);
  }
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    itemsPerPage: users.length,
    startIndex,
    Resources: users.map((user) => resourceOf(deps, user)),
  };
}
