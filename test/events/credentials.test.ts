import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../../lib/events/event';
import { secondFactor } from '../../lib/mfa/second-factor';
import { type App, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { type TestDeps, testDeps } from '../helpers/deps';
import { eventCount, lastEvents } from '../helpers/events';
import { activateTotp, authenticator, newTotpSecret } from '../helpers/mfa';
import { type OAuthTenant, oauthTenant } from '../helpers/oauth';
import { verifiedEmail } from '../helpers/recovery';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

/**
 * The events of the user's own credentials (docs/events.md, Sign-in and credentials):
 * each change's write carries its event; a refusal changes nothing and publishes nothing.
 */
describe('credential events', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let tenantId: string;
  let serial = 0;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenant = await oauthTenant(app);
    tenantId = tenant.tenantId;
  });

  const newUser = async () => {
    const username = `user-${serial++}`;
    const signedIn = await registerStaff(app, tenant.adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId });
    return { username, userId: signedIn.user.id, token: signedIn.token, sessionId: String(decodeJwt(signedIn.token).sid) };
  };
  /** The events of one request for the user: what its write carried, and that it was one write. */
  const eventsOf = async (userId: string, request: () => Promise<{ status: number }>, status: number) => {
    const before = await eventCount(deps, tenantId, userId);
    const response = await request();
    expect(response.status, JSON.stringify(response)).toBe(status);
    const events = await lastEvents(deps, tenantId, userId);
    const after = await eventCount(deps, tenantId, userId);
    return after === before ? [] : events.map(({ type, subject, tenantid, data }: CloudEvent) => ({ type, subject, tenantid, data }));
  };
  const event = (type: string, userId: string, data: Record<string, unknown>, actorId: string | null = userId) => ({
    type,
    subject: userId,
    tenantid: tenantId,
    data: { ...data, actor: { type: 'user', id: actorId } },
  });

  it('a password change publishes identity.password.changed, ending every session but the caller’s; a refused one, nothing', async () => {
    const { userId, token, sessionId } = await newUser();
    const change = (currentPassword: string, newPassword: string) => () =>
      app.request('changePassword', { token, body: { currentPassword, newPassword } });
    expect(await eventsOf(userId, change('not the password', NEW_PASSWORD), 400)).toEqual([]);
    expect(await eventsOf(userId, change(PASSWORD, NEW_PASSWORD), 200)).toEqual([
      event('identity.password.changed', userId, { endedSessions: 'all', keptSessionId: sessionId }),
    ]);
  });

  it('a reset request publishes identity.password.reset_requested with its code; the reset, identity.password.reset', async () => {
    const { username, userId, token } = await newUser();
    await verifiedEmail(app, deps, token, tenantId, userId, `${username}@example.com`);
    const forgot = () => app.request('passwordForgot', { body: { username, tenantId } });
    expect(await eventsOf(userId, forgot, 202)).toEqual([event('identity.password.reset_requested', userId, {}, null)]);
    // Within 60 s no new code goes out: nothing changed, nothing is published.
    expect(await eventsOf(userId, forgot, 202)).toEqual([]);
    const code = (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset'))?.code ?? '';
    const reset = (tried: string) => () =>
      app.request('passwordReset', { body: { username, tenantId, code: tried, newPassword: NEW_PASSWORD } });
    expect(await eventsOf(userId, reset(code === '000000' ? '111111' : '000000'), 400)).toEqual([]);
    expect(await eventsOf(userId, reset(code), 200)).toEqual([event('identity.password.reset', userId, { endedSessions: 'all' }, null)]);
  });

  it('MFA: a method added, activated (ending the other sessions), removed; recovery codes generated and used', async () => {
    const { username, userId, token, sessionId } = await newUser();
    const secret = newTotpSecret();
    const code = authenticator(deps, secret);
    const enable = (body: Record<string, string>) => () => app.request('enableMFA', { token, body });
    expect(await eventsOf(userId, enable({ method: 'TOTP', secret: 'not base32!' }), 400)).toEqual([]);
    expect(await eventsOf(userId, enable({ method: 'TOTP', secret }), 200)).toEqual([
      event('identity.mfa.method_added', userId, { method: 'TOTP' }),
    ]);
    const verify = (typed: string) => () => app.request('verifyMFA', { token, body: { method: 'TOTP', code: typed } });
    expect(await eventsOf(userId, verify(code() === '000000' ? '111111' : '000000'), 400)).toEqual([]);
    expect(await eventsOf(userId, verify(code()), 200)).toEqual([
      event('identity.mfa.method_activated', userId, { method: 'TOTP', endedSessions: 'all', keptSessionId: sessionId }),
    ]);
    deps.clock.advance(30);

    const signedIn = await app.request('login', { body: { tenantId, username, password: PASSWORD, mfaCode: code() } });
    const mfaToken = signedIn.body.data.token;
    let codes: string[] = [];
    expect(
      await eventsOf(
        userId,
        async () => {
          const response = await app.request('generateRecoveryCodes', { token: mfaToken });
          codes = response.body.data.codes;
          return response;
        },
        200,
      ),
    ).toEqual([event('identity.mfa.recovery_codes_generated', userId, {})]);
    // The use of a recovery code is its own write, before the session's (lib/mfa/second-factor.ts).
    const account = { tenantId, userId, username };
    const used = () => secondFactor(deps, account, { mfaMethod: 'RECOVERY', mfaCode: codes[0] }).then(() => ({ status: 200 }));
    expect(await eventsOf(userId, used, 200)).toEqual([event('identity.mfa.recovery_code_used', userId, { remaining: 9 })]);

    const disable = (method: string) => () => app.request('disableMFA', { token: mfaToken, body: { method } });
    expect(await eventsOf(userId, disable('SMS'), 400)).toEqual([]);
    expect(await eventsOf(userId, disable('TOTP'), 200)).toEqual([event('identity.mfa.method_removed', userId, { method: 'TOTP' })]);
  });

  it('a second method activated ends no session', async () => {
    const { username, userId, token: first } = await newUser();
    const { code } = await activateTotp(app, deps, first);
    const token = (await app.request('login', { body: { tenantId, username, password: PASSWORD, mfaCode: code() } })).body.data.token;
    const enabled = await app.request('enableMFA', { token, body: { method: 'EMAIL', secret: 'second@example.com' } });
    expect(enabled.status).toBe(200);
    const sent = await deps.outbox.latest(tenantId, userId, 'EMAIL');
    const verify = () => app.request('verifyMFA', { token, body: { method: 'EMAIL', code: sent?.code } });
    expect(await eventsOf(userId, verify, 200)).toEqual([event('identity.mfa.method_activated', userId, { method: 'EMAIL' })]);
  });

  it('passkeys: registered and removed; a removal of an unknown one publishes nothing', async () => {
    const { userId, token } = await newUser();
    const device = softwareAuthenticator();
    const register = async () => {
      const options = (await app.request('passkeyRegistrationOptions', { token, body: {} })).body.data.options;
      return app.request('passkeyRegistration', { token, body: { credential: device.create(options).response, name: 'Laptop' } });
    };
    let passkeyId = '';
    const registered = await eventsOf(
      userId,
      async () => {
        const response = await register();
        passkeyId = response.body.data.passkey.id;
        return response;
      },
      201,
    );
    expect(registered).toEqual([event('identity.passkey.registered', userId, { passkeyId, name: 'Laptop' })]);
    const remove = (id: string) => () => app.request('removePasskey', { token, pathParameters: { id } });
    expect(await eventsOf(userId, remove('no-such-passkey'), 404)).toEqual([]);
    expect(await eventsOf(userId, remove(passkeyId), 200)).toEqual([event('identity.passkey.removed', userId, { passkeyId })]);
  });

  it('email: changed (without the address) and verified; a wrong code publishes nothing', async () => {
    const { username, userId, token } = await newUser();
    const address = `${username}@example.com`;
    const set = () => app.request('emailSet', { token, body: { email: address } });
    expect(await eventsOf(userId, set, 200)).toEqual([event('identity.user.email_changed', userId, {})]);
    const code = (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'verify-email'))?.code ?? '';
    const verify = (typed: string) => () => app.request('emailVerify', { token, body: { code: typed } });
    expect(await eventsOf(userId, verify(code === '000000' ? '111111' : '000000'), 400)).toEqual([]);
    expect(await eventsOf(userId, verify(code), 200)).toEqual([event('identity.user.email_verified', userId, {})]);
    expect(JSON.stringify(await lastEvents(deps, tenantId, userId))).not.toContain(address);
  });
});
