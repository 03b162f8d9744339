import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { NOT_CANONICAL_ID } from '../../lib/http/schemas';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

const PASSWORD = 'correct horse battery';

describe('POST /auth/register', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant();
    adminToken = (await registerAdmin(app, tenantId, 'root', PASSWORD)).token;
  });

  it('answers 201 with a real session of their own for the first ADMIN of a new tenant (anonymous bootstrap)', async () => {
    const tenant = uniqueTenant();
    const response = await app.request('register', {
      body: { username: 'Owner', password: PASSWORD, role: 'ADMIN', tenantId: tenant, shopId: 'shop-1', email: 'owner@example.com' },
    });
    expect(response.status).toBe(201);
    expect(response.headers['Cache-Control']).toBe('no-store');
    expect(response.body).toEqual({
      success: true,
      data: {
        token: expect.any(String),
        refreshToken: expect.any(String),
        expiresIn: 900,
        user: { id: expect.any(String), username: 'Owner', role: 'ADMIN', tenantId: tenant, shopId: 'shop-1' },
        // docs/api.md 10: the bootstrap signed in from this device, as a login does.
        deviceToken: expect.stringMatching(/^d1\./),
      },
    });
    expect(response.headers['Set-Cookie']).toMatch(
      /^__Secure-device-[\w-]{16}=d1\.[^;]+; Max-Age=31536000; Path=\/auth\/login; Secure; HttpOnly; SameSite=Strict$/,
    );
    expect(await app.identityOf(response.body.data.token)).toMatchObject({ userId: response.body.data.user.id, tenantId: tenant });
    const stored = await deps.store.users.findById(tenant, response.body.data.user.id);
    expect(stored).toMatchObject({ email: 'owner@example.com', status: 'active' });
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(response.body)).not.toContain('argon2');
    expect(deps.logs).toContainEqual(
      expect.objectContaining({ event: 'user_registered', tenantId: tenant, newTenant: true, registeredBy: 'self' }),
    );
  });

  it('uses the configured default shop and invents no email', async () => {
    const tenant = uniqueTenant();
    const { user } = await registerAdmin(app, tenant, 'plain', PASSWORD);
    expect(user.shopId).toBe('default');
    expect((await deps.store.users.findById(tenant, user.id))?.email).toBeUndefined();
  });

  it('lets an ADMIN register any role into their own tenant, with no session of the new user', async () => {
    const response = await app.request('register', {
      token: adminToken,
      body: { username: 'finance-1', password: PASSWORD, role: 'FINANCE', tenantId },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      data: {
        token: '',
        refreshToken: '',
        expiresIn: 0,
        user: { id: expect.any(String), username: 'finance-1', role: 'FINANCE', tenantId, shopId: 'default' },
      },
    });
    const userId: string = response.body.data.user.id;
    expect(await deps.store.sessions.listByUser(tenantId, userId)).toEqual([]);
    // The staff member's own login is their first session, and the listing sees it.
    const login = await app.request('login', { body: { username: 'finance-1', password: PASSWORD, tenantId } });
    expect(login.status).toBe(200);
    expect((await deps.store.sessions.listByUser(tenantId, userId)).map((session) => session.id)).toEqual([
      decodeJwt(login.body.data.token).sid,
    ]);
    // The ADMIN's session is still theirs.
    expect(await app.identityOf(adminToken)).toMatchObject({ username: 'root', role: 'ADMIN' });
  });

  describe('who may register whom', () => {
    it.each([
      ['anonymous into an existing tenant', undefined, () => ({ tenantId, role: 'ADMIN' })],
      ['anonymous into an existing tenant, even with bad input', undefined, () => ({ tenantId, role: 'KING', password: '1' })],
      ['an ADMIN into another tenant', 'admin', () => ({ tenantId: uniqueTenant(), role: 'OPERATOR' })],
      ['a non-ADMIN into their own tenant', 'operator', () => ({ tenantId, role: 'OPERATOR' })],
      ['a non-ADMIN with bad input', 'operator', () => ({ tenantId, role: 'OPERATOR', password: '' })],
    ] as const)('answers 403 Permission denied for %s', async (_, caller, body) => {
      let token: string | undefined;
      if (caller === 'admin') token = adminToken;
      if (caller === 'operator') {
        token = (await registerStaff(app, adminToken, { username: `op-${Math.random()}`, password: PASSWORD, role: 'OPERATOR', tenantId }))
          .token;
      }
      const response = await app.request('register', { token, body: { username: 'mallory', password: PASSWORD, ...body() } });
      expect(response).toMatchObject({ status: 403, body: failure('Permission denied') });
    });

    it('treats the configured default tenant as existing: its first ADMIN is made by an operator', async () => {
      const defaultTenant = uniqueTenant('default');
      const local = await testDeps({ DEFAULT_TENANT_ID: defaultTenant });
      const localApp = testApp(local);
      const anonymous = await localApp.request('register', {
        body: { username: 'first', password: PASSWORD, role: 'ADMIN', tenantId: defaultTenant },
      });
      expect(anonymous).toMatchObject({ status: 403, body: failure('Permission denied') });

      const { createUser } = await import('../../lib/users/register');
      const admin = await createUser(local, null, { username: 'ops-admin', password: PASSWORD, role: 'ADMIN', tenantId: defaultTenant });
      expect(admin).toMatchObject({ tenantId: defaultTenant, role: 'ADMIN', username: 'ops-admin' });
      const login = await localApp.request('login', { body: { username: 'ops-admin', password: PASSWORD } });
      expect(login.body.data.user).toEqual({
        id: admin.id,
        username: 'ops-admin',
        role: 'ADMIN',
        tenantId: defaultTenant,
        shopId: 'default',
      });
    });

    it('refuses to make an anonymous caller anything but ADMIN of a new tenant', async () => {
      const tenant = uniqueTenant();
      const response = await app.request('register', { body: { username: 'x', password: PASSWORD, role: 'OPERATOR', tenantId: tenant } });
      expect(response).toMatchObject({ status: 400, body: failure('The first user of a tenant must have role ADMIN') });
      expect(await deps.store.tenants.exists(tenant)).toBe(false);
    });

    it('lets exactly one of two anonymous callers claim a new tenant at once', async () => {
      const tenant = uniqueTenant();
      const answers = await Promise.all(
        ['first', 'second'].map((username) =>
          app.request('register', { body: { username, password: PASSWORD, role: 'ADMIN', tenantId: tenant } }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, 403]);
    });
  });

  it('answers 400 Username already exists, ignoring case, and changes nothing', async () => {
    const response = await app.request('register', {
      token: adminToken,
      body: { username: 'ROOT', password: 'another fine password', role: 'OPERATOR', tenantId },
    });
    expect(response).toMatchObject({ status: 400, body: failure('Username already exists') });
    const login = await app.request('login', { body: { username: 'root', password: PASSWORD, tenantId } });
    expect(login.status).toBe(200);
    expect(login.body.data.user.role).toBe('ADMIN');
  });

  it('creates exactly one user when 50 registrations of one username race', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        app.request('register', {
          token: adminToken,
          body: { username: 'racer', password: `${PASSWORD} ${i}`, role: 'ANALYST', tenantId },
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 400 && r.body.error === 'Username already exists')).toHaveLength(49);
  });

  it('allows the same username in another tenant', async () => {
    const other = uniqueTenant();
    const response = await app.request('register', { body: { username: 'root', password: PASSWORD, role: 'ADMIN', tenantId: other } });
    expect(response.status).toBe(201);
  });

  it.each(['password', 'qwerty123', 'Iloveyou', 'football1'])('answers 400 Password is too common for %s', async (password) => {
    const response = await app.request('register', { body: { username: 'u', password, role: 'ADMIN', tenantId: uniqueTenant() } });
    expect(response).toMatchObject({ status: 400, body: failure('Password is too common') });
  });

  it.each([
    [{ password: 'short' }, 'password: Too small: expected string to have >=6 characters'],
    [{ password: 'x'.repeat(129) }, 'password: Too big: expected string to have <=128 characters'],
    [{ role: 'KING' }, 'role: Invalid option: expected one of "ADMIN"|"MANAGER"|"OPERATOR"|"FINANCE"|"SOURCING"|"LOGISTICS"|"ANALYST"'],
    [{ username: '' }, 'username: Too small: expected string to have >=1 characters'],
    [{ tenantId: '' }, 'tenantId: Too small: expected string to have >=1 characters'],
    [{ email: 'not-an-email' }, 'email: Invalid email address'],
    [{ shopId: 7 }, 'shopId: Invalid input: expected string, received number'],
  ])('answers 400 for %j', async (override, error) => {
    const body = { username: 'v', password: PASSWORD, role: 'ADMIN', tenantId: uniqueTenant(), ...override };
    const response = await app.request('register', { body });
    expect(response).toMatchObject({ status: 400, body: failure(error) });
  });

  it('keeps key separators in a username from reaching another record, and refuses them in a tenant id (docs/api.md 10.2)', async () => {
    const tenantId = uniqueTenant();
    const username = 'hash#USER#x';
    const response = await app.request('register', { body: { username, password: PASSWORD, role: 'ADMIN', tenantId } });
    expect(response.status).toBe(201);
    expect(response.body.data.user).toMatchObject({ tenantId, username });
    const separators = await app.request('register', {
      body: { username: 'hash', password: PASSWORD, role: 'ADMIN', tenantId: `${uniqueTenant()}#USER#x` },
    });
    expect([separators.status, separators.body]).toEqual([400, failure(`tenantId: ${NOT_CANONICAL_ID}`)]);
    const login = await app.request('login', { body: { username, password: PASSWORD, tenantId } });
    expect(login.status).toBe(200);
  });
});
