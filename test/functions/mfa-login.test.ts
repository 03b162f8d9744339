import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateDelivered, activateTotp, authenticator, newTotpSecret } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';
const PHONE = '+4915112345678';
const EMAIL = 'alice@example.com';

describe('POST /auth/login with MFA', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  async function newUser() {
    const tenantId = uniqueTenant();
    const { token, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const login = (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, ...extra }, headers });
    return { tenantId, token, userId: user.id, login };
  }

  async function userWithTotp() {
    const user = await newUser();
    return { ...user, ...(await activateTotp(app, deps, user.token)) };
  }

  describe('TOTP', () => {
    it('answers 401 MFA code required with X-MFA-Methods (exposed by CORS) when no code is given', async () => {
      const { login } = await userWithTotp();
      const response = await login({}, { origin: 'https://app.example.com' });
      expect(response).toEqual({
        status: 401,
        headers: expect.objectContaining({
          'X-MFA-Methods': 'TOTP',
          'Cache-Control': 'no-store',
          'Access-Control-Allow-Origin': 'https://app.example.com',
          'Access-Control-Expose-Headers': 'X-MFA-Methods, Retry-After',
        }),
        body: failure('MFA code required'),
      });
    });

    it('answers 401 Invalid MFA code for a wrong code', async () => {
      const { login, code } = await userWithTotp();
      for (const mfaCode of ['000000', code(-2), 'abc']) {
        expect(await login({ mfaCode })).toEqual({
          status: 401,
          headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP' }),
          body: failure('Invalid MFA code'),
        });
      }
    });

    it('issues a session with amr ["pwd","otp"] for the right code, kept by refresh', async () => {
      const { login, code, userId, tenantId } = await userWithTotp();
      const response = await login({ mfaCode: code() });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            token: expect.any(String),
            refreshToken: expect.any(String),
            expiresIn: 900,
            user: { id: userId, username: 'alice', role: 'ADMIN', tenantId, shopId: 'default' },
            deviceToken: expect.stringMatching(/^d1\./),
          },
        },
      });
      expect(decodeJwt(response.body.data.token)).toMatchObject({ sub: userId, amr: ['pwd', 'otp'] });
      expect(await app.identityOf(response.body.data.token)).toMatchObject({ userId, amr: ['pwd', 'otp'] });
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'login_succeeded', tenantId, userId, amr: ['pwd', 'otp'] }));

      deps.clock.advance(600);
      const refreshed = await app.request('refreshToken', { body: { refreshToken: response.body.data.refreshToken } });
      expect(refreshed.status).toBe(200);
      expect(decodeJwt(refreshed.body.data.token).amr).toEqual(['pwd', 'otp']);
    });

    it('refuses a code already used (at verifyMFA or at an earlier login)', async () => {
      const user = await newUser();
      const secret = newTotpSecret();
      await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } });
      const code = authenticator(deps, secret)();
      expect((await app.request('verifyMFA', { token: user.token, body: { method: 'TOTP', code } })).status).toBe(200);
      expect((await user.login({ mfaCode: code })).body).toEqual(failure('Invalid MFA code'));
      deps.clock.advance(30);
      const next = authenticator(deps, secret)();
      expect((await user.login({ mfaCode: next })).status).toBe(200);
      expect((await user.login({ mfaCode: next })).body).toEqual(failure('Invalid MFA code'));
    });

    it('lets one of two concurrent logins with the same code through', async () => {
      const { login, code } = await userWithTotp();
      const mfaCode = code();
      const answers = await Promise.all([login({ mfaCode }), login({ mfaCode })]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    });

    it('checks the password first: a wrong password is 401 Invalid credentials, with no MFA header', async () => {
      const { tenantId, code } = await userWithTotp();
      const response = await app.request('login', { body: { username: 'alice', password: 'wrong password', tenantId, mfaCode: code() } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(failure('Invalid credentials'));
      expect(response.headers).not.toHaveProperty('X-MFA-Methods');
      expect((await app.request('login', { body: { username: 'alice', password: 'wrong password', tenantId } })).body).toEqual(
        failure('Invalid credentials'),
      );
    });

    it('counts wrong codes toward the MFA lockout (shared with verifyMFA), not the password lockout', async () => {
      const { tenantId, userId, login, code } = await userWithTotp();
      for (let i = 0; i < 5; i++) expect((await login({ mfaCode: '000000' })).body).toEqual(failure('Invalid MFA code'));
      const locked = await login({ mfaCode: code() });
      expect(locked).toEqual({
        status: 429,
        headers: expect.objectContaining({ 'Retry-After': '900' }),
        body: failure('Too many failed attempts'),
      });
      expect(deps.logs).toContainEqual(
        expect.objectContaining({ event: 'mfa_locked', tenantId, userId, username: 'alice', method: 'TOTP' }),
      );
      // The password itself is not locked: a wrong one still gets its own answer.
      const wrongPassword = await app.request('login', { body: { username: 'alice', password: 'wrong password', tenantId } });
      expect(wrongPassword.body).toEqual(failure('Invalid credentials'));

      deps.clock.advance(900);
      expect((await login({ mfaCode: code() })).status).toBe(200);
    });

    it('does not ask users with only a pending method', async () => {
      const { token, login } = await newUser();
      await app.request('enableMFA', { token, body: { method: 'TOTP', secret: newTotpSecret() } });
      const response = await login();
      expect(response.status).toBe(200);
      expect(decodeJwt(response.body.data.token).amr).toEqual(['pwd']);
    });
  });

  describe.each([
    ['SMS', PHONE],
    ['EMAIL', EMAIL],
  ] as const)('%s', (method, destination) => {
    async function userWithDelivered() {
      const user = await newUser();
      await activateDelivered(app, deps, user.token, user.userId, method, destination);
      deps.clock.advance(30);
      return user;
    }

    it('sends a fresh code with 401 MFA code required, at most one per 30 s, and logs in with it', async () => {
      const { tenantId, userId, login } = await userWithDelivered();
      const before = await deps.outbox.latest(tenantId, userId, method);
      const required = await login();
      expect(required).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': method }),
        body: failure('MFA code required'),
      });
      const sent = await deps.outbox.latest(tenantId, userId, method);
      expect(sent).toEqual({
        tenantId,
        userId,
        method,
        destination,
        code: expect.stringMatching(/^\d{6}$/),
        sentAt: Math.floor(deps.clock.now() / 1000),
      });
      expect(sent?.sentAt).toBeGreaterThan(before?.sentAt ?? Infinity);

      deps.clock.advance(29);
      expect((await login()).body).toEqual(failure('MFA code required'));
      expect(await deps.outbox.latest(tenantId, userId, method)).toEqual(sent);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'mfa_code_throttled', tenantId, userId, method }));

      const response = await login({ mfaCode: sent?.code });
      expect(response.status).toBe(200);
      expect(decodeJwt(response.body.data.token).amr).toEqual(['pwd', 'otp']);
      expect((await login({ mfaCode: sent?.code })).body).toEqual(failure('Invalid MFA code'));
    });

    it('sends a fresh code at once when the last one was used (right after verifying, or after a login)', async () => {
      const user = await newUser();
      await activateDelivered(app, deps, user.token, user.userId, method, destination);
      const required = await user.login();
      expect(required.body).toEqual(failure('MFA code required'));
      const sent = await deps.outbox.latest(user.tenantId, user.userId, method);
      expect(sent?.sentAt).toBe(Math.floor(deps.clock.now() / 1000));
      expect((await user.login({ mfaCode: sent?.code })).status).toBe(200);

      await user.login();
      const next = await deps.outbox.latest(user.tenantId, user.userId, method);
      expect(next?.code === sent?.code && next?.sentAt === sent?.sentAt).toBe(false);
      expect((await user.login({ mfaCode: next?.code })).status).toBe(200);
    });

    it('sends no code sooner than 30 s after one the lockout dropped (no SMS/email flood by wrong codes)', async () => {
      const { tenantId, userId, login } = await userWithDelivered();
      await login();
      const sent = await deps.outbox.latest(tenantId, userId, method);
      for (let i = 0; i < 6; i++) await login({ mfaCode: sent?.code === '000000' ? '111111' : '000000' });
      expect((await login({ mfaCode: '000000' })).status).toBe(429);
      for (let i = 0; i < 3; i++) await login();
      expect(await deps.outbox.latest(tenantId, userId, method)).toEqual(sent);
    });

    it('replaces the previous code with the fresh one', async () => {
      const { tenantId, userId, login } = await userWithDelivered();
      await login();
      const first = await deps.outbox.latest(tenantId, userId, method);
      deps.clock.advance(30);
      await login();
      const second = await deps.outbox.latest(tenantId, userId, method);
      expect(second?.sentAt).toBe((first?.sentAt ?? 0) + 30);
      if (first?.code !== second?.code) expect((await login({ mfaCode: first?.code })).body).toEqual(failure('Invalid MFA code'));
      expect((await login({ mfaCode: second?.code })).status).toBe(200);
    });

    it('refuses the code after 10 minutes', async () => {
      const { tenantId, userId, login } = await userWithDelivered();
      await login();
      const sent = await deps.outbox.latest(tenantId, userId, method);
      deps.clock.advance(600);
      expect((await login({ mfaCode: sent?.code })).body).toEqual(failure('Invalid MFA code'));
    });
  });

  describe('several methods', () => {
    async function userWithTotpAndSms() {
      const user = await userWithTotp();
      const otpLogin = await user.login({ mfaCode: user.code() });
      deps.clock.advance(30);
      await activateDelivered(app, deps, otpLogin.body.data.token, user.userId, 'SMS', PHONE);
      deps.clock.advance(30);
      return user;
    }

    it('lists the active methods in X-MFA-Methods and asks for TOTP by default, sending no SMS', async () => {
      const { tenantId, userId, login } = await userWithTotpAndSms();
      const before = await deps.outbox.latest(tenantId, userId, 'SMS');
      const response = await login();
      expect(response.status).toBe(401);
      expect(response.headers['X-MFA-Methods']).toBe('TOTP,SMS');
      expect(await deps.outbox.latest(tenantId, userId, 'SMS')).toEqual(before);
    });

    it('uses the method mfaMethod names: an SMS code is sent, and an SMS code logs in', async () => {
      const { tenantId, userId, login, code } = await userWithTotpAndSms();
      expect((await login({ mfaMethod: 'SMS' })).body).toEqual(failure('MFA code required'));
      const sent = await deps.outbox.latest(tenantId, userId, 'SMS');
      // A TOTP code is not an SMS code.
      expect((await login({ mfaMethod: 'SMS', mfaCode: code() })).body).toEqual(failure('Invalid MFA code'));
      expect((await login({ mfaMethod: 'SMS', mfaCode: sent?.code })).status).toBe(200);
      expect((await login({ mfaCode: code() })).status).toBe(200);
    });

    it('answers 400 MFA method not enabled for a method the user has not activated', async () => {
      const { login } = await userWithTotpAndSms();
      const response = await login({ mfaMethod: 'EMAIL', mfaCode: '123456' });
      expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('MFA method not enabled') });
    });

    it('defaults to the first activated method when TOTP is not active', async () => {
      const user = await newUser();
      await activateDelivered(app, deps, user.token, user.userId, 'EMAIL', EMAIL);
      // A session that passed EMAIL may add SMS.
      deps.clock.advance(30);
      await user.login();
      const fresh = await deps.outbox.latest(user.tenantId, user.userId, 'EMAIL');
      const session = await user.login({ mfaCode: fresh?.code });
      expect(session.status).toBe(200);
      deps.clock.advance(30);
      await activateDelivered(app, deps, session.body.data.token, user.userId, 'SMS', PHONE);
      deps.clock.advance(30);
      const smsBefore = await deps.outbox.latest(user.tenantId, user.userId, 'SMS');
      const response = await user.login();
      expect(response.headers['X-MFA-Methods']).toBe('EMAIL,SMS');
      expect(await deps.outbox.latest(user.tenantId, user.userId, 'SMS')).toEqual(smsBefore);
      expect((await deps.outbox.latest(user.tenantId, user.userId, 'EMAIL'))?.sentAt).toBe(Math.floor(deps.clock.now() / 1000));
    });
  });

  it('never puts the MFA secret or a code in a response (but the enrollment URI) or a log line', async () => {
    const { tenantId, token, userId, login } = await newUser();
    const secret = newTotpSecret();
    const responses = [];
    const enabled = await app.request('enableMFA', { token, body: { method: 'TOTP', secret } });
    const code = authenticator(deps, secret);
    const codes = [code()];
    responses.push(await app.request('verifyMFA', { token, body: { method: 'TOTP', code: codes[0] } }));
    responses.push(await app.request('verifyMFA', { token, body: { method: 'TOTP', code: codes[0] } }));
    responses.push(await app.request('enableMFA', { token, body: { method: 'SMS', secret: PHONE } }));
    deps.clock.advance(30);
    codes.push(code());
    const otpLogin = await login({ mfaCode: codes[1] });
    responses.push(otpLogin);
    responses.push(await app.request('enableMFA', { token: otpLogin.body.data.token, body: { method: 'SMS', secret: PHONE } }));
    const enrolment = await deps.outbox.latest(tenantId, userId, 'SMS');
    codes.push(enrolment?.code ?? '');
    responses.push(await app.request('verifyMFA', { token: otpLogin.body.data.token, body: { method: 'SMS', code: '999999' } }));
    responses.push(await app.request('verifyMFA', { token: otpLogin.body.data.token, body: { method: 'SMS', code: enrolment?.code } }));
    deps.clock.advance(30);
    responses.push(await login({ mfaMethod: 'SMS' }));
    const loginCode = await deps.outbox.latest(tenantId, userId, 'SMS');
    codes.push(loginCode?.code ?? '');
    responses.push(await login({ mfaMethod: 'SMS', mfaCode: '999999' }));
    responses.push(await login({ mfaMethod: 'SMS', mfaCode: loginCode?.code }));

    expect(enabled.body.data.otpauthUri).toContain(secret);
    const text = JSON.stringify(responses);
    const logs = deps.logText();
    for (const value of [secret, secret.toLowerCase(), PHONE, ...codes]) {
      expect(text).not.toContain(value);
      expect(logs).not.toContain(value);
    }
    // The table holds the secret sealed and codes as digests (the outbox aside, local only).
    const method = JSON.stringify([
      await deps.store.mfa.find(tenantId, userId, 'TOTP'),
      await deps.store.mfa.find(tenantId, userId, 'SMS'),
    ]);
    for (const value of [secret, ...codes]) expect(method).not.toContain(value);
    expect(deps.logs.map((line) => line.event)).toEqual(
      expect.arrayContaining([
        'mfa_enabled',
        'mfa_verified',
        'mfa_verify_failed',
        'mfa_code_sent',
        'login_mfa_required',
        'login_succeeded',
      ]),
    );
    for (const line of deps.logs.filter((l) => String(l.event).startsWith('mfa_') && l.tenantId === tenantId)) {
      expect(line).toMatchObject({
        tenantId,
        userId,
        username: 'alice',
        method: expect.stringMatching(/^(TOTP|SMS)$/),
        requestId: expect.any(String),
      });
    }
  });
});
