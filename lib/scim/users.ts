import { InvalidScimPatchRequest, NoPathInScimPatchOp, NoTarget, scimPatch } from 'scim-patch';
// Not re-exported by the package's index; the same module its scimPatch throws from.
import { FilterArrayTargetNotFound, FilterOnEmptyArray } from 'scim-patch/lib/src/errors/scimErrors.js';
import { type Filter, parse } from 'scim2-parse-filter';
import { tenantShop } from '../admin/shops';
import { SCIM_DEFAULT_ROLE } from '../admin/tenant';
import { modifyUser, type UserEdit } from '../admin/users';
import { byActor, recordEvent, type ScimCaller } from '../audit/record';
import type { Deps } from '../deps';
import { fitsAfterNormalization } from '../http/schemas';
import { normalizeEmail, normalizeUsername } from '../store/keys';
import type { ProfileChange, UserChange } from '../store/tenant-users';
import { userCreated } from '../users/events';
import type { User } from '../users/user';
import { type ScimError, scimErrors } from './errors';
import {
  COMMERCE_SCHEMA,
  LIST_SCHEMA,
  type ListQuery,
  MAX_RESULTS,
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
  const created = userCreated(deps, user, byActor(caller).actor, 'scim');
  const result = await deps.store.emitting([created]).users.create(user, { createTenant: false });
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

/** The stored attributes as the resource spells them, by their lower-case name (RFC 7644 3.10: names compare regardless of case). */
const ATTRIBUTES: Record<string, string> = {
  username: 'userName',
  externalid: 'externalId',
  name: 'name',
  displayname: 'displayName',
  emails: 'emails',
  active: 'active',
};

/** The sub-attributes of the complex stored attributes, the same way. */
const SUB_ATTRIBUTES: Record<string, Record<string, string>> = {
  name: {
    formatted: 'formatted',
    familyname: 'familyName',
    givenname: 'givenName',
    middlename: 'middleName',
    honorificprefix: 'honorificPrefix',
    honorificsuffix: 'honorificSuffix',
  },
  emails: { value: 'value', type: 'type', primary: 'primary', display: 'display' },
  [COMMERCE_SCHEMA]: { shopid: 'shopId' },
};

/**
 * A path as RFC 7644 3.5.2 writes one: an attribute (or an extension's URN and an attribute),
 * a value filter, a sub-attribute; or an extension's URN alone.
 */
const WELL_FORMED = /^(?:urn:[\w.:-]+:)?[A-Za-z][\w$-]*(?:\[[^\]]*\])?(?:\.[A-Za-z][\w$-]*)?$|^urn:[\w.:-]+$/i;
const ATTRIBUTE_PATH = /^([A-Za-z][\w$-]*)(\[[^\]]*\])?(?:\.([A-Za-z][\w$-]*))?$/;

/** What a path names: nothing stored (ignored), the core schema or the commerce extension as a whole, or a canonical path. */
type Target =
  | { kind: 'ignored' }
  | { kind: 'core' }
  | { kind: 'commerce' }
  | { kind: 'path'; path: string; attribute: string; whole: boolean };

const canonicalName = (names: Record<string, string> | undefined, name: string) => names?.[name.toLowerCase()] ?? name;

/** A path with the attribute names the resource uses; a malformed one is 400 `invalidPath`, a read-only one too. */
function targetOf(path: string): Target {
  const lower = path.toLowerCase();
  const core = USER_SCHEMA.toLowerCase();
  const commerce = COMMERCE_SCHEMA.toLowerCase();
  if (lower === core) return { kind: 'core' };
  if (lower.startsWith(`${core}:`)) return targetOf(path.slice(core.length + 1));
  if (lower === commerce) return { kind: 'commerce' };
  if (lower.startsWith(`${commerce}:`)) {
    const sub = canonicalName(SUB_ATTRIBUTES[COMMERCE_SCHEMA], path.slice(commerce.length + 1));
    return { kind: 'path', path: `${COMMERCE_SCHEMA}:${sub}`, attribute: COMMERCE_SCHEMA, whole: false };
  }
  const parts = ATTRIBUTE_PATH.exec(path);
  if (!WELL_FORMED.test(path) || (!parts && !lower.startsWith('urn:')))
    throw scimErrors.invalidPath(`Malformed path: ${path.slice(0, 100)}`);
  if (!parts?.[1]) return { kind: 'ignored' };
  if (READ_ONLY.includes(parts[1].toLowerCase())) throw scimErrors.invalidPath(`Read-only attribute: ${parts[1]}`);
  const attribute = ATTRIBUTES[parts[1].toLowerCase()];
  if (attribute === undefined) return { kind: 'ignored' };
  const sub = parts[3] !== undefined ? `.${canonicalName(SUB_ATTRIBUTES[attribute], parts[3])}` : '';
  return { kind: 'path', path: `${attribute}${parts[2] ?? ''}${sub}`, attribute, whole: parts[2] === undefined && sub === '' };
}

/** A value of a whole attribute with its sub-attributes' names as the resource spells them. */
function canonicalValue(attribute: string, value: unknown): unknown {
  const names = SUB_ATTRIBUTES[attribute];
  const rename = (entry: unknown) =>
    names && isRecord(entry) ? Object.fromEntries(Object.entries(entry).map(([name, sub]) => [canonicalName(names, name), sub])) : entry;
  return Array.isArray(value) ? value.map(rename) : rename(value);
}

type Operation = PatchRequest['Operations'][number];

/** The operations of a whole extension: one per sub-attribute (scim-patch would file `urn:…:2.0:User` under `urn:…:2.0`). */
function commerceOperations(op: Operation['op'], value: unknown): Operation[] {
  if (op === 'remove') return [{ op, path: `${COMMERCE_SCHEMA}:shopId` }];
  if (!isRecord(value)) throw scimErrors.invalidValue(`${COMMERCE_SCHEMA}: expected an object`);
  return Object.entries(value).map(([name, sub]) => ({
    op,
    path: `${COMMERCE_SCHEMA}:${canonicalName(SUB_ATTRIBUTES[COMMERCE_SCHEMA], name)}`,
    value: sub,
  }));
}

/** A path-less value's attributes: whole ones stay in one path-less operation, the rest become operations with a path. */
function valueOperations(op: Operation['op'], value: Record<string, unknown>): Operation[] {
  const whole: Record<string, unknown> = {};
  const more: Operation[] = [];
  for (const [name, sub] of Object.entries(value)) {
    const target = targetOf(name);
    if (target.kind === 'core') {
      if (!isRecord(sub)) throw scimErrors.invalidValue(`${USER_SCHEMA}: expected an object`);
      more.push(...valueOperations(op, sub));
    } else if (target.kind === 'commerce') more.push(...commerceOperations(op, sub));
    else if (target.kind === 'path' && target.whole) whole[target.attribute] = canonicalValue(target.attribute, sub);
    else if (target.kind === 'path') more.push({ op, path: target.path, value: sub });
  }
  return [...(Object.keys(whole).length > 0 ? [{ op, value: whole }] : []), ...more];
}

/**
 * The operations on stored attributes, their names and URN-prefixed paths or keys written as
 * the resource spells them, since scim-patch applies them as written and the resource would
 * keep `Active` beside `active`. Operations (and keys of a path-less value) on other
 * attributes are ignored, as POST and PUT ignore them (RFC 7644 3.3): Entra ID puts every
 * attribute it maps (title, phoneNumbers, the enterprise extension) in the PATCH that also
 * carries `active`, and refusing them would leave a deprovisioned user active.
 */
function storedOperations(operation: Operation): Operation[] {
  const { op, path, value } = operation;
  if (path === undefined) {
    if (isRecord(value)) return valueOperations(op, value);
    if (op === 'remove') throw scimErrors.noTarget('A remove needs a path');
    throw scimErrors.invalidValue('An operation without a path needs an object value');
  }
  const target = targetOf(path);
  switch (target.kind) {
    case 'ignored':
      return [];
    case 'core':
      if (!isRecord(value)) throw scimErrors.invalidValue(`${USER_SCHEMA}: expected an object`);
      return valueOperations(op, value);
    case 'commerce':
      return commerceOperations(op, value);
    case 'path':
      return [
        {
          op,
          path: target.path,
          ...('value' in operation ? { value: target.whole ? canonicalValue(target.attribute, value) : value } : {}),
        },
      ];
  }
}

/** The attributes a patched resource may hold: any other is a name the operations above failed to canonicalise. */
const RESOURCE_KEYS = [...READ_ONLY, ...Object.values(ATTRIBUTES), COMMERCE_SCHEMA];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * RFC 7644 3.5.2 through scim-patch, its refusals as SCIM errors; operations on attributes
 * that are not stored are ignored. A `replace` whose value filter matches nothing adds the value
 * (`emails[type eq "work"].value` on a user without a work email), as Entra ID expects; a
 * `remove` that matches nothing changes nothing.
 */
function applyPatch(resource: ScimUser, request: PatchRequest): Record<string, unknown> {
  const operations = request.Operations.flatMap(storedOperations);
  const document = {
    ...resource,
    meta: { ...resource.meta, created: new Date(resource.meta.created), lastModified: new Date(resource.meta.lastModified) },
  };
  let patched: Record<string, unknown> = document;
  for (const operation of operations) {
    try {
      patched = scimPatch(patched as typeof document, [operation] as never, { mutateDocument: false, treatMissingAsAdd: true });
    } catch (error) {
      // RFC 7644 3.5.2.2: removing what is not there leaves the resource as it is.
      // A value filter on an attribute the user has not (emails) is scim-patch's FilterOnEmptyArray.
      const nothing = error instanceof FilterArrayTargetNotFound || error instanceof FilterOnEmptyArray || error instanceof NoTarget;
      if (operation.op === 'remove' && nothing) continue;
      throw patchError(error);
    }
  }
  // Removing `emails[type eq "work"].value` leaves the entry without an address: the email is gone.
  if (Array.isArray(patched.emails)) {
    const emails = patched.emails.filter((email) => !isRecord(email) || email.value !== undefined);
    patched = { ...patched, emails: emails.length > 0 ? emails : undefined };
  }
  const unknown = Object.keys(patched).find((name) => !RESOURCE_KEYS.includes(name));
  if (unknown !== undefined) throw scimErrors.invalidPath(`Unknown attribute: ${unknown.slice(0, 100)}`);
  return Object.fromEntries(Object.entries(patched).filter(([name]) => !READ_ONLY.includes(name)));
}

/**
 * A refusal of scim-patch as RFC 7644 3.12 names it. Its errors are all named `Error`, so
 * they are told apart by class.
 */
function patchError(error: unknown): ScimError {
  const message = error instanceof Error ? error.message.slice(0, 200) : 'Invalid patch';
  if (error instanceof NoTarget || error instanceof NoPathInScimPatchOp || error instanceof FilterArrayTargetNotFound)
    return scimErrors.noTarget(message);
  if (error instanceof InvalidScimPatchRequest) return scimErrors.invalidSyntax(message);
  return scimErrors.invalidValue(message);
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
