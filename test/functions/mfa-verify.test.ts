import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/store/keys';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { authenticator, newTotpSecret } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';
const PHONE = '+4915112345678';
const verified = { success: true, data: { message: 'MFA verified successfully' } };
const invalid = failure('Invalid MFA code');

describe('POST /auth/mfa/verify', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  async function newUser(username = 'alice') {
    const tenantId = uniqueTenant();
    const { token, refreshToken, user } = await registerAdmin(app, tenantId, username, PASSWORD);
    return { tenantId, token, refreshToken, userId: user.id };
  }

  async function withPendingTotp() {
    const user = await newUser();
    const secret = newTotpSecret();
    expect((await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } })).status).toBe(200);
    return { ...user, code: authenticator(deps, secret) };
  }

  const verify = (token: string, method: string, code: string | undefined) => app.request('verifyMFA', { token, body: { method, code } });

  describe('TOTP', () => {
    it('accepts the code of an independent RFC 6238 generator and activates the method', async () => {
      const { tenantId, userId, token, code } = await withPendingTotp();
      const response = await verify(token, 'TOTP', code());
      expect(response).toEqual({ status: 200, headers: expect.objectContaining({ 'Cache-Control': 'no-store' }), body: verified });
      expect(await deps.store.mfa.find(tenantId, userId, 'TOTP')).toMatchObject({
        status: 'active',
        activatedAt: Math.floor(deps.clock.now() / 1000),
      });
      expect(deps.logs).toContainEqual(
        expect.objectContaining({ event: 'mfa_verified', tenantId, userId, username: 'alice', method: 'TOTP', activated: true }),
      );
    });

    it('accepts the previous and the next time step, not two steps away', async () => {
      const { token, code } = await withPendingTotp();
      expect((await verify(token, 'TOTP', code(-2))).body).toEqual(invalid);
      expect((await verify(token, 'TOTP', code(2))).body).toEqual(invalid);
      expect((await verify(token, 'TOTP', code(-1))).body).toEqual(verified);
      expect((await verify(token, 'TOTP', code(1))).body).toEqual(verified);
    });

    it('refuses a code already accepted, and any code of an earlier step', async () => {
      const { token, code } = await withPendingTotp();
      const first = code();
      expect((await verify(token, 'TOTP', first)).body).toEqual(verified);
      expect((await verify(token, 'TOTP', first)).body).toEqual(invalid);
      expect((await verify(token, 'TOTP', code(-1))).body).toEqual(invalid);
      deps.clock.advance(30);
      expect((await verify(token, 'TOTP', first)).body).toEqual(invalid);
      expect((await verify(token, 'TOTP', code())).body).toEqual(verified);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'mfa_verify_failed', method: 'TOTP', reason: 'replayed' }));
    });

    it('accepts one code once when it is sent twice at the same moment', async () => {
      const { token, code } = await withPendingTotp();
      const current = code();
      const answers = await Promise.all([verify(token, 'TOTP', current), verify(token, 'TOTP', current)]);
      expect(answers.map((answer) => answer.body)).toEqual(expect.arrayContaining([verified, invalid]));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    });
  });

  describe.each([
    ['SMS', PHONE],
    ['EMAIL', 'alice@example.com'],
  ] as const)('%s', (method, destination) => {
    async function withPendingCode() {
      const user = await newUser();
      expect((await app.request('enableMFA', { token: user.token, body: { method, secret: destination } })).status).toBe(200);
      const sent = await deps.outbox.latest(user.tenantId, user.userId, method);
      return { ...user, code: sent?.code ?? '' };
    }

    it('accepts the code sent, once', async () => {
      const { tenantId, userId, token, code } = await withPendingCode();
      expect(await verify(token, method, code)).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: verified,
      });
      expect(await deps.store.mfa.find(tenantId, userId, method)).toMatchObject({ status: 'active' });
      expect((await verify(token, method, code)).body).toEqual(invalid);
    });

    it('accepts the code once when it is sent twice at the same moment', async () => {
      const { token, code } = await withPendingCode();
      const answers = await Promise.all([verify(token, method, code), verify(token, method, code)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    });

    it('accepts the code until 10 minutes have passed', async () => {
      const { token, code } = await withPendingCode();
      deps.clock.advance(599);
      expect((await verify(token, method, code)).body).toEqual(verified);
    });

    it('refuses the code once 10 minutes have passed', async () => {
      const { token, code } = await withPendingCode();
      deps.clock.advance(600);
      expect((await verify(token, method, code)).body).toEqual(invalid);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'mfa_verify_failed', method, reason: 'expired' }));
    });

    it('refuses a wrong code, and a code of the wrong shape', async () => {
      const { token, code } = await withPendingCode();
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      for (const attempt of [wrong, `${code}0`, code.slice(1), 'abcdef']) {
        expect(await verify(token, method, attempt)).toEqual({ status: 400, headers: expect.any(Object), body: invalid });
      }
      expect((await verify(token, method, code)).body).toEqual(verified);
    });
  });

  describe('lockout', () => {
    it('answers 429 with Retry-After after 5 wrong codes in 15 minutes, also for the right code, until the window passes', async () => {
      const { tenantId, userId, token, refreshToken, code } = await withPendingTotp();
      for (let i = 0; i < 5; i++) {
        expect((await verify(token, 'TOTP', '000000')).body).toEqual(invalid);
        deps.clock.advance(60);
      }
      const locked = await verify(token, 'TOTP', code());
      expect(locked).toEqual({
        status: 429,
        headers: expect.objectContaining({ 'Retry-After': '600' }),
        body: failure('Too many failed attempts'),
      });
      expect(deps.logs).toContainEqual(
        expect.objectContaining({ event: 'mfa_locked', tenantId, userId, username: 'alice', method: 'TOTP' }),
      );

      deps.clock.advance(600);
      // The access token has expired meanwhile: refresh keeps the session.
      const { token: fresh } = (await app.request('refreshToken', { body: { refreshToken } })).body.data;
      expect((await verify(fresh, 'TOTP', code())).body).toEqual(verified);
    });

    it('counts per user across methods (one budget, docs/api.md 10), not across users', async () => {
      const user = await withPendingTotp();
      const other = await withPendingTotp();
      expect((await app.request('enableMFA', { token: user.token, body: { method: 'SMS', secret: PHONE } })).status).toBe(200);
      for (let i = 0; i < 5; i++) await verify(user.token, 'TOTP', '000000');
      expect((await verify(user.token, 'TOTP', user.code())).status).toBe(429);
      const sms = await deps.outbox.latest(user.tenantId, user.userId, 'SMS');
      expect(await verify(user.token, 'SMS', sms?.code)).toEqual({
        status: 429,
        headers: expect.objectContaining({ 'Retry-After': '900' }),
        body: failure('Too many failed attempts'),
      });
      expect((await verify(other.token, 'TOTP', other.code())).body).toEqual(verified);
    });

    it('lets no more than 5 of 12 concurrent wrong codes be checked', async () => {
      const { token } = await withPendingTotp();
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => verify(token, 'TOTP', String(100000 + i))));
      expect(answers.filter((answer) => answer.status === 400)).toHaveLength(5);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(7);
    });

    it('invalidates the outstanding SMS code', async () => {
      const { tenantId, userId, token, refreshToken } = await newUser();
      await app.request('enableMFA', { token, body: { method: 'SMS', secret: PHONE } });
      expect((await verify(token, 'SMS', '000000')).body).toEqual(invalid);
      // A new code, sent later than the first failure: valid beyond the end of the lockout window.
      deps.clock.advance(500);
      await app.request('enableMFA', { token, body: { method: 'SMS', secret: PHONE } });
      const sent = await deps.outbox.latest(tenantId, userId, 'SMS');
      for (let i = 0; i < 4; i++) expect((await verify(token, 'SMS', '000000')).body).toEqual(invalid);
      expect((await verify(token, 'SMS', sent?.code)).status).toBe(429);
      expect(await deps.store.mfa.find(tenantId, userId, 'SMS')).not.toHaveProperty('codeDigest');

      deps.clock.advance(401);
      const { token: fresh } = (await app.request('refreshToken', { body: { refreshToken } })).body.data;
      expect((sent?.sentAt ?? 0) + 600).toBeGreaterThan(Math.floor(deps.clock.now() / 1000));
      expect((await verify(fresh, 'SMS', sent?.code)).body).toEqual(invalid);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'mfa_verify_failed', tenantId, method: 'SMS', reason: 'no_code' }));
    });

    it('voids no code on a refusal: a code sent during the lockout stays good', async () => {
      const { tenantId, userId, token } = await newUser();
      await app.request('enableMFA', { token, body: { method: 'SMS', secret: PHONE } });
      for (let i = 0; i < 5; i++) expect((await verify(token, 'SMS', '000000')).body).toEqual(invalid);
      expect(await deps.store.mfa.find(tenantId, userId, 'SMS')).not.toHaveProperty('codeDigest');
      deps.clock.advance(31);
      await app.request('enableMFA', { token, body: { method: 'SMS', secret: PHONE } });
      expect((await verify(token, 'SMS', '000000')).status).toBe(429);
      expect(await deps.store.mfa.find(tenantId, userId, 'SMS')).toHaveProperty('codeDigest');
    });

    it('keeps the counter under the tenant prefix', () => {
      expect(keys.mfaAttempts('acme#1', 'u#1', 0)).toEqual({ pk: 'T#acme%231#MFA#u%231', sk: 'ATTEMPTS#ALL#0' });
    });
  });

  describe('refusals', () => {
    let token: string;
    beforeAll(async () => {
      ({ token } = await newUser());
    });

    it.each([[{ method: 'TOTP', code: '123456' }], [{ method: 'PIGEON' }], ['not json']])(
      'answers 401 Unauthorized without identity, whatever the body (%j)',
      async (body) => {
        const response = await app.request('verifyMFA', { body });
        expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
      },
    );

    it.each(['TOTP', 'SMS', 'EMAIL'])('answers 400 MFA method not enabled for %s without enrollment', async (method) => {
      const response = await verify(token, method, '123456');
      expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('MFA method not enabled') });
    });

    it.each([
      [{}, 'method: Invalid option: expected one of "TOTP"|"SMS"|"EMAIL"'],
      [{ method: 'TOTP' }, 'code: Invalid input: expected string, received undefined'],
      [{ method: 'TOTP', code: 123456 }, 'code: Invalid input: expected string, received number'],
      [{ method: 'TOTP', code: '' }, 'code: Too small: expected string to have >=1 characters'],
      [{ method: 'TOTP', code: '1'.repeat(17) }, 'code: Too big: expected string to have <=16 characters'],
      ['[]', 'Invalid JSON body: expected an object'],
    ])('answers 400 for %j', async (body, error) => {
      const response = await app.request('verifyMFA', { token, body });
      expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure(error) });
    });
  });
});
