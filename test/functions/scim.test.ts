import { beforeAll, describe, expect, it } from 'vitest';
import { createScimToken } from '../../lib/scim/tokens';
import { PutCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { localDynamo } from '../helpers/local-dynamo';
import { scimClient, scimError, scimTokenOf } from '../helpers/scim';

const PASSWORD = 'tenant admin passphrase';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const COMMERCE = 'urn:ietf:params:scim:schemas:extension:commerce:2.0:User';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SCIM_JSON = 'application/scim+json; charset=utf-8';

describe('SCIM 2.0 provisioning (docs/api.md 13.3)', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  let scim: ReturnType<typeof scimClient>;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenantId = uniqueTenant('scim');
    admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    scim = scimClient(app, (await scimTokenOf(app, admin.token)).token);
  });

  const newUser = (userName: string, more: Record<string, unknown> = {}) => ({
    schemas: [USER],
    userName,
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ value: `${userName.replace(/[^a-z0-9.-]/gi, '')}@example.com`, type: 'work', primary: true }],
    active: true,
    ...more,
  });

  async function provision(userName: string, more: Record<string, unknown> = {}) {
    const response = await scim('scimCreateUser', { body: newUser(userName, more) });
    expect(response.status).toBe(201);
    return response.body as { id: string } & Record<string, unknown>;
  }

  describe('SCIM tokens', () => {
    it('are created once by an ADMIN, listed without the token, deleted with effect on the next request', async () => {
      const created = await app.request('adminCreateScimToken', { token: admin.token, body: { name: 'Entra ID' } });
      expect(created).toEqual({
        status: 201,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: { scimToken: { id: expect.any(String), name: 'Entra ID', createdAt: expect.any(String) }, token: expect.any(String) },
        },
      });
      const { token, scimToken } = created.body.data;
      expect(Buffer.from(token.split('.')[2], 'base64url').length).toBeGreaterThanOrEqual(32);
      const listed = await app.request('adminListScimTokens', { token: admin.token });
      expect(listed.body.data.scimTokens).toContainEqual(scimToken);
      expect(JSON.stringify(listed.body)).not.toContain(token.split('.')[2]);

      const client = scimClient(app, token);
      expect((await client('scimListUsers')).status).toBe(200);
      const deleted = await app.request('adminDeleteScimToken', { token: admin.token, pathParameters: { tokenId: scimToken.id } });
      expect(deleted).toEqual({
        status: 200,
        headers: expect.anything(),
        body: { success: true, data: { message: 'SCIM token deleted' } },
      });
      expect(await client('scimListUsers')).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON, 'WWW-Authenticate': 'Bearer realm="scim"' }),
        body: scimError(401, undefined, 'Invalid or missing SCIM token'),
      });
      const again = await app.request('adminDeleteScimToken', { token: admin.token, pathParameters: { tokenId: scimToken.id } });
      expect(again.status).toBe(404);
    });

    it('are refused to a non-ADMIN and audited with the ADMIN as actor', async () => {
      const staff = await registerStaff(app, admin.token, { username: 'manager-tokens', password: PASSWORD, role: 'MANAGER', tenantId });
      expect((await app.request('adminCreateScimToken', { token: staff.token, body: { name: 'x' } })).status).toBe(403);
      const trail = await app.request('adminListAudit', { token: admin.token, query: { type: 'scim_token_created' } });
      expect(trail.body.data.events[0]).toMatchObject({
        actor: { type: 'user', id: admin.user.id },
        details: { name: expect.any(String) },
      });
      const deletions = await app.request('adminListAudit', { token: admin.token, query: { type: 'scim_token_deleted' } });
      expect(deletions.body.data.events).toEqual([
        expect.objectContaining({ actor: { type: 'user', id: admin.user.id }, outcome: 'success' }),
      ]);
    });

    it('accepts the token of a tenant whose id is 512 bytes (683 characters of base64url)', async () => {
      const longTenant = `legacy-${'x'.repeat(505)}`;
      const identity = await app.identityOf(admin.token);
      if (!identity) throw new Error('the ADMIN has no identity');
      const { token } = await createScimToken(deps, { ...identity, tenantId: longTenant }, 'long tenant');
      expect(token.split('.')[0]).toHaveLength(683);
      const listed = await scimClient(app, token)('scimListGroups');
      expect(listed.status).toBe(200);
    });

    it('checks the token before the body: no token and a bad body is 401, never 400', async () => {
      const response = await app.request('scimCreateUser', { headers: { 'content-type': 'application/scim+json' }, body: '{"userName":' });
      expect(response).toEqual({ status: 401, headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }), body: scimError(401) });
    });

    it.each([
      ['no header', undefined],
      ['a session token', 'session'],
      ['a malformed token', 'abc.def'],
      ['a forged token of the tenant', 'forged'],
    ])('answers 401 in SCIM’s shape for %s', async (_, kind) => {
      const tokenId = (await app.request('adminListScimTokens', { token: admin.token })).body.data.scimTokens[0].id;
      const header =
        kind === 'session'
          ? admin.token
          : kind === 'forged'
            ? `${Buffer.from(tenantId).toString('base64url')}.${tokenId}.${'A'.repeat(43)}`
            : kind;
      const response = await app.request('scimListUsers', { headers: header ? { authorization: `Bearer ${header}` } : {} });
      expect(response).toEqual({ status: 401, headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }), body: scimError(401) });
    });
  });

  describe('discovery', () => {
    it('serves ServiceProviderConfig, ResourceTypes and Schemas as they are', async () => {
      const config = await app.request('scimServiceProviderConfig');
      expect(config.status).toBe(200);
      expect(config.headers['Content-Type']).toBe(SCIM_JSON);
      expect(config.body).toMatchObject({
        patch: { supported: true },
        bulk: { supported: false },
        filter: { supported: true, maxResults: 100 },
        sort: { supported: false },
        authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
      });
      expect((await app.request('scimResourceTypes')).body.Resources.map((type: { id: string }) => type.id)).toEqual(['User', 'Group']);
      expect((await app.request('scimSchemas')).body.Resources.map((schema: { id: string }) => schema.id)).toEqual([
        USER,
        'urn:ietf:params:scim:schemas:core:2.0:Group',
        COMMERCE,
      ]);
    });
  });

  describe('Okta-style CRUD sequence', () => {
    it('finds no user, creates one, reads it, deactivates it, finds it again, reactivates it', async () => {
      const filter = { filter: 'userName eq "okta.user@example.com"', startIndex: '1', count: '100' };
      expect(await scim('scimListUsers', { query: filter })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }),
        body: { schemas: [LIST], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] },
      });
      const created = await scim('scimCreateUser', {
        body: {
          ...newUser('okta.user@example.com', { emails: [{ value: 'okta.user@example.com', type: 'work', primary: true }] }),
          externalId: '00u1okta',
          displayName: 'Ada L',
          password: 'ignored-not-stored',
        },
      });
      expect(created).toEqual({
        status: 201,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON, Location: created.body.meta.location }),
        body: {
          schemas: [USER, COMMERCE],
          id: expect.any(String),
          externalId: '00u1okta',
          userName: 'okta.user@example.com',
          name: { givenName: 'Ada', familyName: 'Lovelace' },
          displayName: 'Ada L',
          emails: [{ value: 'okta.user@example.com', type: 'work', primary: true }],
          active: true,
          groups: [{ value: 'ANALYST', display: 'ANALYST', $ref: expect.stringContaining('/scim/v2/Groups/ANALYST') }],
          [COMMERCE]: { shopId: deps.config.defaultShopId },
          meta: {
            resourceType: 'User',
            created: expect.any(String),
            lastModified: expect.any(String),
            location: expect.stringContaining(`/scim/v2/Users/${created.body.id}`),
            version: 'W/"0"',
          },
        },
      });
      const id = created.body.id;
      expect((await scim('scimReadUser', { pathParameters: { userId: id } })).body).toEqual(created.body);
      const deactivated = await scim('scimPatchUser', {
        pathParameters: { userId: id },
        body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] },
      });
      expect(deactivated.status).toBe(200);
      expect(deactivated.body).toMatchObject({ active: false, meta: { version: 'W/"1"' } });
      const found = await scim('scimListUsers', { query: filter });
      expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, Resources: [{ id, active: false }] });
      const replaced = await scim('scimReplaceUser', {
        pathParameters: { userId: id },
        body: { ...created.body, active: true, displayName: 'Ada' },
      });
      expect(replaced.body).toMatchObject({ active: true, displayName: 'Ada', externalId: '00u1okta' });
      const stored = await deps.store.users.findById(tenantId, id);
      expect(stored?.passwordHash).toBeUndefined();
    });
  });

  describe('Entra-style validator sequence', () => {
    it('filters on userName and externalId, patches with Replace and "False", edits emails by filter paths, groups, deletes', async () => {
      const created = await provision('entra.user', {
        externalId: 'entra-ext-1',
        emails: [{ value: 'e1@example.com', type: 'work', primary: true }],
      });
      const id = created.id;
      const byUserName = await scim('scimListUsers', { query: { filter: 'userName eq "ENTRA.USER"' } });
      expect(byUserName.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);
      const byExternalId = await scim('scimListUsers', { query: { filter: 'externalId eq "entra-ext-1"' } });
      expect(byExternalId.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);
      const both = await scim('scimListUsers', { query: { filter: 'userName eq "entra.user" and externalId eq "other"' } });
      expect(both.body.totalResults).toBe(0);

      const patched = await scim('scimPatchUser', {
        pathParameters: { userId: id },
        body: {
          schemas: [PATCH],
          Operations: [
            { op: 'Replace', path: 'active', value: 'False' },
            { op: 'Add', path: 'emails', value: [{ value: 'home@example.com', type: 'home' }] },
            { op: 'Replace', path: 'emails[type eq "work"].value', value: 'e2@example.com' },
            { op: 'Replace', path: 'name.givenName', value: 'Grace' },
            { op: 'Replace', path: 'emails[type eq "other"].value', value: 'other@example.com' },
            { op: 'Replace', path: `${COMMERCE}:shopId`, value: deps.config.defaultShopId },
          ],
        },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        active: false,
        name: { givenName: 'Grace', familyName: 'Lovelace' },
        emails: [
          { value: 'e2@example.com', type: 'work', primary: true },
          { value: 'home@example.com', type: 'home' },
          { value: 'other@example.com', type: 'other' },
        ],
      });
      const removed = await scim('scimPatchUser', {
        pathParameters: { userId: id },
        body: {
          schemas: [PATCH],
          Operations: [
            { op: 'Remove', path: 'emails[type eq "home"]' },
            { op: 'remove', path: 'emails[type eq "other"]' },
            { op: 'replace', path: 'active', value: 'True' },
          ],
        },
      });
      expect(removed.body).toMatchObject({ active: true, emails: [{ value: 'e2@example.com', type: 'work', primary: true }] });
      const byEmail = await scim('scimListUsers', { query: { filter: 'emails.value eq "E2@example.com"' } });
      expect(byEmail.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);

      const group = await scim('scimListGroups', { query: { filter: 'displayName eq "MANAGER"' } });
      expect(group.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'MANAGER', displayName: 'MANAGER' }] });
      const joined = await scim('scimPatchGroup', {
        pathParameters: { groupId: 'MANAGER' },
        body: { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }] },
      });
      expect(joined.status).toBe(204);
      expect((await scim('scimReadUser', { pathParameters: { userId: id } })).body.groups).toEqual([
        expect.objectContaining({ value: 'MANAGER' }),
      ]);
      const members = await scim('scimReadGroup', { pathParameters: { groupId: 'MANAGER' } });
      expect(members.body.members).toContainEqual(expect.objectContaining({ value: id, display: 'entra.user' }));
      await scim('scimPatchGroup', {
        pathParameters: { groupId: 'MANAGER' },
        body: { schemas: [PATCH], Operations: [{ op: 'Remove', path: `members[value eq "${id}"]` }] },
      });
      expect((await deps.store.users.findById(tenantId, id))?.role).toBe('ANALYST');

      expect((await scim('scimDeleteUser', { pathParameters: { userId: id } })).status).toBe(204);
      expect(await scim('scimReadUser', { pathParameters: { userId: id } })).toEqual({
        status: 404,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }),
        body: scimError(404),
      });
      // The username and externalId are free again.
      await provision('entra.user', { externalId: 'entra-ext-1' });
    });
  });

  describe('PATCH /Users of attributes that cannot change or are not stored', () => {
    it('disables the user when Entra ID sends a renamed userName with active "False"; the userName stays', async () => {
      const { id } = await provision('upn.before@example.com');
      const response = await scim('scimPatchUser', {
        pathParameters: { userId: id },
        body: {
          schemas: [PATCH],
          Operations: [
            { op: 'Replace', path: 'userName', value: 'new@x' },
            { op: 'Replace', path: 'active', value: 'False' },
          ],
        },
      });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }),
        body: expect.objectContaining({ id, userName: 'upn.before@example.com', active: false }),
      });
      expect(await deps.store.users.findById(tenantId, id)).toMatchObject({ username: 'upn.before@example.com', status: 'disabled' });
    });

    it.each([
      ['a path of an attribute not stored', { op: 'Replace', path: 'title', value: 'Engineer' }],
      ['a value filter path of one', { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+44 20 7946 0000' }],
      [
        'an enterprise extension path',
        { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'R&D' },
      ],
      ['a key of a path-less value', { op: 'replace', value: { title: 'Engineer', displayName: 'Ada E' } }],
    ])('ignores %s and applies the rest', async (_, operation) => {
      const { id } = await provision(`ignored-${Math.random().toString(36).slice(2, 8)}`);
      const response = await scim('scimPatchUser', {
        pathParameters: { userId: id },
        body: { schemas: [PATCH], Operations: [operation, { op: 'Replace', path: 'displayName', value: 'Ada E' }] },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ displayName: 'Ada E', active: true });
      expect(response.body).not.toHaveProperty('title');
      expect(Object.keys(response.body).sort()).toEqual(
        ['schemas', 'id', 'userName', 'name', 'displayName', 'emails', 'active', 'groups', COMMERCE, 'meta'].sort(),
      );
    });
  });

  describe('PATCH /Users names attributes regardless of case and URN prefix (RFC 7644 3.10)', () => {
    beforeAll(async () => {
      const shop = await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'annex', name: 'Annex' } });
      expect(shop.status).toBe(201);
    });

    it.each([
      ['a path-less value in another case', { op: 'replace', value: { Active: false } }, { active: false }],
      ['a core-URN path in another case', { op: 'replace', path: `${USER}:Active`, value: false }, { active: false }],
      ['a core-URN key of a path-less value', { op: 'replace', value: { [USER]: { ACTIVE: 'False' } } }, { active: false }],
      [
        'a sub-attribute in another case',
        { op: 'replace', path: 'NAME.GIVENNAME', value: 'Grace' },
        { name: { givenName: 'Grace', familyName: 'Lovelace' } },
      ],
      ['the extension as a path', { op: 'replace', path: COMMERCE, value: { shopId: 'annex' } }, { [COMMERCE]: { shopId: 'annex' } }],
      ['the extension as a key', { op: 'replace', value: { [COMMERCE]: { ShopId: 'annex' } } }, { [COMMERCE]: { shopId: 'annex' } }],
      [
        'the extension in another case',
        { op: 'replace', path: `${COMMERCE.toUpperCase()}:SHOPID`, value: 'annex' },
        { [COMMERCE]: { shopId: 'annex' } },
      ],
    ])('applies %s', async (_, operation, expected) => {
      const { id } = await provision(`canonical-${Math.random().toString(36).slice(2, 8)}`);
      const response = await scim('scimPatchUser', { pathParameters: { userId: id }, body: { schemas: [PATCH], Operations: [operation] } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ ...expected, meta: { version: 'W/"1"' } });
      expect((await scim('scimReadUser', { pathParameters: { userId: id } })).body).toEqual(response.body);
    });
  });

  describe('PATCH /Users removing emails', () => {
    it('removes the work email by its value path, the user then without email; the same remove again changes nothing', async () => {
      const { id } = await provision(`no-email-${Math.random().toString(36).slice(2, 8)}`);
      const remove = { schemas: [PATCH], Operations: [{ op: 'remove', path: 'emails[type eq "work"].value' }] };
      const removed = await scim('scimPatchUser', { pathParameters: { userId: id }, body: remove });
      expect(removed.status).toBe(200);
      expect(removed.body).not.toHaveProperty('emails');
      expect(removed.body.meta.version).toBe('W/"1"');
      expect((await deps.store.users.findById(tenantId, id))?.email).toBeUndefined();
      const again = await scim('scimPatchUser', { pathParameters: { userId: id }, body: remove });
      expect(again.status).toBe(200);
      expect(again.body).not.toHaveProperty('emails');
    });

    it('keeps the other emails when the work one is removed', async () => {
      const { id } = await provision(`two-emails-${Math.random().toString(36).slice(2, 8)}`, {
        emails: [
          { value: 'work@example.com', type: 'work', primary: true },
          { value: 'home@example.com', type: 'home' },
        ],
      });
      const removed = await scim('scimPatchUser', {
        pathParameters: { userId: id },
        body: { schemas: [PATCH], Operations: [{ op: 'remove', path: 'emails[type eq "work"].value' }] },
      });
      expect(removed.status).toBe(200);
      expect(removed.body.emails).toEqual([{ value: 'home@example.com', type: 'home' }]);
    });
  });

  describe('errors in SCIM’s shape, never a 500', () => {
    it.each([
      ['a filter on another attribute', { filter: 'displayName eq "x"' }, 'invalidFilter'],
      ['an operator other than eq', { filter: 'userName sw "a"' }, 'invalidFilter'],
      ['or', { filter: 'userName eq "a" or userName eq "b"' }, 'invalidFilter'],
      ['a filter that does not parse', { filter: 'userName eq' }, 'invalidFilter'],
      ['a value that is not a string', { filter: 'userName eq true' }, 'invalidFilter'],
      ['a value filter', { filter: 'emails[type eq "work"]' }, 'invalidFilter'],
    ])('GET /Users answers 400 for %s', async (_, query, scimType) => {
      expect(await scim('scimListUsers', { query })).toEqual({ status: 400, headers: expect.anything(), body: scimError(400, scimType) });
    });

    it.each([
      ['no userName', { schemas: [USER] }, 400, 'invalidValue'],
      ['an email that is not one', newUser('bad-email', { emails: [{ value: 'not an email' }] }), 400, 'invalidValue'],
      ['active that is not a boolean', newUser('bad-active', { active: 'maybe' }), 400, 'invalidValue'],
      ['a shop of no one', newUser('bad-shop', { [COMMERCE]: { shopId: 'no-such-shop' } }), 400, 'invalidValue'],
      ['a body that is not JSON', '{"userName":', 400, 'invalidSyntax'],
      ['an array body', '[]', 400, 'invalidSyntax'],
    ])('POST /Users answers %s with 400', async (_, body, status, scimType) => {
      const response = await scim('scimCreateUser', { body });
      expect(response).toEqual({
        status,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }),
        body: scimError(status, scimType),
      });
    });

    it('answers a duplicate userName (any case) or externalId with 409 uniqueness', async () => {
      await provision('dupe.user', { externalId: 'dupe-ext' });
      expect((await scim('scimCreateUser', { body: newUser('DUPE.user') })).body).toEqual(scimError(409, 'uniqueness'));
      expect((await scim('scimCreateUser', { body: newUser('other.user', { externalId: 'dupe-ext' }) })).body).toEqual(
        scimError(409, 'uniqueness'),
      );
    });

    it.each([
      ['a malformed path', [{ op: 'replace', path: 'nick name', value: 'x' }], 'invalidPath'],
      ['a malformed key of a value', [{ op: 'replace', value: { 'nick name': 'x' } }], 'invalidPath'],
      ['an unknown op', [{ op: 'move', path: 'active', value: true }], 'invalidValue'],
      ['a remove without path', [{ op: 'remove' }], 'noTarget'],
      ['an add without a value', [{ op: 'add', path: 'displayName' }], 'invalidSyntax'],
      ['a bad value', [{ op: 'replace', path: 'active', value: 'perhaps' }], 'invalidValue'],
      ['a filter path that does not parse', [{ op: 'replace', path: 'emails[type eq].value', value: 'x@example.com' }], 'invalidValue'],
      ['no operations', [], 'invalidValue'],
    ])('PATCH /Users answers 400 for %s and changes nothing', async (_, Operations, scimType) => {
      const { id } = await provision(`patch-${scimType}-${Math.random().toString(36).slice(2, 8)}`);
      const before = await deps.store.users.findById(tenantId, id);
      const response = await scim('scimPatchUser', { pathParameters: { userId: id }, body: { schemas: [PATCH], Operations } });
      expect(response).toEqual({ status: 400, headers: expect.anything(), body: scimError(400, scimType) });
      expect(await deps.store.users.findById(tenantId, id)).toEqual(before);
    });

    it('PATCH /Groups refuses a path-less replace of another name: 400 mutability', async () => {
      const response = await scim('scimPatchGroup', {
        pathParameters: { groupId: 'MANAGER' },
        body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { id: 'MANAGER', displayName: 'BOSSES' } }] },
      });
      expect(response).toEqual({ status: 400, headers: expect.anything(), body: scimError(400, 'mutability') });
    });

    it('refuses to create or delete groups', async () => {
      expect(await scim('scimFixedGroups', { method: 'POST', body: { displayName: 'NEW' } })).toEqual({
        status: 403,
        headers: expect.objectContaining({ 'Content-Type': SCIM_JSON }),
        body: scimError(403),
      });
      expect((await scim('scimReadGroup', { pathParameters: { groupId: 'NOPE' } })).status).toBe(404);
    });
  });

  it.each([
    ['Entra ID’s externalId', { op: 'Add', path: 'externalId', value: 'b7c3a1e0-entra-object-id' }],
    ['Okta’s path-less replace of its own id and name', { op: 'replace', value: { id: 'MANAGER', displayName: 'MANAGER' } }],
  ])('PATCH /Groups treats %s as a no-op: 204', async (_, operation) => {
    const before = await scim('scimReadGroup', { pathParameters: { groupId: 'MANAGER' } });
    const response = await scim('scimPatchGroup', {
      pathParameters: { groupId: 'MANAGER' },
      body: { schemas: [PATCH], Operations: [operation] },
    });
    expect(response.status).toBe(204);
    expect(await scim('scimReadGroup', { pathParameters: { groupId: 'MANAGER' } })).toEqual(before);
  });

  it('keeps the role of a user created outside SCIM when a lower group is added: an ADMIN added to MANAGER stays ADMIN', async () => {
    const staff = await registerStaff(app, admin.token, { username: 'admin-outside-scim', password: PASSWORD, role: 'ADMIN', tenantId });
    const joined = await scim('scimPatchGroup', {
      pathParameters: { groupId: 'MANAGER' },
      body: { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: staff.user.id }] }] },
    });
    expect(joined.status).toBe(204);
    expect(await deps.store.users.findById(tenantId, staff.user.id)).toMatchObject({ role: 'ADMIN', scimGroups: ['ADMIN', 'MANAGER'] });
    const admins = await scim('scimReadGroup', { pathParameters: { groupId: 'ADMIN' } });
    expect(admins.body.members).toContainEqual(expect.objectContaining({ value: staff.user.id }));
  });

  it('hands the ADMIN group over in one PATCH: remove the last ADMIN and add another applies the add first', async () => {
    const lone = uniqueTenant('scim-handover');
    const loneAdmin = await registerAdmin(app, lone, 'admin', PASSWORD);
    const successor = await registerStaff(app, loneAdmin.token, {
      username: 'successor',
      password: PASSWORD,
      role: 'MANAGER',
      tenantId: lone,
    });
    const client = scimClient(app, (await scimTokenOf(app, loneAdmin.token)).token);
    const handover = await client('scimPatchGroup', {
      pathParameters: { groupId: 'ADMIN' },
      body: {
        schemas: [PATCH],
        Operations: [
          { op: 'remove', path: `members[value eq "${loneAdmin.user.id}"]` },
          { op: 'add', path: 'members', value: [{ value: successor.user.id }] },
        ],
      },
    });
    expect(handover.status).toBe(204);
    expect((await deps.store.users.findById(lone, successor.user.id))?.role).toBe('ADMIN');
    expect((await deps.store.users.findById(lone, loneAdmin.user.id))?.role).toBe('ANALYST');
  });

  it('keeps the last active ADMIN: 400 mutability', async () => {
    const lone = uniqueTenant('scim-lone');
    const loneAdmin = await registerAdmin(app, lone, 'admin', PASSWORD);
    const client = scimClient(app, (await scimTokenOf(app, loneAdmin.token)).token);
    const userId = loneAdmin.user.id;
    const disable = await client('scimPatchUser', {
      pathParameters: { userId },
      body: { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
    });
    expect(disable).toEqual({
      status: 400,
      headers: expect.anything(),
      body: scimError(400, 'mutability', 'A tenant must keep an active ADMIN'),
    });
    const demote = await client('scimPatchGroup', {
      pathParameters: { groupId: 'ADMIN' },
      body: { schemas: [PATCH], Operations: [{ op: 'remove', path: 'members', value: [{ value: userId }] }] },
    });
    expect(demote.body).toEqual(scimError(400, 'mutability'));
    expect((await client('scimDeleteUser', { pathParameters: { userId } })).body).toEqual(scimError(400, 'mutability'));
    expect((await deps.store.users.findById(lone, userId))?.status).toBe('active');
  });

  it('lists every user of the tenant however created, page by page (1-based startIndex)', async () => {
    const listed = await scim('scimListUsers', { query: { startIndex: '1', count: '2' } });
    expect(listed.body).toMatchObject({ schemas: [LIST], startIndex: 1, itemsPerPage: 2 });
    const all = await scim('scimListUsers', { query: { count: '100' } });
    expect(all.body.totalResults).toBe(all.body.Resources.length);
    expect(all.body.Resources).toContainEqual(
      expect.objectContaining({ id: admin.user.id, userName: 'admin', groups: [expect.objectContaining({ value: 'ADMIN' })] }),
    );
    const second = await scim('scimListUsers', { query: { startIndex: '2', count: '1' } });
    expect(second.body.Resources[0].id).toBe(listed.body.Resources[1].id);
    expect(second.body.totalResults).toBe(listed.body.totalResults);
  });

  it('uses the tenant’s scimDefaultRole for users without a group', async () => {
    const set = await app.request('adminUpdateTenant', { token: admin.token, body: { scimDefaultRole: 'OPERATOR' } });
    expect(set.body.data.tenant.scimDefaultRole).toBe('OPERATOR');
    const created = await provision('default-role');
    expect(created.groups).toEqual([expect.objectContaining({ value: 'OPERATOR' })]);
    await app.request('adminUpdateTenant', { token: admin.token, body: { scimDefaultRole: 'ANALYST' } });
  });

  it('a user disabled over SCIM is refused on the next request of a live access token and at refresh', async () => {
    const staff = await registerStaff(app, admin.token, { username: 'live-staff', password: PASSWORD, role: 'OPERATOR', tenantId });
    expect(await app.identityOf(staff.token)).not.toBeNull();
    const disabled = await scim('scimPatchUser', {
      pathParameters: { userId: staff.user.id },
      body: { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
    });
    expect(disabled.body.active).toBe(false);
    expect(await app.identityOf(staff.token)).toBeNull();
    expect((await app.request('refreshToken', { body: { refreshToken: staff.refreshToken } })).status).toBe(401);
    const trail = await app.request('adminListAudit', { token: admin.token, query: { type: 'admin_user_changed' } });
    expect(trail.body.data.events).toContainEqual(
      expect.objectContaining({
        actor: { type: 'scim', id: expect.any(String) },
        targetUserId: staff.user.id,
        details: { status: 'disabled' },
      }),
    );
  });

  it('applies concurrent PATCHes of one user one after another', async () => {
    const { id } = await provision('concurrent');
    const names = ['One', 'Two', 'Three', 'Four'];
    const answers = await Promise.all(
      names.map((name) =>
        scim('scimPatchUser', {
          pathParameters: { userId: id },
          body: { schemas: [PATCH], Operations: [{ op: 'add', path: 'emails', value: [{ value: `${name}@example.com`, type: name }] }] },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const user = await scim('scimReadUser', { pathParameters: { userId: id } });
    expect(user.body.emails.map((email: { type: string }) => email.type).sort()).toEqual(['Four', 'One', 'Three', 'Two', 'work']);
    expect(user.body.meta.version).toBe('W/"4"');
  });

  it('answers 429 with Retry-After once a token’s budget is spent', async () => {
    const { id, token } = await scimTokenOf(app, admin.token, 'busy');
    const client = scimClient(app, token);
    expect((await client('scimListGroups')).status).toBe(200);
    // The budget's window as 600 requests would leave it (lib/scim/tokens.ts).
    const dynamo = localDynamo();
    await dynamo.doc.send(
      new PutCommand({
        TableName: dynamo.table,
        Item: { ...keys.scimRequests(tenantId, id), attempts: 600, windowStart: Math.floor(deps.clock.now() / 1000) },
      }),
    );
    const refused = await client('scimListGroups');
    expect(refused).toEqual({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': expect.stringMatching(/^\d+$/), 'Content-Type': SCIM_JSON }),
      body: scimError(429, 'tooMany'),
    });
    deps.clock.advance(61);
    expect((await client('scimListGroups')).status).toBe(200);
  });

  it('a token of tenant A sees and changes no user of tenant B: 404', async () => {
    const other = uniqueTenant('scim-b');
    const otherAdmin = await registerAdmin(app, other, 'admin', PASSWORD);
    const victim = otherAdmin.user.id;
    expect((await scim('scimReadUser', { pathParameters: { userId: victim } })).body).toEqual(scimError(404));
    const patch = { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] };
    expect((await scim('scimPatchUser', { pathParameters: { userId: victim }, body: patch })).status).toBe(404);
    expect((await scim('scimReplaceUser', { pathParameters: { userId: victim }, body: newUser('admin') })).status).toBe(404);
    expect((await scim('scimDeleteUser', { pathParameters: { userId: victim } })).status).toBe(404);
    const members = { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: victim }] }] };
    expect((await scim('scimPatchGroup', { pathParameters: { groupId: 'ANALYST' }, body: members })).body).toEqual(
      scimError(400, 'invalidValue'),
    );
    expect(
      (await scim('scimListUsers', { query: { filter: 'userName eq "admin"' } })).body.Resources.map((u: { id: string }) => u.id),
    ).toEqual([admin.user.id]);
    expect(await deps.store.users.findById(other, victim)).toMatchObject({ status: 'active', role: 'ADMIN' });
  });
});
