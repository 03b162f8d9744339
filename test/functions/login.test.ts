import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { deviceCookieName } from '../../lib/abuse/device-token';
import { argon2idHasher } from '../../lib/crypto/password';
import { dynamoStores } from '../../lib/deps';
import { LOGIN_ATTEMPTS } from '../../lib/sessions/sign-in';
import type { Dynamo } from '../../lib/store/dynamo';
import type { DocumentClient } from '../../lib/store/dynamo-client';
import { dynamoAttemptCounter } from '../../lib/store/login-attempts';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { localDynamo } from '../helpers/local-dynamo';

const PASSWORD = 'correct horse battery';

describe('POST /auth/login', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminId: string;

  beforeAll(async () => {
    deps = await testDeps();
    // DynamoDB Local deletes items whose TTL has passed in real time (attempt counters live 15 minutes).
    nearRealTime(deps);
    app = testApp(deps);
    tenantId = uniqueTenant();
    adminId = (await registerAdmin(app, tenantId, 'alice', PASSWORD)).user.id;
  });

  it('answers 200 with the stored user, a signed ES256 access token and a 256-bit refresh token', async () => {
    const response = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
    expect(response.status).toBe(200);
    expect(response.headers['Cache-Control']).toBe('no-store');
    expect(response.body).toEqual({
      success: true,
      data: {
        token: expect.any(String),
        refreshToken: expect.any(String),
        expiresIn: 900,
        user: { id: adminId, username: 'alice', role: 'ADMIN', tenantId, shopId: 'default' },
        deviceToken: expect.stringMatching(/^d1\.test-1\.[\w-]{22}\.\d+\.[\w-]{43}$/),
      },
    });
    // docs/api.md 10: the device token also as a cookie for the login route only, out of scripts' reach.
    expect(response.headers['Set-Cookie']).toBe(
      `${deviceCookieName({ tenantId, username: 'alice' })}=${response.body.data.deviceToken}; Max-Age=31536000; Path=/auth/login; Secure; HttpOnly; SameSite=Strict`,
    );
    const { token, refreshToken } = response.body.data;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: 'test-key-1', typ: 'JWT' });
    const now = Math.floor(deps.clock.now() / 1000);
    expect(decodeJwt(token)).toEqual({
      iss: 'http://localhost:3000',
      aud: 'identity-service',
      sub: adminId,
      username: 'alice',
      role: 'ADMIN',
      tenantId,
      shopId: 'default',
      sid: expect.any(String),
      amr: ['pwd'],
      auth_time: now,
      iat: now,
      exp: now + 900,
      jti: expect.any(String),
    });
    const secret = refreshToken.split('.').at(-1);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(await app.identityOf(token)).toMatchObject({ userId: adminId, tenantId, role: 'ADMIN', amr: ['pwd'] });
  });

  it('finds the user regardless of the case of the username', async () => {
    const response = await app.request('login', { body: { username: 'ALICE', password: PASSWORD, tenantId } });
    expect(response.status).toBe(200);
    expect(response.body.data.user.username).toBe('alice');
  });

  it('answers unknown user and wrong password with the same 401, and logs both without the password', async () => {
    const wrong = await app.request('login', { body: { username: 'alice', password: 'not-the-password', tenantId } });
    const unknown = await app.request('login', { body: { username: 'nobody', password: 'not-the-password', tenantId } });
    for (const response of [wrong, unknown]) {
      expect(response).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: failure('Invalid credentials'),
      });
    }
    expect(deps.logs.filter((line) => line.event === 'login_failed')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tenantId, username: 'alice', reason: 'wrong_password' }),
        expect.objectContaining({ tenantId, username: 'nobody', reason: 'unknown_user' }),
      ]),
    );
    expect(deps.logText()).not.toContain('not-the-password');
  });

  it('refuses an account without a password (imported, provisioned, passkey-only) like a wrong password', async () => {
    const stored = await deps.store.users.findById(tenantId, adminId);
    const id = crypto.randomUUID();
    const created = await deps.store.users.create(
      {
        id,
        tenantId,
        shopId: stored!.shopId,
        username: 'no-password',
        role: 'ANALYST',
        status: 'active',
        createdAt: new Date().toISOString(),
      },
      { createTenant: false },
    );
    expect(created).toBe('created');
    const response = await app.request('login', { body: { username: 'no-password', password: 'any password at all', tenantId } });
    expect(response).toEqual({
      status: 401,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: failure('Invalid credentials'),
    });
    expect(deps.logs.filter((line) => line.event === 'login_failed')).toEqual(
      expect.arrayContaining([expect.objectContaining({ tenantId, username: 'no-password', reason: 'wrong_password' })]),
    );
  });

  it('logs in through the default tenant when no tenantId is given', async () => {
    const local = await testDeps({ DEFAULT_TENANT_ID: tenantId });
    local.clock.set(deps.clock.now());
    const response = await testApp(local).request('login', { body: { username: 'alice', password: PASSWORD } });
    expect(response.status).toBe(200);
    expect(response.body.data.user.tenantId).toBe(tenantId);
  });

  it('never logs a user of tenant A in through tenant B', async () => {
    const other = uniqueTenant();
    await registerAdmin(app, other, 'bob', 'another good password');
    const response = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId: other } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(failure('Invalid credentials'));
  });

  describe('lockout', () => {
    it('answers 429 with Retry-After after 5 failures in 15 minutes, also for the right password, until the window passes', async () => {
      const tenant = uniqueTenant();
      await registerAdmin(app, tenant, 'carol', PASSWORD);
      for (let i = 0; i < 5; i++) {
        const response = await app.request('login', { body: { username: 'carol', password: `wrong-${i}`, tenantId: tenant } });
        expect(response.status).toBe(401);
        deps.clock.advance(60);
      }
      const locked = await app.request('login', { body: { username: 'carol', password: PASSWORD, tenantId: tenant } });
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual(failure('Too many failed attempts'));
      // The window opened 5 minutes ago with the first failure: 10 minutes remain.
      expect(locked.headers['Retry-After']).toBe('600');
      expect(deps.logs.some((line) => line.event === 'login_locked' && line.username === 'carol')).toBe(true);

      deps.clock.advance(600);
      const after = await app.request('login', { body: { username: 'carol', password: PASSWORD, tenantId: tenant } });
      expect(after.status).toBe(200);
    });

    it('counts attempts for unknown usernames too, and per tenant', async () => {
      const tenant = uniqueTenant();
      for (let i = 0; i < 5; i++) await app.request('login', { body: { username: 'ghost', password: 'x', tenantId: tenant } });
      const locked = await app.request('login', { body: { username: 'ghost', password: 'x', tenantId: tenant } });
      expect(locked.status).toBe(429);
      const elsewhere = await app.request('login', { body: { username: 'ghost', password: 'x', tenantId: uniqueTenant() } });
      expect(elsewhere.status).toBe(401);
    });

    it('lets no more than 5 of 20 concurrent wrong guesses reach the password check', async () => {
      const tenant = uniqueTenant();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.request('login', { body: { username: 'dave', password: `guess-${i}`, tenantId: tenant } }),
        ),
      );
      expect(answers.filter((r) => r.status === 401)).toHaveLength(5);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(15);
    });

    it('clears the counter on a successful login', async () => {
      const tenant = uniqueTenant();
      await registerAdmin(app, tenant, 'erin', PASSWORD);
      for (let i = 0; i < 4; i++) await app.request('login', { body: { username: 'erin', password: 'wrong', tenantId: tenant } });
      expect((await app.request('login', { body: { username: 'erin', password: PASSWORD, tenantId: tenant } })).status).toBe(200);
      for (let i = 0; i < 4; i++) await app.request('login', { body: { username: 'erin', password: 'wrong', tenantId: tenant } });
      expect((await app.request('login', { body: { username: 'erin', password: PASSWORD, tenantId: tenant } })).status).toBe(200);
    });
  });

  /** The table, with the name of every command sent to it recorded, in order. */
  function recordedDynamo(): { dynamo: Dynamo; sent: string[] } {
    const real = localDynamo();
    const sent: string[] = [];
    const send = (command: object) => {
      sent.push(command.constructor.name);
      return real.doc.send(command as never);
    };
    return { dynamo: { doc: { send } as unknown as DocumentClient, table: real.table }, sent };
  }

  describe('attempt counter', () => {
    it('reserves with one write when there is no counter, when its window has passed, and when it is full; two below the limit', async () => {
      const { dynamo, sent } = recordedDynamo();
      const counter = dynamoAttemptCounter(dynamo);
      const key = { kind: 'login', tenantId: uniqueTenant(), username: 'gina' } as const;
      const start = Math.floor(Date.now() / 1000);
      const at = (now: number) => {
        sent.length = 0;
        return counter.reserve(key, now, LOGIN_ATTEMPTS);
      };
      expect(await at(start)).toEqual({ allowed: true, remaining: 4 });
      expect(sent).toEqual(['PutCommand']);
      for (let i = 1; i < 5; i++) {
        expect(await at(start + i)).toEqual({ allowed: true, remaining: 4 - i });
        expect(sent).toEqual(['PutCommand', 'UpdateCommand']);
      }
      expect(await at(start + 10)).toEqual({ allowed: false, retryAfterSeconds: 15 * 60 - 10 });
      expect(sent).toEqual(['PutCommand']);
      expect(await at(start + 15 * 60)).toEqual({ allowed: true, remaining: 4 });
      expect(sent).toEqual(['PutCommand']);
    });

    it('opens a new window once the old one has passed, counting from this attempt', async () => {
      const counter = dynamoAttemptCounter(recordedDynamo().dynamo);
      const key = { kind: 'login', tenantId: uniqueTenant(), username: 'hank' } as const;
      const start = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 5; i++)
        expect(await counter.reserve(key, start + i, LOGIN_ATTEMPTS)).toEqual({ allowed: true, remaining: 4 - i });
      expect(await counter.reserve(key, start + 899, LOGIN_ATTEMPTS)).toEqual({ allowed: false, retryAfterSeconds: 1 });
      expect(await counter.reserve(key, start + 900, LOGIN_ATTEMPTS)).toEqual({ allowed: true, remaining: 4 });
      for (let i = 1; i < 5; i++)
        expect(await counter.reserve(key, start + 900 + i, LOGIN_ATTEMPTS)).toEqual({ allowed: true, remaining: 4 - i });
      expect(await counter.reserve(key, start + 910, LOGIN_ATTEMPTS)).toEqual({ allowed: false, retryAfterSeconds: 890 });
    });
  });

  it('makes the same database calls for an unknown user as for a wrong password (reads of nobody for the unknown one)', async () => {
    const { dynamo, sent } = recordedDynamo();
    const recorded = testApp({ ...deps, store: dynamoStores(dynamo, deps) });
    const tenant = uniqueTenant();
    await registerAdmin(app, tenant, 'ivan', PASSWORD);
    const calls = async (username: string) => {
      sent.length = 0;
      // An address of its own, so that the count of failures per source starts afresh for both.
      const sourceIp = `198.51.100.${sent.length + (username === 'ivan' ? 1 : 2)}`;
      const response = await recorded.request('login', { body: { username, password: 'not the password', tenantId: tenant }, sourceIp });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Invalid credentials') });
      return [...sent].sort();
    };
    const wrongPassword = await calls('ivan');
    // The three windows of the unknown sources' budget, the user, the source's count (read,
    // then a failure counted), the MFA methods of the user or of nobody, and the audit
    // event of the failure (docs/api.md 9.8) beside its published one (docs/events.md).
    expect(wrongPassword).toEqual([
      'GetCommand',
      'GetCommand',
      'GetCommand',
      'PutCommand',
      'PutCommand',
      'PutCommand',
      'PutCommand',
      'PutCommand',
      'QueryCommand',
      'TransactWriteCommand',
    ]);
    expect(await calls('nobody-here')).toEqual(wrongPassword);
  });

  it('clears the counter and writes the session after a right password, and reads the MFA methods during the hash', async () => {
    const { dynamo, sent } = recordedDynamo();
    const recorded = testApp({ ...deps, store: dynamoStores(dynamo, deps) });
    const tenant = uniqueTenant();
    await registerAdmin(app, tenant, 'judy', PASSWORD);
    expect((await recorded.request('login', { body: { username: 'judy', password: 'wrong', tenantId: tenant } })).status).toBe(401);
    sent.length = 0;
    expect((await recorded.request('login', { body: { username: 'judy', password: PASSWORD, tenantId: tenant } })).status).toBe(200);
    // Reserve in the three windows (a write, then the count in the open window) alongside
    // the user lookup and the source's count, the MFA methods alongside the hash, then
    // the three windows cleared in one BatchWriteItem alongside the session write (a
    // transaction with its published event, docs/events.md) and the audit event (docs/api.md 9.8).
    expect([...sent].sort()).toEqual([
      'BatchWriteCommand',
      'GetCommand',
      'GetCommand',
      'GetCommand',
      'PutCommand',
      'PutCommand',
      'PutCommand',
      'PutCommand',
      'QueryCommand',
      'TransactWriteCommand',
      'UpdateCommand',
      'UpdateCommand',
      'UpdateCommand',
    ]);
    expect(sent.slice(-3).sort()).toEqual(['BatchWriteCommand', 'PutCommand', 'TransactWriteCommand']);
    for (let i = 0; i < 4; i++)
      expect((await recorded.request('login', { body: { username: 'judy', password: 'wrong', tenantId: tenant } })).status).toBe(401);
    expect((await recorded.request('login', { body: { username: 'judy', password: PASSWORD, tenantId: tenant } })).status).toBe(200);
  });

  it('rehashes a password stored with older Argon2id parameters on login', async () => {
    // Hashing is the subject here: the production parameters (OWASP_ARGON2ID).
    const production = nearRealTime(await testDeps({}, { productionHashing: true }));
    const hashing = testApp(production);
    const tenant = uniqueTenant();
    const { user } = await registerAdmin(hashing, tenant, 'frank', PASSWORD);
    const stored = await production.store.users.findById(tenant, user.id);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const weak = await argon2idHasher({ memoryCost: 4096, timeCost: 1, parallelism: 1 }).hash(PASSWORD);
    expect(await production.store.users.replacePasswordHash(stored!, stored!.passwordHash!, weak)).toBe(true);

    expect((await hashing.request('login', { body: { username: 'frank', password: PASSWORD, tenantId: tenant } })).status).toBe(200);
    const upgraded = await production.store.users.findById(tenant, user.id);
    expect(upgraded?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it.each([
    [{}, 'username: Invalid input: expected string, received undefined'],
    [{ username: '', password: 'x' }, 'username: Too small: expected string to have >=1 characters'],
    [{ username: 'a' }, 'password: Invalid input: expected string, received undefined'],
    [{ username: 'a', password: '' }, 'password: Too small: expected string to have >=1 characters'],
    [{ username: 'a', password: 'x', tenantId: 5 }, 'tenantId: Invalid input: expected string, received number'],
    [{ username: 'a', password: 'x', mfaMethod: 'PIGEON' }, 'mfaMethod: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"|"RECOVERY"'],
  ])('answers 400 for %j', async (body, error) => {
    const response = await app.request('login', { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(failure(error));
  });
});
