import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../../lib/events/event';
import { type App, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps } from '../helpers/deps';
import { DEVICE_GRANT, deviceBrowser, deviceCodes, postDeviceForm } from '../helpers/device';
import { eventCount, lastEvents } from '../helpers/events';
import { browserAuthorize, CookieJar, postForm } from '../helpers/hosted';
import { createClient, grantTokens, type OAuthTenant, oauthTenant, type TestClient, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';
const BYE = 'https://app.example.com/bye';

/**
 * The events of sessions and grants that end, and of the device page (docs/events.md,
 * Sessions and apps): `data.reason` says why, `data.endedSessions` which sessions ended.
 */
describe('session and app events', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let tenantId: string;
  let origin: string;
  let device: TestClient;
  let serial = 0;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenant = await oauthTenant(app);
    tenantId = tenant.tenantId;
    const body = { first_party: true, scope: 'openid orders:read', post_logout_redirect_uris: BYE };
    await app.request('updateOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId: tenant.client.clientId }, body });
    device = await createClient(app, tenant.adminToken, tenantId, { grantTypes: DEVICE_GRANT, scope: 'orders:read' });
  });

  const newUser = async () => {
    const username = `user-${serial++}`;
    const signedIn = await registerStaff(app, tenant.adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId });
    const { token, refreshToken } = signedIn;
    return { username, userId: signedIn.user.id, token, refreshToken, sessionId: String(decodeJwt(token).sid) };
  };
  /** The events of one request for the subject: what its write carried, none if it carried none. */
  const eventsOf = async (subject: string, request: () => Promise<{ status: number; body?: unknown }>, status: number) => {
    const before = await eventCount(deps, tenantId, subject);
    const response = await request();
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    const after = await eventCount(deps, tenantId, subject);
    const events = after === before ? [] : await lastEvents(deps, tenantId, subject);
    return events.map(({ type, subject: about, tenantid, data }: CloudEvent) => ({ type, subject: about, tenantid, data }));
  };
  const event = (type: string, subject: string, data: Record<string, unknown>, actor: Record<string, unknown>) => ({
    type,
    subject,
    tenantid: tenantId,
    data: { ...data, actor },
  });
  const self = (userId: string) => ({ type: 'user', id: userId });

  it('a session revoked by its user ends that session; an unknown one publishes nothing', async () => {
    const { username, userId, token } = await newUser();
    const other = await app.request('login', { body: { tenantId, username, password: PASSWORD } });
    const otherId = String(decodeJwt(other.body.data.token).sid);
    const revoke = (id: string) => () => app.request('revokeSession', { token, pathParameters: { sessionId: id } });
    expect(await eventsOf(userId, revoke('no-such-session-id-000'), 404)).toEqual([]);
    expect(await eventsOf(userId, revoke(otherId), 200)).toEqual([
      event('identity.session.revoked', userId, { reason: 'revoked', endedSessions: [otherId] }, self(userId)),
    ]);
  });

  it('signing out the other sessions ends them all but the caller’s', async () => {
    const { userId, token, sessionId } = await newUser();
    expect(await eventsOf(userId, () => app.request('revokeOtherSessions', { token }), 200)).toEqual([
      event('identity.session.revoked', userId, { reason: 'other_sessions', endedSessions: 'all', keptSessionId: sessionId }, self(userId)),
    ]);
  });

  it('a reused refresh token ends its session, by the service', async () => {
    const { userId, refreshToken, sessionId } = await newUser();
    expect(await eventsOf(userId, () => app.request('refreshToken', { body: { refreshToken } }), 200)).toEqual([]);
    expect(await eventsOf(userId, () => app.request('refreshToken', { body: { refreshToken } }), 401)).toEqual([
      event(
        'identity.session.revoked',
        userId,
        { reason: 'refresh_token_reused', endedSessions: [sessionId] },
        { type: 'system', id: null },
      ),
    ]);
  });

  it('a grant revoked by its user, and one ended by a reused refresh token, publish identity.grant.revoked', async () => {
    const { userId, token } = await newUser();
    const client = tenant.client;
    const first = await grantTokens(app, token, client);
    const grantOf = async () => {
      const listed = await app.request('listGrants', { token });
      return (listed.body.data.grants as Array<{ id: string }>).map((grant) => grant.id);
    };
    const [grantId = ''] = await grantOf();
    const revoke = (id: string) => () => app.request('revokeGrant', { token, pathParameters: { grantId: id } });
    expect(await eventsOf(userId, revoke('no-such-grant'), 404)).toEqual([]);
    expect(await eventsOf(userId, revoke(grantId), 200)).toEqual([
      event('identity.grant.revoked', userId, { reason: 'revoked', grantId, clientId: client.clientId }, self(userId)),
    ]);

    const second = await grantTokens(app, token, client);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const [reusedGrant = ''] = (await grantOf()).filter((id) => id !== grantId);
    const refresh = () =>
      app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: second.refresh_token }));
    expect(await eventsOf(userId, refresh, 200)).toEqual([]);
    expect(await eventsOf(userId, refresh, 400)).toEqual([
      event(
        'identity.grant.revoked',
        userId,
        { reason: 'refresh_token_reused', grantId: reusedGrant, clientId: client.clientId },
        { type: 'client', id: client.clientId },
      ),
    ]);
  });

  it('RP-initiated logout ends the browser session, naming the client', async () => {
    const { username, userId } = await newUser();
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, tenant.client, { scope: 'openid', nonce: 'n-1' });
    const back = await postForm(app, jar, 'hostedSignIn', { csrf: begun.csrf, username, password: PASSWORD }, origin);
    const code = new URL(back.headers.Location ?? '').searchParams.get('code') ?? '';
    const fields = { grant_type: 'authorization_code', code, redirect_uri: tenant.client.redirectUri, code_verifier: begun.verifier };
    const idToken = String((await app.request('oauth2Token', tokenRequest(tenant.client, fields))).body.id_token);
    const sid = String(decodeJwt(idToken).sid);
    const logout = async () =>
      jar.take(
        await app.request('oauth2Logout', {
          method: 'GET',
          headers: { accept: 'text/html', ...jar.header() },
          query: { id_token_hint: idToken, post_logout_redirect_uri: BYE },
        }),
      );
    expect(await eventsOf(userId, logout, 302)).toEqual([
      event(
        'identity.session.revoked',
        userId,
        { reason: 'signed_out', endedSessions: [sid], clientId: tenant.client.clientId },
        self(userId),
      ),
    ]);
  });

  it('the device page publishes identity.device.approved and identity.device.denied; a used code, nothing', async () => {
    const { username, userId } = await newUser();
    const browser = await deviceBrowser(app, origin, tenantId, username, PASSWORD);
    const sessionId = (await deps.store.sessions.listByUser(tenantId, userId)).find((session) => session.browserHash)?.id;
    const decide = async (userCode: string, decision: 'allow' | 'deny') => {
      await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode });
      return postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode, decision });
    };
    const approved = await deviceCodes(app, device);
    expect(await eventsOf(userId, () => decide(approved.user_code, 'allow'), 303)).toEqual([
      event('identity.device.approved', userId, { clientId: device.clientId, sessionId }, self(userId)),
    ]);
    const denied = await deviceCodes(app, device);
    expect(await eventsOf(userId, () => decide(denied.user_code, 'deny'), 303)).toEqual([
      event('identity.device.denied', userId, { clientId: device.clientId, sessionId }, self(userId)),
    ]);
    expect(await eventsOf(userId, () => decide(denied.user_code, 'allow'), 400)).toEqual([]);
  });
});
