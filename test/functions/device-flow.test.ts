import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import {
  DEVICE_GRANT,
  deviceAuthorization,
  deviceBrowser,
  deviceCodes,
  openDevicePage,
  pollToken,
  postDeviceForm,
} from '../helpers/device';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { CookieJar } from '../helpers/hosted';
import { createClient, type TestClient, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';
const NO_CACHE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** The device authorization grant (docs/api.md 16.4, RFC 8628): the codes, the device page, the token endpoint's answers. */
describe('device authorization grant', () => {
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let tenantId: string;
  let adminToken: string;
  let device: TestClient;
  let other: { tenantId: string; client: TestClient };

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenantId = uniqueTenant('device');
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
    device = await createClient(app, adminToken, tenantId, { grantTypes: `${DEVICE_GRANT} refresh_token`, scope: 'openid orders:read' });
    const otherTenant = uniqueTenant('device-other');
    const otherAdmin = await registerAdmin(app, otherTenant, 'admin', PASSWORD);
    other = {
      tenantId: otherTenant,
      client: await createClient(app, otherAdmin.token, otherTenant, { grantTypes: DEVICE_GRANT, scope: 'orders:read' }),
    };
  });

  /** A new staff member of the tenant, signed in at the device page. */
  async function signedInStaff() {
    const username = `staff-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId });
    return { ...(await deviceBrowser(app, origin, tenantId, username, PASSWORD)), token: staff.token, userId: staff.user.id };
  }

  /** Types `userCode` on the device page and takes `decision`. */
  async function decide(browser: { jar: CookieJar; csrf: string }, userCode: string, decision: 'allow' | 'deny') {
    const shown = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode });
    expect(shown.status).toBe(200);
    return postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode, decision });
  }

  const later = (seconds: number) => deps.clock.set(deps.clock.now() + seconds * 1000);
  const oauthFailure = (error: string, description: string) => ({
    status: error === 'invalid_client' ? 401 : 400,
    headers: expect.objectContaining(NO_CACHE),
    body: { error, error_description: description },
  });

  it('answers the device its codes (RFC 8628 3.2)', async () => {
    const response = await deviceAuthorization(app, device, 'orders:read');
    expect(response).toMatchObject({ status: 200, headers: expect.objectContaining(NO_CACHE) });
    const { user_code: userCode, device_code: deviceCode, ...rest } = response.body;
    expect(userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(deviceCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rest).toEqual({
      verification_uri: `${origin}/device?tenant=${tenantId}`,
      verification_uri_complete: `${origin}/device?tenant=${tenantId}&user_code=${userCode}`,
      expires_in: 600,
      interval: 5,
    });
  });

  it('refuses a client without the grant, a scope beyond the client’s, and a wrong secret', async () => {
    const plain = await createClient(app, adminToken, tenantId, { grantTypes: 'authorization_code' });
    expect(await deviceAuthorization(app, plain)).toMatchObject(oauthFailure('unauthorized_client', 'Unauthorized client'));
    expect(await deviceAuthorization(app, device, 'orders:write')).toMatchObject(oauthFailure('invalid_scope', 'Invalid scope'));
    const wrong = { ...device, clientSecret: `${device.clientSecret}x` };
    expect(await deviceAuthorization(app, wrong)).toMatchObject(oauthFailure('invalid_client', 'Invalid client'));
  });

  it('gives the grant to a client registered for it later, by PATCH', async () => {
    const plain = await createClient(app, adminToken, tenantId, { grantTypes: 'authorization_code', scope: 'orders:read' });
    const patched = await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: plain.clientId },
      body: { grant_types: `authorization_code ${DEVICE_GRANT}` },
    });
    expect(patched).toMatchObject({ status: 200, body: { data: { client: { grant_types: ['authorization_code', DEVICE_GRANT] } } } });
    expect((await deviceAuthorization(app, plain)).status).toBe(200);
  });

  it('takes form bodies only', async () => {
    const response = await app.request('oauth2DeviceAuthorization', {
      body: { client_id: device.clientId, client_secret: device.clientSecret },
    });
    expect(response).toMatchObject({ status: 415, body: { success: false, error: 'Unsupported content type' } });
  });

  it('refuses the grant at the token endpoint to a client not registered for it', async () => {
    const plain = await createClient(app, adminToken, tenantId, { grantTypes: 'authorization_code' });
    expect(await pollToken(app, plain, 'x'.repeat(43))).toMatchObject(oauthFailure('unauthorized_client', 'Unauthorized client'));
    expect(await app.request('oauth2Token', tokenRequest(device, { grant_type: DEVICE_GRANT }))).toMatchObject(
      oauthFailure('invalid_request', 'Missing required parameters'),
    );
  });

  it('answers authorization_pending, then slow_down with a longer interval for a device that polls too fast', async () => {
    const { device_code: code } = await deviceCodes(app, device);
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('authorization_pending', 'Authorization pending'));
    later(1);
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('slow_down', 'Slow down'));
    // RFC 8628 3.5: the interval is now 10 seconds; 6 seconds later is still too early.
    later(6);
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('slow_down', 'Slow down'));
    later(15);
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('authorization_pending', 'Authorization pending'));
    // Another client's poll of this code is no poll of it.
    later(20);
    const sibling = await createClient(app, adminToken, tenantId, { grantTypes: DEVICE_GRANT, scope: 'orders:read' });
    expect(await pollToken(app, sibling, code)).toMatchObject(oauthFailure('invalid_grant', 'Invalid grant'));
  });

  it('gives an approved device the tokens of a user grant once: listed, with the session’s sid, revocable', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, device, 'openid orders:read');
    const shown = await postDeviceForm(app, browser.jar, origin, {
      csrf: browser.csrf,
      user_code: userCode.toLowerCase().replace('-', ' '),
    });
    expect(shown.status).toBe(200);
    expect(String(shown.body)).toContain(`Allow ${device.clientId}?`);
    expect(String(shown.body)).toContain(userCode);
    expect(String(shown.body)).toMatch(/<li>openid<\/li><li>orders:read<\/li>/);
    const done = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode, decision: 'allow' });
    expect(done).toMatchObject({ status: 303, headers: expect.objectContaining({ Location: `${origin}/device?done=allowed` }) });
    // Post, redirect, get: the page the redirect leads to says what was decided.
    const said = await openDevicePage(app, browser.jar, { done: 'allowed' });
    expect(String(said.body)).toContain('<h1>Device connected</h1>');

    const tokens = await pollToken(app, device, code);
    expect(tokens).toMatchObject({ status: 200, headers: expect.objectContaining(NO_CACHE) });
    expect(Object.keys(tokens.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    const sessionId = browser.jar.cookies.get('__Host-session')?.split('.')[1];
    expect(decodeJwt(tokens.body.id_token)).toMatchObject({ sub: browser.userId, aud: device.clientId, sid: sessionId });
    expect(decodeJwt(tokens.body.access_token)).toMatchObject({
      sub: browser.userId,
      client_id: device.clientId,
      scope: 'openid orders:read',
    });

    const listed = await app.request('listGrants', { token: browser.token });
    expect(listed.body.data.grants).toEqual([
      expect.objectContaining({ id: decodeJwt(tokens.body.access_token).grant_id, clientId: device.clientId, scope: 'openid orders:read' }),
    ]);
    // A second redemption means the code leaked: what it gave is revoked.
    later(5);
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('invalid_grant', 'Invalid grant'));
    const refresh = tokenRequest(device, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect(await app.request('oauth2Token', refresh)).toMatchObject(oauthFailure('invalid_grant', 'Invalid grant'));
  });

  it('binds the device’s access token to the key of a DPoP proof sent with the poll (docs/api.md 16.3)', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, device);
    await decide(browser, userCode, 'allow');
    const key = await dpopKey();
    const proof = await dpopProof(key, { htu: `${deps.config.issuer}/oauth2/token`, iat: Math.floor(deps.clock.now() / 1000) });
    const request = tokenRequest(device, { grant_type: DEVICE_GRANT, device_code: code });
    const tokens = await app.request('oauth2Token', { ...request, headers: { ...request.headers, dpop: proof } });
    expect(tokens).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
    expect(decodeJwt(tokens.body.access_token).cnf).toEqual({ jkt: key.jkt });
  });

  it('revokes a device grant from the authorized apps', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, device);
    await decide(browser, userCode, 'allow');
    const tokens = await pollToken(app, device, code);
    expect(tokens.status).toBe(200);
    const grantId = String(decodeJwt(tokens.body.access_token).grant_id);
    expect(await app.request('revokeGrant', { token: browser.token, pathParameters: { grantId } })).toMatchObject({ status: 200 });
    const refreshed = await app.request(
      'oauth2Token',
      tokenRequest(device, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }),
    );
    expect(refreshed).toMatchObject(oauthFailure('invalid_grant', 'Invalid grant'));
  });

  it('answers access_denied to a denied device, and the denial is audited', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, device);
    const done = await decide(browser, userCode, 'deny');
    expect(done.headers.Location).toBe(`${origin}/device?done=denied`);
    expect(String((await openDevicePage(app, browser.jar, { done: 'denied' })).body)).toContain('<h1>Device not connected</h1>');
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('access_denied', 'Access denied'));
    const audit = await app.request('adminListAudit', { token: adminToken, query: { userId: browser.userId } });
    expect(audit.body.data.events.map((event: { type: string }) => event.type)).toContain('device_denied');
    // Decided: the code cannot be approved after all.
    const again = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode, decision: 'allow' });
    expect(again.status).toBe(400);
    expect(String(again.body)).toContain('This code has been used already.');
  });

  it('answers expired_token after 10 minutes, and the page refuses the expired code', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, device);
    later(601);
    expect(await pollToken(app, device, code)).toMatchObject(oauthFailure('expired_token', 'Device code expired'));
    const entered = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode });
    expect(entered.status).toBe(400);
    expect(String(entered.body)).toContain('This code has expired.');
    deps.clock.set(Math.floor(Date.now() / 1000) * 1000);
  });

  it('gives tokens to exactly one of 20 parallel polls after approval', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, device);
    await decide(browser, userCode, 'allow');
    later(5);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pollToken(app, device, code)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((each) => each.status !== 200)) expect(['slow_down', 'invalid_grant']).toContain(answer.body.error);
  });

  it('refuses code entry after 10 wrong codes, even a right one, until the window ends', async () => {
    const browser = await signedInStaff();
    const { user_code: userCode } = await deviceCodes(app, device);
    for (let attempt = 0; attempt < 10; attempt++) {
      const wrong = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: 'BBBB-BBBB' });
      expect(wrong.status).toBe(400);
      expect(String(wrong.body)).toContain('That code is not right.');
    }
    const refused = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode });
    expect(refused).toMatchObject({ status: 429, headers: expect.objectContaining({ 'Retry-After': '900' }) });
    expect(String(refused.body)).toContain('Too many wrong codes.');
    const audit = await app.request('adminListAudit', { token: adminToken, query: { userId: browser.userId } });
    // Recorded once, when the window filled; not again for the refusal after it.
    const types = audit.body.data.events.map((event: { type: string }) => event.type);
    expect(types.filter((type: string) => type === 'device_code_entry_locked')).toHaveLength(1);
    later(900);
    const { user_code: fresh } = await deviceCodes(app, device);
    expect((await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: fresh })).status).toBe(200);
    deps.clock.set(Math.floor(Date.now() / 1000) * 1000);
  });

  it('does not count right codes against the limit', async () => {
    const browser = await signedInStaff();
    const { user_code: userCode } = await deviceCodes(app, device);
    for (let entry = 0; entry < 12; entry++)
      expect((await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode })).status).toBe(200);
  });

  it('refuses another tenant’s code, which stays pending', async () => {
    const browser = await signedInStaff();
    const { device_code: code, user_code: userCode } = await deviceCodes(app, other.client);
    const entered = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: userCode, decision: 'allow' });
    expect(entered.status).toBe(403);
    expect(String(entered.body)).toContain('This code is for a device of another organization.');
    expect(await pollToken(app, other.client, code)).toMatchObject(oauthFailure('authorization_pending', 'Authorization pending'));
  });

  it('signs a browser in first, then shows the link’s code in the form', async () => {
    const jar = (await signedInStaff()).jar;
    const { user_code: userCode } = await deviceCodes(app, device);
    const page = await openDevicePage(app, jar, { user_code: userCode.toLowerCase() });
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain(`value="${userCode}"`);
    const hostile = await openDevicePage(app, jar, { user_code: '"><script>alert(1)</script>' });
    expect(hostile.status).toBe(200);
    expect(String(hostile.body)).not.toContain('<script>');
    const fresh = new CookieJar();
    const signIn = await openDevicePage(app, fresh, { tenant: tenantId, user_code: userCode });
    expect(signIn.status).toBe(200);
    expect(String(signIn.body)).toContain('name="password"');
    // A browser signed in to this tenant, sent another tenant's link: that tenant's sign-in, not this session.
    const elsewhere = await openDevicePage(app, jar, { tenant: other.tenantId });
    expect(String(elsewhere.body)).toContain(`<header><p>${other.tenantId}</p></header><h1>Sign in</h1>`);
  });

  it('refuses a form without the page’s session or from another site', async () => {
    const browser = await signedInStaff();
    const { user_code: userCode } = await deviceCodes(app, device);
    const crossSite = await postDeviceForm(app, browser.jar, 'https://evil.example', { csrf: browser.csrf, user_code: userCode });
    expect(crossSite.status).toBe(403);
    const forged = await postDeviceForm(app, browser.jar, origin, { csrf: `${browser.csrf}x`, user_code: userCode });
    expect(forged.status).toBe(403);
    const anonymous = await postDeviceForm(app, new CookieJar(), origin, { csrf: browser.csrf, user_code: userCode });
    expect(anonymous.status).toBe(401);
  });
});
