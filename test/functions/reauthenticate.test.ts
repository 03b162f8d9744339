import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateTotp, newTotpSecret } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';
const now = (deps: TestDeps) => Math.floor(deps.clock.now() / 1000);

describe('recent authentication (docs/api.md 8.1)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  async function newUser() {
    const tenantId = uniqueTenant();
    const { token, refreshToken, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    return { tenantId, token, refreshToken, userId: user.id };
  }

  describe('POST /auth/reauthenticate', () => {
    it('answers 200 with a new access token of the same session whose auth_time is now', async () => {
      const { tenantId, token, refreshToken, userId } = await newUser();
      deps.clock.advance(700);
      const before = await app.identityOf(token);
      expect(before?.authTime).toBe(now(deps) - 700);
      const response = await app.request('reauthenticate', { token, body: { password: PASSWORD } });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { token: expect.any(String) } },
      });
      const after = await app.identityOf(response.body.data.token);
      expect(after).toEqual({ ...before, authTime: now(deps) });
      // The authorizer reads the session, so the older token of the session counts as recent too.
      expect(await app.identityOf(token)).toEqual(after);
      expect(await deps.store.sessions.find(tenantId, String(after?.sessionId))).toMatchObject({
        userId,
        authTime: now(deps),
        amr: ['pwd'],
      });
      // The refresh token is the session's, unchanged, and its tokens carry the new proof.
      const refreshed = await app.request('refreshToken', { body: { refreshToken } });
      expect((await app.identityOf(refreshed.body.data.token))?.authTime).toBe(now(deps));
    });

    it('answers 400 Invalid credentials for a wrong password, counted by the login lockout', async () => {
      const { tenantId, token } = await newUser();
      for (let attempt = 0; attempt < 5; attempt++) {
        const wrong = await app.request('reauthenticate', { token, body: { password: 'wrong password' } });
        expect(wrong).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid credentials') });
      }
      const locked = await app.request('reauthenticate', { token, body: { password: PASSWORD } });
      expect(locked).toEqual({
        status: 429,
        headers: expect.objectContaining({ 'Retry-After': expect.stringMatching(/^\d+$/) }),
        body: failure('Too many failed attempts'),
      });
      const login = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
      expect(login.body).toEqual(failure('Too many failed attempts'));
    });

    it('asks for the second factor as login does, and records otp in the session', async () => {
      const { tenantId, token } = await newUser();
      const totp = await activateTotp(app, deps, token);
      const login = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: totp.code() } });
      const otpToken = login.body.data.token as string;
      deps.clock.advance(60);

      const required = await app.request('reauthenticate', { token: otpToken, body: { password: PASSWORD } });
      expect(required).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP' }),
        body: failure('MFA code required'),
      });
      const wrong = await app.request('reauthenticate', { token: otpToken, body: { password: PASSWORD, mfaCode: '000000' } });
      expect(wrong).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP' }),
        body: failure('Invalid MFA code'),
      });
      const right = await app.request('reauthenticate', {
        token: otpToken,
        body: { password: PASSWORD, mfaCode: totp.code(), mfaMethod: 'TOTP' },
      });
      expect(right.status).toBe(200);
      expect(await app.identityOf(right.body.data.token)).toMatchObject({ amr: ['pwd', 'otp'], authTime: now(deps) });
    });

    it.each([
      [{}, 'password: Invalid input: expected string, received undefined'],
      [{ password: '' }, 'password: Too small: expected string to have >=1 characters'],
      [{ password: 'x'.repeat(1025) }, 'password: Too big: expected string to have <=1024 characters'],
      [{ password: PASSWORD, mfaCode: 'x'.repeat(17) }, 'mfaCode: Too big: expected string to have <=16 characters'],
      [{ password: PASSWORD, mfaMethod: 'PIGEON' }, 'mfaMethod: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"|"RECOVERY"'],
    ])('answers 400 for %j', async (body, error) => {
      const { token } = await newUser();
      const response = await app.request('reauthenticate', { token, body });
      expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure(error) });
    });

    it.each([[{ password: PASSWORD }], [{}], ['not json']])(
      'answers 401 Unauthorized without a session, whatever the body (%j)',
      async (body) => {
        const response = await app.request('reauthenticate', { body });
        expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
      },
    );

    it('answers 401 Unauthorized for a session that was logged out', async () => {
      const { token } = await newUser();
      await app.request('logout', { token });
      const response = await app.request('reauthenticate', { token, body: { password: PASSWORD } });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
    });
  });

  describe('enableMFA is a recent operation', () => {
    it('refuses a session whose last proof is older than 10 minutes: 403 before validation, then works after reauthenticate', async () => {
      const { token } = await newUser();
      deps.clock.advance(601);
      for (const body of [{ method: 'TOTP', secret: newTotpSecret() }, {}]) {
        const refused = await app.request('enableMFA', { token, body });
        expect(refused).toEqual({
          status: 403,
          headers: expect.any(Object),
          body: failure('Recent authentication required'),
        });
      }
      const again = await app.request('reauthenticate', { token, body: { password: PASSWORD } });
      const enabled = await app.request('enableMFA', { token: again.body.data.token, body: { method: 'TOTP', secret: newTotpSecret() } });
      expect(enabled.status).toBe(200);
    });

    it('accepts a proof exactly 600 seconds old', async () => {
      const { token } = await newUser();
      deps.clock.advance(600);
      expect((await app.request('enableMFA', { token, body: { method: 'TOTP', secret: newTotpSecret() } })).status).toBe(200);
    });

    it('follows REAUTH_MAX_AGE_SECONDS', async () => {
      const shortDeps = await testDeps({ REAUTH_MAX_AGE_SECONDS: '60' });
      const shortApp = testApp(shortDeps);
      const { token } = await registerAdmin(shortApp, uniqueTenant(), 'alice', PASSWORD);
      shortDeps.clock.advance(61);
      const refused = await shortApp.request('enableMFA', { token, body: { method: 'TOTP', secret: newTotpSecret() } });
      expect(refused.body).toEqual(failure('Recent authentication required'));
    });
  });

  describe('the first active method ends the other sessions', () => {
    it('revokes every other session and keeps the caller’s; a second method revokes nothing', async () => {
      const { tenantId, token } = await newUser();
      const other = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
      const totp = await activateTotp(app, deps, token);

      expect(await app.request('me', { token: other.body.data.token })).toEqual({
        status: 401,
        headers: expect.any(Object),
        body: failure('Unauthorized'),
      });
      const refresh = await app.request('refreshToken', { body: { refreshToken: other.body.data.refreshToken } });
      expect(refresh.body).toEqual(failure('Invalid refresh token'));
      expect((await app.request('me', { token })).status).toBe(200);

      const withOtp = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: totp.code() } });
      const third = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: totp.code(1) } });
      expect(third.status).toBe(200);
      const otpToken = withOtp.body.data.token as string;
      await app.request('enableMFA', { token: otpToken, body: { method: 'EMAIL', secret: 'alice@example.com' } });
      const userId = String((await app.identityOf(otpToken))?.userId);
      const sent = await deps.outbox.latest(tenantId, userId, 'EMAIL');
      const verified = await app.request('verifyMFA', { token: otpToken, body: { method: 'EMAIL', code: sent?.code } });
      expect(verified.status).toBe(200);
      expect((await app.request('me', { token: third.body.data.token })).status).toBe(200);
    });

    it('revokes nothing for a wrong code', async () => {
      const { tenantId, token } = await newUser();
      const other = await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
      await app.request('enableMFA', { token, body: { method: 'TOTP', secret: newTotpSecret() } });
      const wrong = await app.request('verifyMFA', { token, body: { method: 'TOTP', code: '000000' } });
      expect(wrong.body).toEqual(failure('Invalid MFA code'));
      expect((await app.request('me', { token: other.body.data.token })).status).toBe(200);
    });
  });
});
