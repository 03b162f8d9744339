import { beforeAll, describe, expect, it } from 'vitest';
import { success } from '../../lib/http/envelope-schemas';
import { account as accountSchema, grantList, sessionList } from '../../lib/users/account-schemas';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { faultPlan, faultyStores } from '../helpers/faulty-stores';
import { activateDelivered, activateTotp } from '../helpers/mfa';
import { authorizationCode, createClient, grantTokens, redeemCode, type TestClient, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';
/** The source address of the captured API Gateway event (test/fixtures/apigw-v2-event.json). */
const FIXTURE_IP = '203.0.113.10';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

describe('sessions and authorized apps (docs/api.md 8.3-8.5)', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let client: TestClient;
  let serial = 0;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant('mine');
    adminToken = (await registerAdmin(app, tenantId, 'root', PASSWORD)).token;
    client = await createClient(app, adminToken, tenantId);
  });

  /** A new user of the tenant and their first session. */
  async function newUser() {
    const username = `user-${serial++}`;
    const session = await registerStaff(app, adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId });
    return { username, userId: session.user.id, token: session.token, refreshToken: session.refreshToken };
  }

  async function login(username: string, userAgent = 'Mozilla/5.0') {
    const response = await app.request('login', { body: { username, password: PASSWORD, tenantId }, headers: { 'user-agent': userAgent } });
    expect(response.status).toBe(200);
    return response.body.data as { token: string; refreshToken: string };
  }

  const grantOf = (token: string) => grantTokens(app, token, client);

  const sessionsOf = async (token: string) =>
    (await app.request('listSessions', { token })).body.data.sessions as Array<Record<string, unknown>>;

  describe('every route needs a session token', () => {
    it.each([
      ['listSessions', {}],
      ['revokeSession', { pathParameters: { sessionId: 'x' } }],
      ['revokeOtherSessions', {}],
      ['listGrants', {}],
      ['revokeGrant', { pathParameters: { grantId: 'x' } }],
      ['getAccount', {}],
    ] as const)('%s answers 401 Unauthorized without one, before validation', async (route, spec) => {
      const response = await app.request(route, { ...spec, token: 'not-a-token' });
      expect(response).toMatchObject({ status: 401, body: failure('Unauthorized') });
      expect(response.headers['Cache-Control']).toBe('no-store');
    });
  });

  describe('GET /auth/sessions', () => {
    it('lists the live sessions with their device, the current one flagged, and nothing of their tokens', async () => {
      const user = await newUser();
      deps.clock.advance(60);
      const laptop = await login(user.username, 'Laptop/1.0');
      const response = await app.request('listSessions', { token: laptop.token });
      expect(response.status).toBe(200);
      expect(response.headers['Cache-Control']).toBe('no-store');
      expect(success(sessionList).safeParse(response.body).success).toBe(true);
      const { sessions } = response.body.data;
      expect(sessions).toHaveLength(2);
      // Newest first: the laptop's, then the session of registerStaff's login.
      expect(sessions[0]).toEqual({
        id: expect.any(String),
        current: true,
        createdAt: iso(deps.clock.now()),
        lastUsedAt: iso(deps.clock.now()),
        expiresAt: iso(deps.clock.now() + 30 * 24 * 3600 * 1000),
        amr: ['pwd'],
        userAgent: 'Laptop/1.0',
        ipAddress: FIXTURE_IP,
      });
      expect(sessions[1]).toMatchObject({ current: false, userAgent: 'Mozilla/5.0', ipAddress: FIXTURE_IP, createdAt: ISO });
      const text = JSON.stringify(response.body);
      for (const secret of [laptop.refreshToken, user.refreshToken]) expect(text).not.toContain(secret.split('.').at(-1));
      expect(text).not.toMatch(/refreshHash|retired|writeId/);
    });

    it('leaves out revoked and expired sessions, and the sessions of other users', async () => {
      const user = await newUser();
      const other = await newUser();
      const second = await login(user.username);
      await app.request('logout', { token: second.token });
      const sessions = await sessionsOf(user.token);
      expect(sessions.map((session) => session.current)).toEqual([true]);
      expect((await sessionsOf(other.token)).map((session) => session.current)).toEqual([true]);
    });

    it('marks a session with an MFA login ["pwd","otp"]', async () => {
      const user = await newUser();
      const { code } = await activateTotp(app, deps, user.token);
      const response = await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId, mfaCode: code() } });
      const sessions = await sessionsOf(response.body.data.token);
      expect(sessions.find((session) => session.current)?.amr).toEqual(['pwd', 'otp']);
    });
  });

  describe('bookkeeping at refresh', () => {
    it('records the device and the time of the refresh in the rotation, with no other write', async () => {
      const user = await newUser();
      deps.clock.advance(120);
      const plan = faultPlan();
      const counted = { ...deps, store: faultyStores(deps.store, deps.mfaDelivery, plan).stores };
      const countedApp = testApp(counted);
      plan.reset();
      const refreshed = await countedApp.request('refreshToken', {
        body: { refreshToken: user.refreshToken },
        headers: { 'user-agent': 'Phone/2.0' },
      });
      expect(refreshed.status).toBe(200);
      // One conditional write (the rotation, carrying the bookkeeping) and one read of the user: as before.
      expect(plan.calls).toEqual(['sessions.rotate', 'users.findById']);
      const [session] = await sessionsOf(refreshed.body.data.token);
      expect(session).toMatchObject({ current: true, userAgent: 'Phone/2.0', ipAddress: FIXTURE_IP, lastUsedAt: iso(deps.clock.now()) });
      expect(session?.createdAt).not.toBe(session?.lastUsedAt);
    });

    it('keeps at most 256 characters of a user agent, without control characters', async () => {
      const user = await newUser();
      const long = `Agent\u0000\u001b[31m${'x'.repeat(1000)}`;
      const refreshed = await app.request('refreshToken', { body: { refreshToken: user.refreshToken }, headers: { 'user-agent': long } });
      const [session] = await sessionsOf(refreshed.body.data.token);
      expect(session?.userAgent).toHaveLength(256);
      expect(session?.userAgent).toMatch(/^Agent {2}\[31mx+$/);
    });

    it('records the device at reauthenticate', async () => {
      const user = await newUser();
      deps.clock.advance(60);
      const response = await app.request('reauthenticate', {
        token: user.token,
        body: { password: PASSWORD },
        headers: { 'user-agent': 'Tablet/3' },
      });
      expect(response.status).toBe(200);
      expect((await sessionsOf(user.token))[0]).toMatchObject({ userAgent: 'Tablet/3', lastUsedAt: iso(deps.clock.now()) });
    });
  });

  describe('DELETE /auth/sessions/{sessionId}', () => {
    it('revokes one session of the caller: its access and refresh tokens stop working', async () => {
      const user = await newUser();
      const phone = await login(user.username, 'Phone/1');
      const target = (await sessionsOf(user.token)).find((session) => !session.current);
      const response = await app.request('revokeSession', { token: user.token, pathParameters: { sessionId: String(target?.id) } });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'Session revoked' } },
      });
      expect((await app.request('me', { token: phone.token })).body).toEqual(failure('Unauthorized'));
      expect((await app.request('refreshToken', { body: { refreshToken: phone.refreshToken } })).body).toEqual(
        failure('Invalid refresh token'),
      );
      expect((await app.request('me', { token: user.token })).status).toBe(200);
      expect((await sessionsOf(user.token)).map((session) => session.current)).toEqual([true]);
      // Again: the session is revoked, and says so (idempotent).
      const again = await app.request('revokeSession', { token: user.token, pathParameters: { sessionId: String(target?.id) } });
      expect(again.body).toEqual({ success: true, data: { message: 'Session revoked' } });
    });

    it('revokes the current session too, as logout does', async () => {
      const user = await newUser();
      const [current] = await sessionsOf(user.token);
      const response = await app.request('revokeSession', { token: user.token, pathParameters: { sessionId: String(current?.id) } });
      expect(response.status).toBe(200);
      expect((await app.request('me', { token: user.token })).status).toBe(401);
    });

    it('answers 404 Session not found for an unknown id', async () => {
      const user = await newUser();
      const response = await app.request('revokeSession', { token: user.token, pathParameters: { sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' } });
      expect(response).toMatchObject({ status: 404, body: failure('Session not found') });
    });

    it.each([
      ['empty', '', 'sessionId: Too small: expected string to have >=1 characters'],
      ['too long', 'a'.repeat(65), 'sessionId: Too big: expected string to have <=64 characters'],
      ['a path', '../x', 'sessionId: Invalid string: must match pattern /^[A-Za-z0-9_-]+$/'],
    ])('answers 400 for a malformed id (%s)', async (_, sessionId, error) => {
      const user = await newUser();
      const response = await app.request('revokeSession', { token: user.token, pathParameters: { sessionId } });
      expect(response).toMatchObject({ status: 400, body: failure(error) });
    });
  });

  describe('DELETE /auth/sessions', () => {
    it('ends every other session of the caller and keeps the caller’s session and OAuth grants', async () => {
      const user = await newUser();
      const phone = await login(user.username, 'Phone/1');
      const tablet = await login(user.username, 'Tablet/1');
      const oauth = await grantOf(user.token);
      const response = await app.request('revokeOtherSessions', { token: user.token });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'Sessions revoked', revoked: 2 } },
      });
      for (const other of [phone, tablet]) {
        expect((await app.request('me', { token: other.token })).body).toEqual(failure('Unauthorized'));
        expect((await app.request('refreshToken', { body: { refreshToken: other.refreshToken } })).body).toEqual(
          failure('Invalid refresh token'),
        );
      }
      // The caller's session lives on, refreshes, and is the only one listed.
      expect((await app.request('me', { token: user.token })).status).toBe(200);
      const refreshed = await app.request('refreshToken', { body: { refreshToken: user.refreshToken } });
      expect(refreshed.status).toBe(200);
      expect((await sessionsOf(refreshed.body.data.token)).map((session) => session.current)).toEqual([true]);
      // The grant is not a session: it still works.
      expect((await app.request('introspect', tokenRequest(client, { token: oauth.access_token }))).body).toMatchObject({
        active: true,
      });
      const oauthRefresh = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: oauth.refresh_token }),
      );
      expect(oauthRefresh.status).toBe(200);
      // A new sign-in afterwards is a live session, and can end the first one in turn.
      const later = await login(user.username);
      expect((await app.request('me', { token: later.token })).status).toBe(200);
      const again = await app.request('revokeOtherSessions', { token: later.token });
      expect(again.body).toEqual({ success: true, data: { message: 'Sessions revoked', revoked: 1 } });
      expect((await app.request('me', { token: user.token })).status).toBe(401);
      // Nothing else to end: 0.
      const alone = await app.request('revokeOtherSessions', { token: later.token });
      expect(alone.body).toEqual({ success: true, data: { message: 'Sessions revoked', revoked: 0 } });
    });

    it('also ends what the other sessions started: a code authorized in one of them is not redeemed', async () => {
      const user = await newUser();
      const phone = await login(user.username, 'Phone/1');
      const issued = await authorizationCode(app, phone.token, client);
      expect((await app.request('revokeOtherSessions', { token: user.token })).status).toBe(200);
      const redeemed = await redeemCode(app, client, issued);
      expect(redeemed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('keeps every other user’s sessions', async () => {
      const user = await newUser();
      const other = await newUser();
      expect((await app.request('revokeOtherSessions', { token: user.token })).status).toBe(200);
      expect((await app.request('me', { token: other.token })).status).toBe(200);
    });
  });

  describe('GET /auth/grants and DELETE /auth/grants/{grantId}', () => {
    it('lists the apps the caller authorized, without tokens', async () => {
      const user = await newUser();
      const oauth = await grantOf(user.token);
      const response = await app.request('listGrants', { token: user.token });
      expect(response.status).toBe(200);
      expect(success(grantList).safeParse(response.body).success).toBe(true);
      expect(response.body.data).toEqual({
        grants: [
          {
            id: expect.any(String),
            clientId: client.clientId,
            clientName: client.clientId,
            scope: 'orders:read orders:write',
            createdAt: iso(deps.clock.now()),
            lastUsedAt: iso(deps.clock.now()),
          },
        ],
      });
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(oauth.refresh_token.split('.').at(-1));
      expect(text).not.toContain(oauth.access_token);
      expect((await app.request('listGrants', { token: (await newUser()).token })).body.data).toEqual({ grants: [] });
    });

    it('revokes a grant: its refresh token and access tokens stop working', async () => {
      const user = await newUser();
      const oauth = await grantOf(user.token);
      const kept = await grantOf(user.token);
      const grants = (await app.request('listGrants', { token: user.token })).body.data.grants as Array<{ id: string }>;
      const target = grants.find((grant) => oauth.refresh_token.startsWith(`${grant.id}.`));
      const response = await app.request('revokeGrant', { token: user.token, pathParameters: { grantId: String(target?.id) } });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'Grant revoked' } },
      });
      expect((await app.request('introspect', tokenRequest(client, { token: oauth.access_token }))).body).toEqual({ active: false });
      const refresh = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: oauth.refresh_token }),
      );
      expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // The other grant and the session are untouched; the revoked grant is no longer listed.
      expect((await app.request('introspect', tokenRequest(client, { token: kept.access_token }))).body).toMatchObject({
        active: true,
      });
      expect((await app.request('me', { token: user.token })).status).toBe(200);
      const listed = (await app.request('listGrants', { token: user.token })).body.data.grants as Array<{ id: string }>;
      expect(listed.map((grant) => grant.id)).toEqual(grants.filter((grant) => grant.id !== target?.id).map((grant) => grant.id));
      // Again: idempotent.
      expect((await app.request('revokeGrant', { token: user.token, pathParameters: { grantId: String(target?.id) } })).status).toBe(200);
    });

    it('answers 404 Grant not found for an unknown id, and 400 for a malformed one', async () => {
      const user = await newUser();
      const unknown = await app.request('revokeGrant', { token: user.token, pathParameters: { grantId: 'AAAAAAAAAAAAAAAAAAAAAA' } });
      expect(unknown).toMatchObject({ status: 404, body: failure('Grant not found') });
      const malformed = await app.request('revokeGrant', { token: user.token, pathParameters: { grantId: 'é' } });
      expect(malformed).toMatchObject({ status: 400, body: failure('grantId: Invalid string: must match pattern /^[A-Za-z0-9_-]+$/') });
    });
  });

  describe('GET /auth/account', () => {
    it('answers the account with its MFA methods masked', async () => {
      const user = await newUser();
      // EMAIL pending first: once SMS is active, enrolling another method needs a session that passed MFA.
      expect((await app.request('enableMFA', { token: user.token, body: { method: 'EMAIL', secret: 'someone@example.com' } })).status).toBe(
        200,
      );
      await activateDelivered(app, deps, user.token, user.userId, 'SMS', '+15550001234');
      const response = await app.request('getAccount', { token: user.token });
      expect(response.status).toBe(200);
      expect(response.headers['Cache-Control']).toBe('no-store');
      expect(success(accountSchema).safeParse(response.body).success).toBe(true);
      const methods = response.body.data.account.mfa.methods as Array<Record<string, unknown>>;
      expect(response.body.data).toEqual({
        account: {
          id: user.userId,
          username: user.username,
          role: 'OPERATOR',
          tenantId,
          shopId: 'default',
          email: null,
          emailVerified: false,
          createdAt: ISO,
          mfa: { methods: expect.any(Array), recoveryCodesRemaining: 0 },
          passkeys: [],
        },
      });
      expect(methods.sort((a, b) => String(a.method).localeCompare(String(b.method)))).toEqual([
        { method: 'EMAIL', status: 'pending', destination: 's***@example.com', createdAt: ISO, lastUsedAt: null },
        // The accepted verification code is the method's last use (docs/api.md 8.6).
        { method: 'SMS', status: 'active', destination: '**********34', createdAt: ISO, lastUsedAt: ISO },
      ]);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain('+15550001234');
      expect(text).not.toContain('someone@');
      expect(text).not.toMatch(/passwordHash|codeDigest|sealedSecret|argon2/);
    });

    it('shows the email given at registration, and when a TOTP code was last accepted', async () => {
      const tenant = uniqueTenant('acct');
      const registered = await app.request('register', {
        body: { username: 'owner', password: PASSWORD, role: 'ADMIN', tenantId: tenant, email: 'owner@shop.example' },
      });
      const { token } = registered.body.data;
      await activateTotp(app, deps, token);
      const { account } = (await app.request('getAccount', { token })).body.data;
      expect(account).toMatchObject({ email: 'owner@shop.example', emailVerified: false, role: 'ADMIN', tenantId: tenant });
      expect(account.mfa.methods).toEqual([{ method: 'TOTP', status: 'active', destination: null, createdAt: ISO, lastUsedAt: ISO }]);
    });
  });
});
