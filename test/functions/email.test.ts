import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

const PASSWORD = 'correct horse battery';
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('PUT /auth/email and POST /auth/email/verify (docs/api.md 8.8)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  async function newUser() {
    const tenantId = uniqueTenant('email');
    const { token, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    return { tenantId, token, userId: user.id };
  }
  const sentCode = async (tenantId: string, userId: string) =>
    (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'verify-email'))?.code ?? '';
  const stored = async (tenantId: string, userId: string) => {
    const user = await deps.store.users.findById(tenantId, userId);
    return { email: user?.email, emailVerified: user?.emailVerified };
  };

  it('stores the address unverified, normalised, sends a code, and the code verifies it once', async () => {
    const { tenantId, token, userId } = await newUser();
    const set = await app.request('emailSet', { token, body: { email: '  Alice@Example.COM ' } });
    expect(set).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: { success: true, data: { message: 'Verification code sent', email: 'alice@example.com', emailVerified: false } },
    });
    expect(await stored(tenantId, userId)).toEqual({ email: 'alice@example.com', emailVerified: false });
    const code = await sentCode(tenantId, userId);
    expect(await deps.outbox.latest(tenantId, userId, 'EMAIL', 'verify-email')).toMatchObject({ destination: 'alice@example.com' });
    const record = await deps.store.accountCodes.find({ purpose: 'verify-email', tenantId, userId });
    expect(JSON.stringify(record)).not.toContain(code);

    expect(await app.request('emailVerify', { token, body: { code: wrong(code) } })).toEqual({
      status: 400,
      headers: expect.any(Object),
      body: failure('Invalid verification code'),
    });
    expect(await app.request('emailVerify', { token, body: { code } })).toEqual({
      status: 200,
      headers: expect.any(Object),
      body: { success: true, data: { message: 'Email verified' } },
    });
    expect(await stored(tenantId, userId)).toEqual({ email: 'alice@example.com', emailVerified: true });
    expect((await app.request('emailVerify', { token, body: { code } })).body).toEqual(failure('Invalid verification code'));
  });

  it('verifies the address given at registration with the code sent then', async () => {
    const tenantId = uniqueTenant('email');
    const registered = await app.request('register', {
      body: { username: 'bob', password: PASSWORD, role: 'ADMIN', tenantId, email: 'bob@example.com' },
    });
    expect(registered.status).toBe(201);
    const { token, user } = registered.body.data;
    expect(await stored(tenantId, user.id)).toEqual({ email: 'bob@example.com', emailVerified: false });
    const code = await sentCode(tenantId, user.id);
    expect((await app.request('emailVerify', { token, body: { code } })).status).toBe(200);
    expect(await stored(tenantId, user.id)).toEqual({ email: 'bob@example.com', emailVerified: true });
    // GET /auth/account answers what the record holds (docs/api.md 8.5).
    const { account } = (await app.request('getAccount', { token })).body.data;
    expect(account).toMatchObject({ email: 'bob@example.com', emailVerified: true });
  });

  it('answers 400 Invalid verification code for an expired code, without a code sent, and after 5 tries', async () => {
    const { tenantId, token, userId } = await newUser();
    expect((await app.request('emailVerify', { token, body: { code: '123456' } })).body).toEqual(failure('Invalid verification code'));
    await app.request('emailSet', { token, body: { email: 'alice@example.com' } });
    const expired = await sentCode(tenantId, userId);
    deps.clock.advance(600);
    expect((await app.request('emailVerify', { token, body: { code: expired } })).body).toEqual(failure('Invalid verification code'));
    // A new code (the session is no longer recent: reauthenticate first).
    expect((await app.request('reauthenticate', { token, body: { password: PASSWORD } })).status).toBe(200);
    await app.request('emailSet', { token, body: { email: 'alice@example.com' } });
    const code = await sentCode(tenantId, userId);
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await app.request('emailVerify', { token, body: { code: wrong(code) } })).body).toEqual(failure('Invalid verification code'));
    expect((await app.request('emailVerify', { token, body: { code } })).body).toEqual(failure('Invalid verification code'));
    expect((await stored(tenantId, userId)).emailVerified).toBe(false);
  });

  it('refuses a code sent to an address the user has since replaced', async () => {
    const { tenantId, token, userId } = await newUser();
    await app.request('emailSet', { token, body: { email: 'first@example.com' } });
    const first = await sentCode(tenantId, userId);
    deps.clock.advance(31);
    await app.request('emailSet', { token, body: { email: 'second@example.com' } });
    expect((await app.request('emailVerify', { token, body: { code: first } })).body).toEqual(failure('Invalid verification code'));
    expect(await stored(tenantId, userId)).toEqual({ email: 'second@example.com', emailVerified: false });
  });

  it('sends at most one code per 30 s: 429 Too many requests with Retry-After', async () => {
    const { token } = await newUser();
    expect((await app.request('emailSet', { token, body: { email: 'a@example.com' } })).status).toBe(200);
    deps.clock.advance(10);
    expect(await app.request('emailSet', { token, body: { email: 'b@example.com' } })).toEqual({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': '20' }),
      body: failure('Too many requests'),
    });
  });

  it.each([
    [{ email: 'not an address' }, 'email: Invalid email address'],
    [{ email: `${'a'.repeat(250)}@example.com` }, 'email: Too big: expected string to have <=254 characters'],
    [{}, 'email: Invalid input: expected string, received undefined'],
  ])('answers 400 for %j', async (body, message) => {
    const { token } = await newUser();
    expect(await app.request('emailSet', { token, body })).toEqual({ status: 400, headers: expect.any(Object), body: failure(message) });
  });

  it('answers 403 Recent authentication required for a session older than 10 minutes, before validation', async () => {
    const { token } = await newUser();
    deps.clock.advance(601);
    expect(await app.request('emailSet', { token, body: {} })).toEqual({
      status: 403,
      headers: expect.any(Object),
      body: failure('Recent authentication required'),
    });
  });

  it('answers 401 Unauthorized without a session', async () => {
    expect((await app.request('emailSet', { body: { email: 'a@example.com' } })).body).toEqual(failure('Unauthorized'));
    expect((await app.request('emailVerify', { body: { code: '123456' } })).body).toEqual(failure('Unauthorized'));
  });
});
