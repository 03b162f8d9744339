import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventType } from '../../lib/audit/events';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateDelivered, activateTotp } from '../helpers/mfa';
import { createClient, grantTokens, tokenRequest } from '../helpers/oauth';
import { verifiedEmail } from '../helpers/recovery';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';
const FORGOT = { success: true, data: { message: 'If the account exists, a reset code has been sent' } };
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('POST /auth/password/forgot and /auth/password/reset (docs/api.md 8.7)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  /** An ADMIN of a new tenant with a verified email address. */
  async function newUser(email: string | null = 'alice@example.com') {
    const tenantId = uniqueTenant('reset');
    const { token, refreshToken, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    if (email) await verifiedEmail(app, deps, token, tenantId, user.id, email);
    return { tenantId, token, refreshToken, userId: user.id };
  }
  const forgot = (tenantId: string, username = 'alice') => app.request('passwordForgot', { body: { username, tenantId } });
  const resetCode = async (tenantId: string, userId: string, method: 'EMAIL' | 'SMS' = 'EMAIL') =>
    (await deps.outbox.latest(tenantId, userId, method, 'reset'))?.code ?? '';
  const reset = (tenantId: string, code: string, extra: Record<string, unknown> = {}) =>
    app.request('passwordReset', { body: { username: 'alice', tenantId, code, newPassword: NEW_PASSWORD, ...extra } });
  const login = (tenantId: string, password: string) => app.request('login', { body: { username: 'alice', password, tenantId } });

  describe('forgot', () => {
    it('answers 202 and sends a reset code to the verified email, stored only as a keyed digest', async () => {
      const { tenantId, userId } = await newUser();
      const response = await forgot(tenantId);
      expect(response).toEqual({ status: 202, headers: expect.objectContaining({ 'Cache-Control': 'no-store' }), body: FORGOT });
      const sent = await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset');
      expect(sent).toMatchObject({ destination: 'alice@example.com', purpose: 'reset', code: expect.stringMatching(/^\d{6}$/) });
      const stored = await deps.store.accountCodes.find({ purpose: 'reset', tenantId, username: 'alice' });
      expect(stored).toMatchObject({ userId, tries: 0, digest: expect.stringMatching(/^v1\./) });
      expect(JSON.stringify(stored)).not.toContain(String(sent?.code));
      expect(deps.logText()).not.toContain(String(sent?.code));
    });

    it('answers an unknown username, another tenant and an account without a channel exactly alike', async () => {
      const { tenantId } = await newUser();
      const known = await forgot(tenantId);
      const noChannel = await newUser(null);
      for (const response of [await forgot(tenantId, 'nobody'), await forgot(uniqueTenant('none')), await forgot(noChannel.tenantId)])
        expect(response).toEqual(known);
      expect(await deps.outbox.latest(noChannel.tenantId, noChannel.userId, 'EMAIL', 'reset')).toBeUndefined();
    });

    it('takes the same time for an unknown username as for an account that gets a code', async () => {
      const { tenantId } = await newUser();
      // The production floor (the suite's other tests answer at once: test/helpers/deps.ts), on the same table.
      const timedDeps = nearRealTime(await testDeps({}, { productionTiming: true }));
      const timedApp = testApp(timedDeps);
      const known: number[] = [];
      const unknown: number[] = [];
      const timed = async (username: string) => {
        const started = performance.now();
        expect((await timedApp.request('passwordForgot', { body: { username, tenantId } })).body).toEqual(FORGOT);
        return performance.now() - started;
      };
      for (let round = 0; round < 4; round++) {
        // A new code for the known user each round: the last one expired, an hour's 3 for unknown sources.
        timedDeps.clock.advance(1201);
        known.push(await timed('alice'));
        unknown.push(await timed(`nobody-${round}`));
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      // Both at least the floor (400 ms), and within 60 ms of each other.
      expect(Math.min(...known, ...unknown)).toBeGreaterThanOrEqual(395);
      expect(Math.abs(median(known) - median(unknown))).toBeLessThan(60);
    });

    it('sends to an active SMS method when there is no verified email, and to a known device at most one code per 60 s', async () => {
      const { tenantId, token, userId } = await newUser(null);
      const { deviceToken } = (await login(tenantId, PASSWORD)).body.data;
      await activateDelivered(app, deps, token, userId, 'SMS', '+15550102030');
      const fromDevice = () =>
        app.request('passwordForgot', { body: { username: 'alice', tenantId }, headers: { 'x-device-token': deviceToken } });
      expect((await fromDevice()).body).toEqual(FORGOT);
      const first = await deps.outbox.latest(tenantId, userId, 'SMS', 'reset');
      expect(first).toMatchObject({ destination: '+15550102030', purpose: 'reset' });
      deps.clock.advance(59);
      expect((await fromDevice()).body).toEqual(FORGOT);
      expect(await deps.outbox.latest(tenantId, userId, 'SMS', 'reset')).toEqual(first);
      deps.clock.advance(2);
      expect((await fromDevice()).body).toEqual(FORGOT);
      expect((await deps.outbox.latest(tenantId, userId, 'SMS', 'reset'))?.sentAt).toBeGreaterThan(first?.sentAt ?? 0);
    });

    it('sends an unknown source no new code while one is outstanding, and at most 3 an hour; a known device still gets its code', async () => {
      const { tenantId, userId } = await newUser();
      const { deviceToken } = (await login(tenantId, PASSWORD)).body.data;
      const sentAt = async () => (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset'))?.sentAt;
      expect((await forgot(tenantId)).body).toEqual(FORGOT);
      const first = await sentAt();
      // Outstanding (10 minutes, tries left): the code on its way serves; nothing new is sent.
      deps.clock.advance(599);
      expect((await forgot(tenantId)).body).toEqual(FORGOT);
      expect(await sentAt()).toBe(first);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'password_reset_code_not_sent', reason: 'outstanding' }));
      // Expired: a new one; and once more after that one expired: 3 in the hour.
      deps.clock.advance(2);
      await forgot(tenantId);
      const second = await sentAt();
      expect(second).toBeGreaterThan(first ?? 0);
      deps.clock.advance(601);
      await forgot(tenantId);
      const third = await sentAt();
      expect(third).toBeGreaterThan(second ?? 0);
      // The hour's 3 for unknown sources are spent: a fourth expired code brings no new one...
      deps.clock.advance(601);
      expect((await forgot(tenantId)).body).toEqual(FORGOT);
      expect(await sentAt()).toBe(third);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'password_reset_code_not_sent', reason: 'unknown_source_limit' }));
      // ...but a device the user signed in from gets its code, and it resets the password.
      const fromDevice = await app.request('passwordForgot', {
        body: { username: 'alice', tenantId },
        headers: { 'x-device-token': deviceToken },
      });
      expect(fromDevice.body).toEqual(FORGOT);
      expect(await sentAt()).toBeGreaterThan(third ?? 0);
      expect((await reset(tenantId, await resetCode(tenantId, userId))).status).toBe(200);
      // A device token of another account is an unknown source: the hour's 3 are still spent.
      const used = await sentAt();
      const other = await newUser('bob@example.com');
      const { deviceToken: bobsDevice } = (
        await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId: other.tenantId } })
      ).body.data;
      deps.clock.advance(61);
      await app.request('passwordForgot', { body: { username: 'alice', tenantId }, headers: { 'x-device-token': bobsDevice } });
      expect(await sentAt()).toBe(used);
      expect(deps.logs.filter((line) => line.event === 'password_reset_code_not_sent').at(-1)).toMatchObject({
        reason: 'unknown_source_limit',
      });
    });

    it("lets no stranger silence the user: after 4 anonymous forgot calls a minute apart, the password-changed notice and the user's own reset code still go", async () => {
      // The default quotas: 5 messages an hour to one address, 10 for one user.
      const quotaDeps = nearRealTime(await testDeps({ SEND_QUOTA_PER_DESTINATION: '5', SEND_QUOTA_PER_USER: '10' }));
      const quotaApp = testApp(quotaDeps);
      const tenantId = uniqueTenant('silence');
      const { token, user } = await registerAdmin(quotaApp, tenantId, 'alice', PASSWORD);
      const email = `${tenantId}@example.com`;
      await verifiedEmail(quotaApp, quotaDeps, token, tenantId, user.id, email);
      const { token: session, deviceToken } = (
        await quotaApp.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } })
      ).body.data;
      for (let call = 0; call < 4; call++) {
        expect((await quotaApp.request('passwordForgot', { body: { username: 'alice', tenantId } })).body).toEqual(FORGOT);
        quotaDeps.clock.advance(60);
      }
      const changed = await quotaApp.request('changePassword', {
        token: session,
        body: { currentPassword: PASSWORD, newPassword: 'a changed passphrase' },
      });
      expect(changed.body).toEqual({ success: true, data: { message: 'Password changed' } });
      const notices = await quotaDeps.outbox.notifications(tenantId, user.id);
      expect(notices.map((notice) => [notice.notification.event, notice.destination])).toEqual([['password-changed', email]]);
      expect(quotaDeps.logText()).not.toContain('"event":"notification_failed"');
      // The user's own reset, from the device they signed in from: a new code, which works.
      const before = (await quotaDeps.outbox.latest(tenantId, user.id, 'EMAIL', 'reset'))?.sentAt ?? 0;
      quotaDeps.clock.advance(60);
      const asked = await quotaApp.request('passwordForgot', {
        body: { username: 'alice', tenantId },
        headers: { 'x-device-token': deviceToken },
      });
      expect(asked.body).toEqual(FORGOT);
      const own = await quotaDeps.outbox.latest(tenantId, user.id, 'EMAIL', 'reset');
      expect(own?.sentAt).toBeGreaterThan(before);
      const reset = await quotaApp.request('passwordReset', {
        body: { username: 'alice', tenantId, code: own?.code, newPassword: NEW_PASSWORD },
      });
      expect(reset.body).toEqual({ success: true, data: { message: 'Password reset' } });
      expect((await quotaDeps.outbox.notifications(tenantId, user.id)).map((notice) => notice.notification.event)).toEqual([
        'password-reset',
        'password-changed',
      ]);
    });

    it('answers 202 when the code cannot be sent (a send quota), as for anyone', async () => {
      const { tenantId } = await newUser();
      const sending = deps.mfaDelivery;
      deps.mfaDelivery = {
        send: async () => {
          throw new Error('quota');
        },
      };
      try {
        expect(await forgot(tenantId)).toEqual({ status: 202, headers: expect.any(Object), body: FORGOT });
      } finally {
        deps.mfaDelivery = sending;
      }
      expect(deps.logText()).toContain('"event":"password_reset_code_not_sent"');
    });
  });

  describe('reset', () => {
    it('answers 200 Password reset, ends every session and OAuth grant, and clears the login lockout', async () => {
      const { tenantId, userId, token, refreshToken } = await newUser();
      const client = await createClient(app, token, tenantId);
      const grant = await grantTokens(app, token, client);
      for (let attempt = 0; attempt < 5; attempt++) await login(tenantId, 'not the password');
      expect((await login(tenantId, PASSWORD)).body).toEqual(failure('Too many failed attempts'));

      await forgot(tenantId);
      const response = await reset(tenantId, await resetCode(tenantId, userId));
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'Password reset' } },
      });
      expect(await app.request('me', { token })).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
      expect((await app.request('refreshToken', { body: { refreshToken } })).body).toEqual(failure('Invalid refresh token'));
      const oauthRefresh = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: grant.refresh_token }),
      );
      expect(oauthRefresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await login(tenantId, NEW_PASSWORD)).status).toBe(200);
      expect((await login(tenantId, PASSWORD)).body).toEqual(failure('Invalid credentials'));
      expect(deps.logText()).not.toContain(NEW_PASSWORD);
    });

    it.each([
      ['a wrong code', async (code: string) => ({ code: wrong(code) })],
      ['a code not of 6 digits', async () => ({ code: 'abcdef' })],
    ])('answers 400 Invalid reset code for %s, and changes nothing', async (_, body) => {
      const { tenantId, userId, token } = await newUser();
      await forgot(tenantId);
      const response = await reset(tenantId, '', await body(await resetCode(tenantId, userId)));
      expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid reset code') });
      expect((await app.request('me', { token })).status).toBe(200);
    });

    it('answers 400 Invalid reset code for an expired code, a used one, and without any', async () => {
      const { tenantId, userId } = await newUser();
      expect((await reset(tenantId, '123456')).body).toEqual(failure('Invalid reset code'));
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId);
      deps.clock.advance(600);
      expect((await reset(tenantId, code)).body).toEqual(failure('Invalid reset code'));
      deps.clock.advance(1);
      await forgot(tenantId);
      const fresh = await resetCode(tenantId, userId);
      expect((await reset(tenantId, fresh)).status).toBe(200);
      expect((await reset(tenantId, fresh, { newPassword: 'yet another passphrase' })).body).toEqual(failure('Invalid reset code'));
    });

    it('kills a code after 5 tries, and refuses a sixth wrong code for the username whatever code is sent next (429)', async () => {
      const { tenantId, userId } = await newUser();
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId);
      for (let attempt = 0; attempt < 4; attempt++)
        expect((await reset(tenantId, wrong(code))).body).toEqual(failure('Invalid reset code'));
      // The fifth try is spent by a wrong code too: the right one is then refused.
      expect((await reset(tenantId, wrong(code))).body).toEqual(failure('Invalid reset code'));
      const sixth = await reset(tenantId, code);
      expect(sixth).toEqual({
        status: 429,
        headers: expect.objectContaining({ 'Retry-After': expect.any(String) }),
        body: failure('Too many failed attempts'),
      });
      // With the username's counter cleared, the code itself is dead: its 5 tries are spent.
      await deps.store.attempts.clear({ kind: 'reset', tenantId, username: 'alice' });
      expect((await reset(tenantId, code)).body).toEqual(failure('Invalid reset code'));
      expect((await login(tenantId, PASSWORD)).status).toBe(200);
    });

    it('answers 400 Password is too common and a validation failure for a short password, keeping the code', async () => {
      const { tenantId, userId } = await newUser();
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId);
      expect((await reset(tenantId, code, { newPassword: 'password123' })).body).toEqual(failure('Password is too common'));
      expect((await reset(tenantId, code, { newPassword: 'short' })).body).toEqual(
        failure('newPassword: Too small: expected string to have >=6 characters'),
      );
      expect((await reset(tenantId, code)).status).toBe(200);
    });

    it('requires a second factor other than the reset channel: 401 MFA code required with X-MFA-Methods, then a TOTP code', async () => {
      const { tenantId, userId, token } = await newUser();
      const { code: totp } = await activateTotp(app, deps, token);
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId);
      const required = await reset(tenantId, code);
      expect(required).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP' }),
        body: failure('MFA code required'),
      });
      expect((await reset(tenantId, code, { mfaCode: wrong(totp()) })).body).toEqual(failure('Invalid MFA code'));
      expect((await login(tenantId, PASSWORD)).body).toEqual(failure('MFA code required'));
      expect((await reset(tenantId, code, { mfaCode: totp(), mfaMethod: 'TOTP' })).status).toBe(200);
    });

    it('refuses a reset of an MFA user whose only factor is the reset channel: 401 MFA code required, password unchanged', async () => {
      const { tenantId, userId, token } = await newUser(null);
      await activateDelivered(app, deps, token, userId, 'SMS', '+15550102031');
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId, 'SMS');
      const refused = await reset(tenantId, code);
      expect(refused).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': '' }),
        body: failure('MFA code required'),
      });
      // The reset channel itself does not count as the second factor.
      const smsCode = (await deps.outbox.latest(tenantId, userId, 'SMS'))?.code ?? '';
      expect((await reset(tenantId, code, { mfaMethod: 'SMS', mfaCode: smsCode })).body).toEqual(failure('MFA code required'));
      expect((await login(tenantId, NEW_PASSWORD)).body).toEqual(failure('Invalid credentials'));
    });

    it('takes a recovery code when the reset channel is the only method: the phone that holds the codes is lost (docs/api.md 8.6)', async () => {
      const { tenantId, userId, token } = await newUser(null);
      await activateDelivered(app, deps, token, userId, 'SMS', '+15550102032');
      deps.clock.advance(31);
      await app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId } });
      const smsLogin = await app.request('login', {
        body: { username: 'alice', password: PASSWORD, tenantId, mfaCode: (await deps.outbox.latest(tenantId, userId, 'SMS'))?.code },
      });
      const codes = (await app.request('generateRecoveryCodes', { token: smsLogin.body.data.token })).body.data.codes as string[];
      deps.clock.advance(61);
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId, 'SMS');
      const required = await reset(tenantId, code);
      expect(required).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'RECOVERY' }),
        body: failure('MFA code required'),
      });
      expect((await reset(tenantId, code, { mfaMethod: 'RECOVERY', mfaCode: 'aaaa-bbbb-cccc' })).body).toEqual(failure('Invalid MFA code'));
      expect((await reset(tenantId, code, { mfaMethod: 'RECOVERY', mfaCode: codes[0] })).status).toBe(200);
      expect((await login(tenantId, NEW_PASSWORD)).body).toEqual(failure('MFA code required'));
      // The code is used up.
      const again = await app.request('login', {
        body: { username: 'alice', password: NEW_PASSWORD, tenantId, mfaMethod: 'RECOVERY', mfaCode: codes[0] },
      });
      expect(again.body).toEqual(failure('Invalid MFA code'));
    });

    it('accepts an EMAIL method at another address than the verified email the code went to', async () => {
      const { tenantId, userId, token } = await newUser();
      await activateDelivered(app, deps, token, userId, 'EMAIL', 'second@example.com');
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId);
      const required = await reset(tenantId, code);
      expect(required).toMatchObject({ status: 401, headers: expect.objectContaining({ 'X-MFA-Methods': 'EMAIL' }) });
      const mfaCode = (await deps.outbox.latest(tenantId, userId, 'EMAIL'))?.code;
      expect((await reset(tenantId, code, { mfaMethod: 'EMAIL', mfaCode })).status).toBe(200);
    });
  });
  describe('passkeys at a reset (docs/api.md 8.7)', () => {
    /** A user with a verified email and a passkey named `Laptop`, and a session it signed in. */
    async function userWithPasskey() {
      const user = await newUser();
      const authenticator = softwareAuthenticator();
      const options = await app.request('passkeyRegistrationOptions', { token: user.token, body: {} });
      const credential = authenticator.create(options.body.data.options).response;
      const registered = await app.request('passkeyRegistration', { token: user.token, body: { credential, name: 'Laptop' } });
      expect(registered.status).toBe(201);
      const passkeySession = await signInWithPasskey(user.tenantId, authenticator);
      expect(passkeySession.status).toBe(200);
      return {
        ...user,
        authenticator,
        passkeyId: String(registered.body.data.passkey.id),
        passkeyToken: String(passkeySession.body.data.token),
      };
    }
    async function signInWithPasskey(tenantId: string, authenticator: ReturnType<typeof softwareAuthenticator>) {
      const options = await app.request('passkeyAuthenticationOptions', { body: { tenantId } });
      const credential = authenticator.get(options.body.data.options);
      return app.request('passkeyAuthentication', { body: { tenantId, credential } });
    }
    const resetNotice = async (tenantId: string, userId: string) =>
      (await deps.outbox.notifications(tenantId, userId)).find((sent) => sent.notification.event === 'password-reset')?.notification;
    const events = async (tenantId: string, userId: string, type: AuditEventType) =>
      (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 50, userId, type })).events;
    const today = () => new Date(deps.clock.now()).toISOString().slice(0, 10);

    it('keeps the passkeys by default, and the notification names them with the way to remove them', async () => {
      const { tenantId, userId, authenticator, passkeyToken } = await userWithPasskey();
      await forgot(tenantId);
      expect((await reset(tenantId, await resetCode(tenantId, userId))).status).toBe(200);
      const notice = await resetNotice(tenantId, userId);
      expect(notice?.text).toContain(`These passkeys still sign in to your account without the password: “Laptop” (added ${today()}).`);
      expect(notice?.text).toContain(
        'sign in and remove it from your passkeys, or reset your password again and choose to remove every passkey',
      );
      expect(notice?.html).toContain(
        `<p>These passkeys still sign in to your account without the password: “Laptop” (added ${today()}).</p>`,
      );
      // The reset ended the passkey's session, but the passkey itself still signs in.
      expect((await app.request('listPasskeys', { token: passkeyToken })).body).toEqual(failure('Unauthorized'));
      expect((await signInWithPasskey(tenantId, authenticator)).status).toBe(200);
      expect(await events(tenantId, userId, 'password_reset')).toEqual([expect.objectContaining({ details: { username: 'alice' } })]);
    });

    it('removes every passkey with removePasskeys: true, in the reset itself, audited and told', async () => {
      const { tenantId, userId, token, authenticator, passkeyToken } = await userWithPasskey();
      const second = softwareAuthenticator();
      const options = await app.request('passkeyRegistrationOptions', { token, body: {} });
      const credential = second.create(options.body.data.options).response;
      expect((await app.request('passkeyRegistration', { token, body: { credential, name: 'Phone' } })).status).toBe(201);
      await forgot(tenantId);
      const response = await reset(tenantId, await resetCode(tenantId, userId), { removePasskeys: true });
      expect(response).toEqual({ status: 200, headers: expect.any(Object), body: { success: true, data: { message: 'Password reset' } } });
      expect(await deps.store.passkeys.listByUser(tenantId, userId)).toEqual([]);
      for (const removed of [authenticator, second]) {
        expect((await signInWithPasskey(tenantId, removed)).body).toEqual(failure('Invalid passkey'));
      }
      expect((await app.request('listPasskeys', { token: passkeyToken })).body).toEqual(failure('Unauthorized'));
      expect(await events(tenantId, userId, 'password_reset')).toEqual([
        expect.objectContaining({ outcome: 'success', details: { username: 'alice', passkeysRemoved: 2 } }),
      ]);
      const notice = await resetNotice(tenantId, userId);
      expect(notice?.text).toContain('Your passkeys were removed with the reset: ');
      expect(notice?.text).toContain(`“Laptop” (added ${today()})`);
      expect(notice?.text).toContain(`“Phone” (added ${today()})`);
      expect(notice?.text).not.toContain('still sign in');
      // The new password signs in; the passkeys can be added again.
      expect((await login(tenantId, NEW_PASSWORD)).status).toBe(200);
    });

    it('keeps them with removePasskeys: false, and refuses a removePasskeys that is not a boolean, changing nothing', async () => {
      const { tenantId, userId, authenticator } = await userWithPasskey();
      await forgot(tenantId);
      const code = await resetCode(tenantId, userId);
      const refused = await reset(tenantId, code, { removePasskeys: 'yes' });
      expect(refused).toEqual({
        status: 400,
        headers: expect.any(Object),
        body: failure('removePasskeys: Invalid input: expected boolean, received string'),
      });
      expect((await login(tenantId, PASSWORD)).status).toBe(200);
      expect((await reset(tenantId, code, { removePasskeys: false })).status).toBe(200);
      expect(await deps.store.passkeys.listByUser(tenantId, userId)).toHaveLength(1);
      expect((await signInWithPasskey(tenantId, authenticator)).status).toBe(200);
    });
  });
});
