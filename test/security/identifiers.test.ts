import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config';
import { NOT_CANONICAL_ID, TOO_LONG_NORMALIZED } from '../../lib/http/schemas';
import type { User } from '../../lib/users/user';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

/**
 * Identifiers (docs/api.md 10.2) are bounded after NFKC, the
 * form the table's keys use, in characters and UTF-8 bytes; tenant and shop ids are
 * canonical. Before, 128 × U+FDFA (4,224 bytes after NFKC) made login and register
 * answer 500, and `ACME`, `Default` or full-width look-alikes were tenants of their own.
 */
const PASSWORD = 'correct horse battery';
/** Each expands under NFKC: U+FDFA to 18 characters (33 bytes), U+3316 to 6, ﬃ to 3, ㍻ (U+337B) to 2. */
const EXPANDING = ['\uFDFA'.repeat(128), '\u3316'.repeat(128), '\uFB03'.repeat(100), `${'\u337B'.repeat(64)}x`];

describe('identifiers that grow under Unicode normalization', () => {
  let app: App;
  let adminToken: string;
  let tenantId: string;
  beforeAll(async () => {
    app = testApp(await testDeps());
    tenantId = uniqueTenant('expand');
    adminToken = (await registerAdmin(app, tenantId)).token;
  });

  it.each(EXPANDING.map((username) => [username.slice(0, 1), username]))(
    'login with a username of %s that expands answers 400, never 500',
    async (_, username) => {
      const response = await app.request('login', { body: { username, password: PASSWORD, tenantId } });
      expect([response.status, response.body]).toEqual([400, failure(`username: ${TOO_LONG_NORMALIZED}`)]);
    },
  );

  it.each(EXPANDING.map((username) => [username.slice(0, 1), username]))(
    'register (anonymous and by an ADMIN) with a username of %s that expands answers 400 and stores nothing',
    async (_, username) => {
      const fresh = uniqueTenant('expand-new');
      const anonymous = await app.request('register', { body: { username, password: PASSWORD, role: 'ADMIN', tenantId: fresh } });
      expect([anonymous.status, anonymous.body]).toEqual([400, failure(`username: ${TOO_LONG_NORMALIZED}`)]);
      const byAdmin = await app.request('register', {
        token: adminToken,
        body: { username, password: PASSWORD, role: 'MANAGER', tenantId },
      });
      expect([byAdmin.status, byAdmin.body]).toEqual([400, failure(`username: ${TOO_LONG_NORMALIZED}`)]);
      expect(
        (await app.request('register', { body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId: fresh } })).status,
      ).toBe(201);
    },
  );

  it('takes a username that expands within the bounds, and compares it after NFKC', async () => {
    const username = '\uFDFA'.repeat(7); // 126 characters, 231 bytes after NFKC
    const created = await app.request('register', { token: adminToken, body: { username, password: PASSWORD, role: 'MANAGER', tenantId } });
    expect(created.status).toBe(201);
    const login = await app.request('login', { body: { username: username.normalize('NFKC'), password: PASSWORD, tenantId } });
    expect(login.status).toBe(200);
  });
});

describe('tenant and shop ids in canonical form', () => {
  let app: App;
  let deps: TestDeps;
  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  const refused = ['ACME', 'Default', 'ｄｅｆａｕｌｔ', 'ab', 'a'.repeat(64), '-acme', 'acme-', 'ac_me', 'ac me', 'acme.shop', 'acmé'];

  it.each(refused)('register refuses the tenant id %j with 400 and a message saying the form', async (tenantId) => {
    const response = await app.request('register', { body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId } });
    expect([response.status, response.body]).toEqual([400, failure(`tenantId: ${NOT_CANONICAL_ID}`)]);
  });

  it.each(refused)(
    'login takes the tenant id %j of the form before the rule: an unknown tenant is Invalid credentials',
    async (tenantId) => {
      const response = await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
      expect([response.status, response.body]).toEqual([401, failure('Invalid credentials')]);
    },
  );

  it('lets a tenant created before the rule sign in, reset, and register staff: only new tenants must be canonical', async () => {
    const tenantId = `Legacy_${randomBytes(4).toString('hex')}`;
    const admin: User = {
      id: deps.random.id(),
      tenantId,
      shopId: 'Main Shop',
      username: 'admin',
      role: 'ADMIN',
      passwordHash: await deps.hasher.hash(PASSWORD),
      status: 'active',
      createdAt: new Date(deps.clock.now()).toISOString(),
    };
    expect(await deps.store.users.create(admin, { createTenant: true })).toBe('created');
    const login = await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
    expect(login.status).toBe(200);
    expect(login.body.data.user).toMatchObject({ tenantId, shopId: 'Main Shop' });
    expect((await app.request('passwordForgot', { body: { username: 'admin', tenantId } })).status).toBe(202);
    const staff = await app.request('register', {
      token: login.body.data.token,
      body: { username: 'clerk', password: PASSWORD, role: 'OPERATOR', tenantId },
    });
    expect(staff.status).toBe(201);
    // Nobody can bootstrap it again, nor a new tenant of that form.
    const again = await app.request('register', { body: { username: 'other', password: PASSWORD, role: 'ADMIN', tenantId } });
    expect(again.body).toEqual(failure('Permission denied'));
  });

  it.each(refused)('register refuses the shop id %j with 400', async (shopId) => {
    const tenantId = uniqueTenant('shop');
    const response = await app.request('register', { body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId, shopId } });
    expect([response.status, response.body]).toEqual([400, failure(`shopId: ${NOT_CANONICAL_ID}`)]);
  });

  it('takes canonical ids at both ends of the length range', async () => {
    const shortest = `t${randomBytes(1).toString('hex')}`.slice(0, 3);
    const longest = uniqueTenant('t'.repeat(52));
    expect([shortest.length, longest.length]).toEqual([3, 63]);
    for (const tenantId of [shortest, longest]) {
      const response = await app.request('register', {
        body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId, shopId: 'shop-1' },
      });
      expect([tenantId, response.status]).toEqual([tenantId, 201]);
      expect(response.body.data.user).toMatchObject({ tenantId, shopId: 'shop-1' });
    }
  });

  it('names each field once in fields: a tenant id too short is not also reported as not canonical', async () => {
    const response = await app.request('login', { body: { username: 'alice', password: '', tenantId: '' } });
    expect(response.status).toBe(400);
    expect(response.body.fields.map((field: { path: string }) => field.path).sort()).toEqual(['password', 'tenantId']);
    const long = await app.request('register', {
      body: { username: '\uFDFA'.repeat(129), password: PASSWORD, role: 'ADMIN', tenantId: 'x'.repeat(129) },
    });
    expect(long.body.fields.map((field: { path: string }) => field.path)).toEqual(['username', 'tenantId']);
  });

  it('refuses a default tenant or shop id that is not canonical at cold start, naming the variable', () => {
    expect(() => readConfig({ DEFAULT_TENANT_ID: 'Default' })).toThrow(/DEFAULT_TENANT_ID must be 3 to 63 lower-case letters/);
    expect(() => readConfig({ DEFAULT_SHOP_ID: 'Main Shop' })).toThrow(/DEFAULT_SHOP_ID must be 3 to 63 lower-case letters/);
    expect(readConfig({}).defaultTenantId).toBe('default');
  });
});
