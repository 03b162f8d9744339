import { URI } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateTotp, authenticator, newTotpSecret } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';
const PHONE = '+4915112345678';

describe('POST /auth/mfa/enable', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  /** A new tenant's admin: a user without MFA and a session. */
  async function newUser(username = 'alice') {
    const tenantId = uniqueTenant();
    const { token, user } = await registerAdmin(app, tenantId, username, PASSWORD);
    return { tenantId, token, userId: user.id };
  }

  it('stores TOTP as pending, sealed, and answers with an otpauth URI authenticator apps accept', async () => {
    const { tenantId, token, userId } = await newUser();
    const secret = newTotpSecret();
    const response = await app.request('enableMFA', { token, body: { method: 'TOTP', secret } });
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: {
        success: true,
        data: {
          message: 'MFA enabled successfully',
          method: 'TOTP',
          status: 'pending',
          otpauthUri: expect.stringMatching(/^otpauth:\/\/totp\//),
        },
      },
    });
    const uri = URI.parse(response.body.data.otpauthUri);
    expect(uri).toMatchObject({ issuer: 'Identity Service', label: `alice (${tenantId})`, algorithm: 'SHA1', digits: 6, period: 30 });
    expect(uri.secret.base32).toBe(secret);

    const stored = await deps.store.mfa.find(tenantId, userId, 'TOTP');
    expect(stored).toEqual({
      tenantId,
      userId,
      method: 'TOTP',
      status: 'pending',
      createdAt: expect.any(Number),
      sealedSecret: expect.stringMatching(/^v2\./),
    });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(deps.logs).toContainEqual(
      expect.objectContaining({ event: 'mfa_enabled', tenantId, userId, username: 'alice', method: 'TOTP' }),
    );
    expect(deps.logText()).not.toContain(secret);
  });

  it('normalises a secret typed in groups and lower case', async () => {
    const { token } = await newUser();
    const secret = newTotpSecret();
    const typed = secret.toLowerCase().replace(/(.{4})/g, '$1 ');
    const response = await app.request('enableMFA', { token, body: { method: 'TOTP', secret: typed } });
    expect(response.status).toBe(200);
    expect(URI.parse(response.body.data.otpauthUri).secret.base32).toBe(secret);
  });

  it.each([
    ['SMS', PHONE, /^\*+78$/],
    ['EMAIL', 'alice@example.com', /^a\*\*\*@example\.com$/],
  ] as const)(
    'stores %s as pending and sends a 6-digit code valid 10 minutes, logged without code or destination',
    async (method, destination, masked) => {
      const { tenantId, token, userId } = await newUser();
      const response = await app.request('enableMFA', { token, body: { method, secret: destination } });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'MFA enabled successfully', method, status: 'pending' } },
      });
      const now = Math.floor(deps.clock.now() / 1000);
      const sent = await deps.outbox.latest(tenantId, userId, method);
      expect(sent).toEqual({ tenantId, userId, method, destination, code: expect.stringMatching(/^\d{6}$/), sentAt: now });

      const stored = await deps.store.mfa.find(tenantId, userId, method);
      expect(stored).toEqual({
        tenantId,
        userId,
        method,
        status: 'pending',
        createdAt: now,
        destination,
        codeDigest: expect.stringMatching(/^v1\./),
        codeSentAt: now,
        codeExpiresAt: now + 600,
      });
      expect(JSON.stringify(stored)).not.toContain(sent?.code);
      expect(deps.logs).toContainEqual(
        expect.objectContaining({
          event: 'mfa_code_sent',
          tenantId,
          userId,
          username: 'alice',
          method,
          destination: expect.stringMatching(masked),
        }),
      );
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'mfa_enabled', tenantId, userId, username: 'alice', method }));
      expect(deps.logText()).not.toContain(sent?.code);
      expect(deps.logText()).not.toContain(destination);
    },
  );

  it('does not change login while the method is pending', async () => {
    const { tenantId, token } = await newUser();
    await app.request('enableMFA', { token, body: { method: 'TOTP', secret: newTotpSecret() } });
    const login = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
    expect(login.status).toBe(200);
  });

  it('replaces a pending method: only the new secret works', async () => {
    const { token } = await newUser();
    const [first, second] = [newTotpSecret(), newTotpSecret()];
    await app.request('enableMFA', { token, body: { method: 'TOTP', secret: first } });
    expect((await app.request('enableMFA', { token, body: { method: 'TOTP', secret: second } })).status).toBe(200);
    const old = await app.request('verifyMFA', { token, body: { method: 'TOTP', code: authenticator(deps, first)() } });
    expect(old.body).toEqual(failure('Invalid MFA code'));
    const fresh = await app.request('verifyMFA', { token, body: { method: 'TOTP', code: authenticator(deps, second)() } });
    expect(fresh.body).toEqual({ success: true, data: { message: 'MFA verified successfully' } });
  });

  it('sends at most one code per 30 seconds: 429 Too many requests with Retry-After', async () => {
    const { tenantId, token, userId } = await newUser();
    await app.request('enableMFA', { token, body: { method: 'SMS', secret: PHONE } });
    const first = await deps.outbox.latest(tenantId, userId, 'SMS');
    deps.clock.advance(10);
    const again = await app.request('enableMFA', { token, body: { method: 'SMS', secret: '+4915187654321' } });
    expect(again).toEqual({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': '20' }),
      body: failure('Too many requests'),
    });
    expect(await deps.outbox.latest(tenantId, userId, 'SMS')).toEqual(first);
    deps.clock.advance(20);
    expect((await app.request('enableMFA', { token, body: { method: 'SMS', secret: '+4915187654321' } })).status).toBe(200);
    expect(await deps.outbox.latest(tenantId, userId, 'SMS')).toMatchObject({ destination: '+4915187654321' });
  });

  describe('once a method is active', () => {
    async function userWithTotp() {
      const user = await newUser();
      const totp = await activateTotp(app, deps, user.token);
      const login = await app.request('login', {
        body: { username: 'alice', password: PASSWORD, tenantId: user.tenantId, mfaCode: totp.code() },
      });
      expect(login.status).toBe(200);
      return { ...user, otpToken: login.body.data.token as string };
    }

    it('answers 409 MFA method already enabled for that method, and keeps it', async () => {
      const { tenantId, userId, otpToken } = await userWithTotp();
      const response = await app.request('enableMFA', { token: otpToken, body: { method: 'TOTP', secret: newTotpSecret() } });
      expect(response).toEqual({ status: 409, headers: expect.any(Object), body: failure('MFA method already enabled') });
      expect(await deps.store.mfa.find(tenantId, userId, 'TOTP')).toMatchObject({ status: 'active' });
    });

    it('adds another method only from a session that passed MFA: 403 MFA_STEP_UP_REQUIRED otherwise, before validation', async () => {
      const { token, otpToken } = await userWithTotp();
      for (const body of [{ method: 'SMS', secret: PHONE }, {}]) {
        const denied = await app.request('enableMFA', { token, body });
        expect(denied).toEqual({ status: 403, headers: expect.any(Object), body: failure('Permission denied', 'MFA_STEP_UP_REQUIRED') });
      }
      const allowed = await app.request('enableMFA', { token: otpToken, body: { method: 'SMS', secret: PHONE } });
      expect(allowed.body).toEqual({ success: true, data: { message: 'MFA enabled successfully', method: 'SMS', status: 'pending' } });
    });
  });

  describe('refusals', () => {
    let token: string;
    beforeAll(async () => {
      ({ token } = await newUser());
    });

    it.each([[{ method: 'TOTP', secret: newTotpSecret() }], [{ method: 'PIGEON' }], ['not json']])(
      'answers 401 Unauthorized without identity, whatever the body (%j)',
      async (body) => {
        const response = await app.request('enableMFA', { body });
        expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
      },
    );

    it('answers 401 Unauthorized for an invalid token', async () => {
      const response = await app.request('enableMFA', { token: `${token}x`, body: { method: 'TOTP', secret: newTotpSecret() } });
      expect(response.body).toEqual(failure('Unauthorized'));
    });

    it.each([
      [{}, 'method: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"'],
      [{ method: 'totp', secret: 'x' }, 'method: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"'],
      [{ method: 'TOTP' }, 'secret: Invalid input: expected string, received undefined'],
      [{ method: 'TOTP', secret: '' }, 'secret: Too small: expected string to have >=1 characters'],
      [{ method: 'SMS', secret: 'x'.repeat(1025) }, 'secret: Too big: expected string to have <=1024 characters'],
      [{ method: 'TOTP', secret: 'JBSWY3DPEHPK3PXP' }, 'Invalid TOTP secret'],
      [{ method: 'TOTP', secret: 'not base32 at all 0189!' }, 'Invalid TOTP secret'],
      [{ method: 'TOTP', secret: 'A'.repeat(32) }, 'Invalid TOTP secret'],
      [{ method: 'TOTP', secret: PHONE }, 'Invalid TOTP secret'],
      [{ method: 'SMS', secret: '015112345678' }, 'Invalid phone number'],
      [{ method: 'SMS', secret: '+0151123456' }, 'Invalid phone number'],
      [{ method: 'SMS', secret: '+49 151 12345678' }, 'Invalid phone number'],
      [{ method: 'SMS', secret: '+1234567890123456' }, 'Invalid phone number'],
      [{ method: 'SMS', secret: 'alice@example.com' }, 'Invalid phone number'],
      [{ method: 'EMAIL', secret: 'alice' }, 'Invalid email address'],
      [{ method: 'EMAIL', secret: 'alice@' }, 'Invalid email address'],
      [{ method: 'EMAIL', secret: PHONE }, 'Invalid email address'],
      ['{"method":', 'Invalid JSON body'],
    ])('answers 400 for %j', async (body, error) => {
      const response = await app.request('enableMFA', { token, body });
      expect(response).toEqual({
        status: 400,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: failure(error),
      });
    });
  });
});
