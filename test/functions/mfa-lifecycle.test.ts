import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateDelivered, activateTotp, newTotpSecret } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';
const PHONE = '+4915112345678';
const RECOVERY_CODE = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;
const iso = (deps: TestDeps, secondsAgo = 0) => new Date((Math.floor(deps.clock.now() / 1000) - secondsAgo) * 1000).toISOString();

describe('MFA lifecycle (docs/api.md 8.6)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  /** A user with an active TOTP method, and a session that passed it (`amr` otp). */
  async function userWithTotp() {
    const tenantId = uniqueTenant('mfa-life');
    const registered = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const totp = await activateTotp(app, deps, registered.token);
    const login = (extra: Record<string, unknown> = {}) =>
      app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, ...extra } });
    const signedIn = await login({ mfaCode: totp.code() });
    expect(signedIn.status).toBe(200);
    return { tenantId, userId: registered.user.id, pwdToken: registered.token, token: signedIn.body.data.token as string, totp, login };
  }

  async function recoveryCodes(token: string): Promise<string[]> {
    const response = await app.request('generateRecoveryCodes', { token });
    expect(response.status).toBe(200);
    return response.body.data.codes;
  }

  describe('GET /auth/mfa', () => {
    it('answers every method with its status, masked destination and times, and the recovery codes left', async () => {
      const user = await userWithTotp();
      await activateDelivered(app, deps, user.token, user.userId, 'SMS', PHONE);
      await app.request('enableMFA', { token: user.token, body: { method: 'EMAIL', secret: 'alice@example.com' } });
      expect(await app.request('listMFA', { token: user.token })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            mfa: {
              methods: [
                // TOTP was verified 30 s ago and used to sign in now.
                { method: 'TOTP', status: 'active', destination: null, createdAt: iso(deps, 30), lastUsedAt: iso(deps) },
                { method: 'SMS', status: 'active', destination: '************78', createdAt: iso(deps), lastUsedAt: iso(deps) },
                { method: 'EMAIL', status: 'pending', destination: 'a***@example.com', createdAt: iso(deps), lastUsedAt: null },
              ],
              recoveryCodesRemaining: 0,
            },
          },
        },
      });
    });

    it('counts the recovery codes left, and records when a method was last used', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      expect((await app.request('listMFA', { token: user.token })).body.data.mfa.recoveryCodesRemaining).toBe(10);
      deps.clock.advance(300);
      expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).status).toBe(200);
      deps.clock.advance(60);
      expect((await user.login({ mfaCode: user.totp.code() })).status).toBe(200);
      const { mfa } = (await app.request('listMFA', { token: user.token })).body.data;
      expect(mfa).toEqual({
        methods: [{ method: 'TOTP', status: 'active', destination: null, createdAt: iso(deps, 390), lastUsedAt: iso(deps) }],
        recoveryCodesRemaining: 9,
      });
      // GET /auth/account shows the same count (docs/api.md 8.5).
      expect((await app.request('getAccount', { token: user.token })).body.data.account.mfa).toEqual(mfa);
    });

    it('answers a user without MFA with no methods', async () => {
      const { token } = await registerAdmin(app, uniqueTenant('mfa-life'));
      expect((await app.request('listMFA', { token })).body).toEqual({
        success: true,
        data: { mfa: { methods: [], recoveryCodesRemaining: 0 } },
      });
    });

    it('answers 401 Unauthorized without a session', async () => {
      expect(await app.request('listMFA')).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
    });
  });

  describe('POST /auth/mfa/recovery-codes', () => {
    it('answers 10 distinct codes of 60 bits, not cached, and stores none of them', async () => {
      const user = await userWithTotp();
      const response = await app.request('generateRecoveryCodes', { token: user.token });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { codes: expect.any(Array) } },
      });
      const codes: string[] = response.body.data.codes;
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
      const stored = JSON.stringify(await deps.store.mfa.recoveryCodes(user.tenantId, user.userId), (_, value) =>
        value instanceof Set ? [...value] : value,
      );
      for (const code of codes) {
        expect(stored).not.toContain(code);
        expect(stored).not.toContain(code.replace(/-/g, ''));
      }
    });

    it('replaces the earlier codes: they stop working, the new ones work', async () => {
      const user = await userWithTotp();
      const first = await recoveryCodes(user.token);
      const second = await recoveryCodes(user.token);
      expect(second.filter((code) => first.includes(code))).toEqual([]);
      expect(await user.login({ mfaMethod: 'RECOVERY', mfaCode: first[0] })).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP,RECOVERY' }),
        body: failure('Invalid MFA code'),
      });
      expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode: second[0] })).status).toBe(200);
    });

    it('answers 400 MFA method not enabled without an active method (none, or only a pending one)', async () => {
      const { token } = await registerAdmin(app, uniqueTenant('mfa-life'));
      const none = await app.request('generateRecoveryCodes', { token });
      expect(none).toEqual({ status: 400, headers: expect.any(Object), body: failure('MFA method not enabled') });
      await app.request('enableMFA', { token, body: { method: 'TOTP', secret: newTotpSecret() } });
      expect((await app.request('generateRecoveryCodes', { token })).body).toEqual(failure('MFA method not enabled'));
    });

    it('answers 403 Recent authentication required to a session older than 10 minutes, and works after reauthenticate', async () => {
      const user = await userWithTotp();
      deps.clock.advance(601);
      expect(await app.request('generateRecoveryCodes', { token: user.token })).toEqual({
        status: 403,
        headers: expect.any(Object),
        body: failure('Recent authentication required'),
      });
      const again = await app.request('reauthenticate', { token: user.token, body: { password: PASSWORD, mfaCode: user.totp.code() } });
      expect(again.status).toBe(200);
      expect((await app.request('generateRecoveryCodes', { token: again.body.data.token })).status).toBe(200);
    });

    it('answers 403 Permission denied to a session that did not pass MFA', async () => {
      const user = await userWithTotp();
      // The session that activated the first method signed in with the password alone.
      expect(await app.request('generateRecoveryCodes', { token: user.pwdToken })).toEqual({
        status: 403,
        headers: expect.any(Object),
        body: failure('Permission denied', 'MFA_STEP_UP_REQUIRED'),
      });
    });

    it.each([[undefined], [{}], ['not json']])('answers 401 Unauthorized without a session, whatever the body (%j)', async (body) => {
      const response = await app.request('generateRecoveryCodes', { body });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
    });
  });

  describe('mfaMethod RECOVERY at login and reauthenticate', () => {
    it('signs in with a recovery code once, as a second factor; the same code again is 401 Invalid MFA code', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      const signedIn = await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[3] });
      expect(signedIn).toMatchObject({ status: 200, body: { success: true, data: { token: expect.any(String) } } });
      expect(await app.identityOf(signedIn.body.data.token)).toMatchObject({ amr: ['pwd', 'otp'] });
      expect(await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[3] })).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP,RECOVERY' }),
        body: failure('Invalid MFA code'),
      });
      expect(deps.logText()).toContain('"event":"recovery_code_used"');
    });

    it('takes a code as a person types it: upper case, without hyphens, with spaces', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      for (const mfaCode of [codes[0]?.toUpperCase(), codes[1]?.replace(/-/g, ''), codes[2]?.replace(/-/g, ' ')]) {
        expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode })).status).toBe(200);
      }
    });

    it('lists RECOVERY in X-MFA-Methods while codes remain, and asks for one without sending anything', async () => {
      const user = await userWithTotp();
      expect((await user.login()).headers['X-MFA-Methods']).toBe('TOTP');
      await recoveryCodes(user.token);
      expect(await user.login({ mfaMethod: 'RECOVERY' })).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP,RECOVERY' }),
        body: failure('MFA code required'),
      });
      expect((await user.login()).headers['X-MFA-Methods']).toBe('TOTP,RECOVERY');
    });

    it('answers 400 MFA method not enabled for RECOVERY when no code remains, and stops listing it', async () => {
      const user = await userWithTotp();
      expect(await user.login({ mfaMethod: 'RECOVERY', mfaCode: 'aaaa-aaaa-aaaa' })).toEqual({
        status: 400,
        headers: expect.any(Object),
        body: failure('MFA method not enabled'),
      });
      const codes = await recoveryCodes(user.token);
      for (const mfaCode of codes) expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode })).status).toBe(200);
      expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).body).toEqual(failure('MFA method not enabled'));
      expect((await user.login()).headers['X-MFA-Methods']).toBe('TOTP');
      expect((await app.request('listMFA', { token: user.token })).body.data.mfa.recoveryCodesRemaining).toBe(0);
    });

    it('counts wrong recovery codes towards the MFA lockout: the 6th attempt in 15 minutes is 429', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      for (const mfaCode of ['aaaa-aaaa-aaaa', 'not a code', '0000-0000-0000', 'bbbbbbbbbbbb', 'cccc-cccc-cccc']) {
        expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode })).body).toEqual(failure('Invalid MFA code'));
      }
      expect(await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).toEqual({
        status: 429,
        headers: expect.objectContaining({ 'Retry-After': expect.stringMatching(/^\d+$/) }),
        body: failure('Too many failed attempts'),
      });
      deps.clock.advance(15 * 60 + 1);
      expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).status).toBe(200);
    });

    it('locks the recovery codes after 100 wrong codes in a row, until a new set is generated', async () => {
      const user = await userWithTotp();
      await recoveryCodes(user.token);
      for (let i = 0; i < 100; i++) await deps.store.mfa.countFailedCode(user.tenantId, user.userId, 'RECOVERY');
      const codes = (await app.request('generateRecoveryCodes', { token: user.token })).body.data.codes as string[];
      expect((await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).status).toBe(200);
      for (let i = 0; i < 100; i++) await deps.store.mfa.countFailedCode(user.tenantId, user.userId, 'RECOVERY');
      expect(await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[1] })).toEqual({
        status: 403,
        headers: expect.any(Object),
        body: failure('MFA method locked'),
      });
    });

    it('reauthenticates with a recovery code: auth_time now, amr otp', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      deps.clock.advance(700);
      const again = await app.request('reauthenticate', {
        token: user.token,
        body: { password: PASSWORD, mfaMethod: 'RECOVERY', mfaCode: codes[0] },
      });
      expect(again).toMatchObject({ status: 200, body: { success: true, data: { token: expect.any(String) } } });
      expect(await app.identityOf(again.body.data.token)).toMatchObject({
        amr: ['pwd', 'otp'],
        authTime: Math.floor(deps.clock.now() / 1000),
      });
      const reused = await app.request('reauthenticate', {
        token: user.token,
        body: { password: PASSWORD, mfaMethod: 'RECOVERY', mfaCode: codes[0] },
      });
      expect(reused.body).toEqual(failure('Invalid MFA code'));
    });

    it('ignores RECOVERY for a user without MFA, as every mfaMethod', async () => {
      const tenantId = uniqueTenant('mfa-life');
      await registerAdmin(app, tenantId, 'bob', PASSWORD);
      const login = await app.request('login', {
        body: { username: 'bob', password: PASSWORD, tenantId, mfaMethod: 'RECOVERY', mfaCode: 'aaaa-aaaa-aaaa' },
      });
      expect(login.status).toBe(200);
      expect(await app.identityOf(login.body.data.token)).toMatchObject({ amr: ['pwd'] });
    });
  });

  describe('POST /auth/mfa/disable', () => {
    it('removes one of two methods and keeps the recovery codes', async () => {
      const user = await userWithTotp();
      await activateDelivered(app, deps, user.token, user.userId, 'SMS', PHONE);
      await recoveryCodes(user.token);
      expect(await app.request('disableMFA', { token: user.token, body: { method: 'TOTP' } })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'MFA disabled' } },
      });
      const { mfa } = (await app.request('listMFA', { token: user.token })).body.data;
      expect(mfa.methods.map((method: { method: string }) => method.method)).toEqual(['SMS']);
      expect(mfa.recoveryCodesRemaining).toBe(10);
      deps.clock.advance(31);
      expect((await user.login()).headers['X-MFA-Methods']).toBe('SMS,RECOVERY');
      expect(deps.logText()).toContain('"event":"mfa_method_removed"');
    });

    it('removes the last method with the recovery codes: the user signs in with the password alone', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      expect((await app.request('disableMFA', { token: user.token, body: { method: 'TOTP' } })).status).toBe(200);
      expect(await deps.store.mfa.recoveryCodes(user.tenantId, user.userId)).toBeUndefined();
      expect((await app.request('listMFA', { token: user.token })).body.data.mfa).toEqual({ methods: [], recoveryCodesRemaining: 0 });
      const login = await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] });
      expect(await app.identityOf(login.body.data.token)).toMatchObject({ amr: ['pwd'] });
    });

    it('lets a user who lost the authenticator sign in with a recovery code and remove it', async () => {
      const user = await userWithTotp();
      const codes = await recoveryCodes(user.token);
      deps.clock.advance(3600);
      const signedIn = await user.login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] });
      const disabled = await app.request('disableMFA', { token: signedIn.body.data.token, body: { method: 'TOTP' } });
      expect(disabled.body).toEqual({ success: true, data: { message: 'MFA disabled' } });
    });

    it('answers 400 MFA method not enabled for a method that is not active (pending, or never enabled, or already removed)', async () => {
      const user = await userWithTotp();
      await app.request('enableMFA', { token: user.token, body: { method: 'EMAIL', secret: 'alice@example.com' } });
      for (const method of ['EMAIL', 'SMS']) {
        expect(await app.request('disableMFA', { token: user.token, body: { method } })).toEqual({
          status: 400,
          headers: expect.any(Object),
          body: failure('MFA method not enabled'),
        });
      }
      expect((await app.request('disableMFA', { token: user.token, body: { method: 'TOTP' } })).status).toBe(200);
      expect((await app.request('disableMFA', { token: user.token, body: { method: 'TOTP' } })).body).toEqual(
        failure('MFA method not enabled'),
      );
    });

    it('answers 403 Recent authentication required to a session older than 10 minutes, before validation', async () => {
      const user = await userWithTotp();
      deps.clock.advance(601);
      for (const body of [{ method: 'TOTP' }, { method: 'PIGEON' }]) {
        expect(await app.request('disableMFA', { token: user.token, body })).toEqual({
          status: 403,
          headers: expect.any(Object),
          body: failure('Recent authentication required'),
        });
      }
      expect((await app.request('listMFA', { token: user.token })).body.data.mfa.methods).toHaveLength(1);
    });

    it('answers 403 Permission denied to a session that did not pass MFA', async () => {
      const user = await userWithTotp();
      expect(await app.request('disableMFA', { token: user.pwdToken, body: { method: 'TOTP' } })).toEqual({
        status: 403,
        headers: expect.any(Object),
        body: failure('Permission denied', 'MFA_STEP_UP_REQUIRED'),
      });
    });

    it.each([
      [{}, 'method: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"'],
      [{ method: 'RECOVERY' }, 'method: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"'],
      [{ method: 7 }, 'method: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"'],
    ])('answers 400 for %j', async (body, error) => {
      const user = await userWithTotp();
      expect(await app.request('disableMFA', { token: user.token, body })).toEqual({
        status: 400,
        headers: expect.any(Object),
        body: failure(error),
      });
    });

    it.each([[{ method: 'TOTP' }], [{}], ['not json']])(
      'answers 401 Unauthorized without a session, whatever the body (%j)',
      async (body) => {
        expect(await app.request('disableMFA', { body })).toEqual({
          status: 401,
          headers: expect.any(Object),
          body: failure('Unauthorized'),
        });
      },
    );
  });
});
