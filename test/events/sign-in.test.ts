import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../../lib/events/event';
import { type App, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { type TestDeps, testDeps } from '../helpers/deps';
import { eventCount, lastEvents } from '../helpers/events';
import { browserAuthorize, CookieJar, postForm } from '../helpers/hosted';
import { activateTotp } from '../helpers/mfa';
import { type OAuthTenant, oauthTenant } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';

/**
 * The events of the one sign-in pipeline (docs/events.md, Sign-in and credentials): a
 * success rides on the session's creation, a refusal is an event of its own; a step that
 * is no outcome of the sign-in (a reauthentication) publishes none.
 */
describe('sign-in events', () => {
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
    return { username, userId: signedIn.user.id, token: signedIn.token };
  };
  const login = (username: string, password: string, extra: Record<string, string> = {}) =>
    app.request('login', { body: { tenantId, username, password, ...extra } });
  const envelope = (type: string, subject: string | undefined, data: Record<string, unknown>) => ({
    specversion: '1.0',
    id: expect.any(String),
    source: deps.config.issuer,
    type,
    time: new Date(deps.clock.now()).toISOString(),
    ...(subject === undefined ? {} : { subject }),
    tenantid: tenantId,
    datacontenttype: 'application/json',
    sequence: expect.stringMatching(/^\d+$/),
    data,
  });
  const self = (userId: string) => ({ type: 'user', id: userId });

  it('a password login publishes identity.login.succeeded with the new session, carried by its write', async () => {
    const { username, userId } = await newUser();
    const before = await eventCount(deps, tenantId, userId);
    const response = await login(username, PASSWORD);
    expect(response.status).toBe(200);
    const sessionId = decodeJwt(response.body.data.token).sid;
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.login.succeeded', userId, { username, sessionId, methods: ['pwd'], actor: self(userId) }),
    ]);
    expect(await eventCount(deps, tenantId, userId)).toBe(before + 1);
  });

  it('a wrong password publishes identity.login.failed; the lockout, identity.login.locked; no secret in either', async () => {
    const { username, userId } = await newUser();
    const before = await eventCount(deps, tenantId, userId);
    expect((await login(username, 'not the password')).status).toBe(401);
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.login.failed', userId, { username, reason: 'wrong_password', actor: self(userId) }),
    ]);
    for (let attempt = 0; attempt < 4; attempt++) expect((await login(username, 'not the password')).status).toBe(401);
    expect((await login(username, PASSWORD)).status).toBe(429);
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.login.locked', userId, { username, reason: 'password_attempts', actor: self(userId) }),
    ]);
    expect(await eventCount(deps, tenantId, userId)).toBe(before + 6);
    expect(JSON.stringify(await lastEvents(deps, tenantId, userId))).not.toContain(PASSWORD);
  });

  it('an unknown username publishes identity.login.failed without a subject, naming the username', async () => {
    const username = `nobody-${serial++}`;
    expect((await login(username, 'whatever it is')).status).toBe(401);
    const subjectless = (await lastEvents(deps, tenantId, null)).filter((event) => event.data.username === username);
    expect(subjectless).toEqual([
      envelope('identity.login.failed', undefined, { username, reason: 'unknown_user', actor: { type: 'user', id: null } }),
    ]);
  });

  it('with MFA: a login without its code or with a wrong one is a failure, a right one a success with its methods', async () => {
    const { username, userId, token } = await newUser();
    const { code } = await activateTotp(app, deps, token);
    const before = await eventCount(deps, tenantId, userId);
    expect((await login(username, PASSWORD)).status).toBe(401);
    expect(await eventCount(deps, tenantId, userId)).toBe(before + 1);
    expect((await lastEvents(deps, tenantId, userId)).map((event) => event.data.reason)).toEqual(['mfa_required']);

    expect((await login(username, PASSWORD, { mfaCode: '000000', mfaMethod: 'TOTP' })).status).toBe(401);
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.login.failed', userId, { username, reason: 'invalid_mfa_code', method: 'TOTP', actor: self(userId) }),
    ]);
    const signedIn = await login(username, PASSWORD, { mfaCode: code(), mfaMethod: 'TOTP' });
    expect(signedIn.status).toBe(200);
    const [succeeded] = await lastEvents(deps, tenantId, userId);
    expect(succeeded?.data).toEqual({
      username,
      sessionId: decodeJwt(signedIn.body.data.token).sid,
      methods: ['pwd', 'otp'],
      actor: self(userId),
    });
    expect(await eventCount(deps, tenantId, userId)).toBe(before + 3);
  });

  it('a hosted sign-in names the client in its success; a refused one publishes its failure', async () => {
    const { username, userId } = await newUser();
    const origin = new URL(deps.config.issuer).origin;
    const jar = new CookieJar();
    const { csrf } = await browserAuthorize(app, jar, tenant.client);
    const before = await eventCount(deps, tenantId, userId);
    await postForm(app, jar, 'hostedSignIn', { csrf, username, password: 'not the password' }, origin);
    expect((await lastEvents(deps, tenantId, userId)).map((event) => [event.type, event.data.reason])).toEqual([
      ['identity.login.failed', 'wrong_password'],
    ]);
    await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin);
    const [succeeded] = (await lastEvents(deps, tenantId, userId)) as [CloudEvent];
    expect(succeeded).toEqual(
      envelope('identity.login.succeeded', userId, {
        username,
        sessionId: expect.any(String),
        methods: ['pwd'],
        clientId: tenant.client.clientId,
        actor: self(userId),
      }),
    );
    expect(await eventCount(deps, tenantId, userId)).toBe(before + 2);

    // Signing in again in the same browser ends its previous session: published as an ending.
    const again = await browserAuthorize(app, jar, tenant.client, { prompt: 'login' });
    await postForm(app, jar, 'hostedSignIn', { csrf: again.csrf, username, password: PASSWORD }, origin);
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.session.revoked', userId, {
        reason: 'signed_in_again',
        endedSessions: [succeeded.data.sessionId],
        actor: self(userId),
      }),
    ]);
  });

  it('a passkey sign-in names its passkey, in its success and in its refusal', async () => {
    const { username, userId, token } = await newUser();
    const device = softwareAuthenticator();
    const creation = (await app.request('passkeyRegistrationOptions', { token, body: {} })).body.data.options;
    const registered = await app.request('passkeyRegistration', { token, body: { credential: device.create(creation).response } });
    const passkeyId = registered.body.data.passkey.id;
    const options = async () => (await app.request('passkeyAuthenticationOptions', { body: { tenantId, username } })).body.data.options;
    const signIn = async (credential: unknown) => app.request('passkeyAuthentication', { body: { tenantId, credential } });
    const before = await eventCount(deps, tenantId, userId);

    const response = await signIn(device.get(await options()));
    expect(response.status).toBe(200);
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.login.succeeded', userId, {
        username,
        sessionId: decodeJwt(response.body.data.token).sid,
        methods: decodeJwt(response.body.data.token).amr,
        passkeyId,
        actor: self(userId),
      }),
    ]);
    // The same assertion again: its challenge is spent.
    const replayed = device.get(await options());
    expect((await signIn(replayed)).status).toBe(200);
    expect((await signIn(replayed)).status).toBe(401);
    expect(await lastEvents(deps, tenantId, userId)).toEqual([
      envelope('identity.login.failed', userId, { username, reason: 'invalid_passkey', passkeyId, actor: self(userId) }),
    ]);
    expect(await eventCount(deps, tenantId, userId)).toBe(before + 3);
  });

  it('reauthentication publishes no sign-in', async () => {
    const { userId, token } = await newUser();
    const before = await eventCount(deps, tenantId, userId);
    const response = await app.request('reauthenticate', { token, body: { password: PASSWORD } });
    expect(response.status).toBe(200);
    expect(await eventCount(deps, tenantId, userId)).toBe(before);
  });
});
