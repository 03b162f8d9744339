import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { logoutRequest } from '../../lib/oauth/backchannel-logout';
import { normalizeUsername } from '../../lib/store/keys';
import { consoleBrowser } from '../console/console-browser';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { nearRealTime } from '../helpers/clock';
import { postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { DEVICE_GRANT, deviceBrowser, deviceCodes, pollToken, postDeviceForm } from '../helpers/device';
import { startDnsServer } from '../helpers/dns-server';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { eventCount, lastEvents } from '../helpers/events';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { createTable, scanTable } from '../helpers/isolated-table';
import { activateDelivered, activateTotp, authenticator, newTotpSecret } from '../helpers/mfa';
import { authorizationCode, createClient, newSecret, type TestClient, tokenRequest } from '../helpers/oauth';
import { patientStores } from '../helpers/patient-stores';
import { verifiedEmail } from '../helpers/recovery';
import { makeSamlIdp } from '../helpers/saml-idp';
import { postSamlResponse, type SamlStart, samlConnectionOf, startSamlSignIn } from '../helpers/saml-sign-in';
import { scimClient, scimTokenOf } from '../helpers/scim';
import { halfWrittenState } from '../helpers/table-invariants';

/**
 * Races: many concurrent requests that may succeed only once, at
 * higher concurrency than the function tests, and checked in the table afterwards
 * (exactly one record where one is allowed). "Exactly once" rests on conditional
 * writes (docs/api.md 6), so these hold for any number of Lambda instances.
 */
const PASSWORD = 'correct horse battery';
const N = 20;
/** Tenants racing for one domain (each verification is a transaction on the same claim). */
const TENANTS = 8;
const count = (answers: Response[], status: number) => answers.filter((answer) => answer.status === status).length;

describe('races', () => {
  const tableName = `races-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  let deps: TestDeps;
  let app: App;
  const items = async (tenantId: string) =>
    (await scanTable(endpoint, tableName)).filter(
      (item) => String(item.pk).startsWith(`T#${tenantId}#`) || String(item.pk) === `T#${tenantId}`,
    );

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = await testDeps({ TABLE_NAME: tableName });
    deps.store = patientStores(endpoint, tableName);
    // DynamoDB Local deletes items whose TTL has passed in real time: keep the clock near it.
    nearRealTime(deps);
    app = testApp(deps);
  });

  it('50 registrations of one username in different spellings (case, full-width): exactly one user', async () => {
    const tenantId = uniqueTenant('race');
    const admin = await registerAdmin(app, tenantId);
    const spellings = ['Racer', 'racer', 'RACER', 'ｒａｃｅｒ', 'ＲＡＣＥＲ'];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        app.request('register', {
          token: admin.token,
          body: { username: spellings[i % spellings.length], password: `${PASSWORD} ${i}`, role: 'ANALYST', tenantId },
        }),
      ),
    );
    expect(count(answers, 201)).toBe(1);
    expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'Username already exists')).toHaveLength(49);
    const records = await items(tenantId);
    expect(records.filter((item) => String(item.pk).includes(`#USERNAME#${normalizeUsername('racer')}`))).toHaveLength(1);
    expect(records.filter((item) => item.sk === 'PROFILE' && normalizeUsername(String(item.username)) === 'racer')).toHaveLength(1);
  });

  it(`${N} anonymous callers claiming one new tenant: exactly one ADMIN and one tenant record`, async () => {
    const tenantId = uniqueTenant('claim');
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        app.request('register', { body: { username: `claimer-${i}`, password: PASSWORD, role: 'ADMIN', tenantId } }),
      ),
    );
    expect(count(answers, 201)).toBe(1);
    expect(answers.filter((answer) => answer.status === 403 && answer.body.error === 'Permission denied')).toHaveLength(N - 1);
    const records = await items(tenantId);
    expect(records.filter((item) => item.sk === 'TENANT')).toHaveLength(1);
    expect(records.filter((item) => item.sk === 'PROFILE')).toHaveLength(1);
    expect(records.filter((item) => item.sk === 'USERNAME')).toHaveLength(1);
    // The tenant's default shop, written with it.
    expect(records.filter((item) => String(item.sk).startsWith('SHOP#'))).toHaveLength(1);
  });

  it(`${N} ADMINs' creations of one shop at once (different names): one 201, the others 409, one shop`, async () => {
    const tenantId = uniqueTenant('shops');
    const admin = await registerAdmin(app, tenantId);
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        app.request('adminCreateShop', { token: admin.token, body: { shopId: 'one', name: `Name ${i}` } }),
      ),
    );
    expect(count(answers, 201)).toBe(1);
    expect(answers.filter((answer) => answer.status === 409 && answer.body.error === 'Shop already exists')).toHaveLength(N - 1);
    const winner = answers.find((answer) => answer.status === 201)?.body.data.shop;
    const shops = (await items(tenantId)).filter((item) => String(item.sk).startsWith('SHOP#'));
    expect(shops.map((shop) => [shop.shopId, shop.name])).toEqual([
      ['default', 'default'],
      ['one', winner.name],
    ]);
  });

  it(`${N} creations of webhooks at once, then ${N} deletions and changes of one (docs/api.md 17.2): the limit holds, one deletion, no resurrection`, async () => {
    const tenantId = uniqueTenant('race');
    const { token } = await registerAdmin(app, tenantId);
    const body = { url: 'http://127.0.0.1:9/race', events: ['identity.user.created'] };
    const created = await Promise.all(Array.from({ length: N }, () => app.request('adminCreateWebhook', { token, body })));
    expect(count(created, 201)).toBe(10);
    expect(count(created, 409)).toBe(N - 10);
    const webhookId = created.find((answer) => answer.status === 201)?.body.data.webhook.id as string;
    const pathParameters = { webhookId };
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        i % 2 === 0
          ? app.request('adminDeleteWebhook', { token, pathParameters })
          : app.request('adminUpdateWebhook', { token, pathParameters, body: { description: `racer ${i}` } }),
      ),
    );
    expect(answers.filter((answer, i) => i % 2 === 0 && answer.status === 200)).toHaveLength(1);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 404)).toBe(true);
    const stored = await items(tenantId);
    expect(stored.filter((item) => item.sk === `WEBHOOK#${webhookId}`)).toEqual([]);
    expect(stored.filter((item) => String(item.sk).startsWith('WEBHOOK#'))).toHaveLength(9);
    expect(stored.find((item) => item.sk === 'COUNT')?.count).toBe(9);
  });

  it(`${N} console registrations of one client id at once (docs/api.md 15.3.6): one secret shown, the others 409, and that secret works`, async () => {
    const tenantId = uniqueTenant('console-race');
    await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const origin = new URL(deps.config.issuer).origin;
    const { jar, page } = await signedInJar(app, origin, 'admin', { tenantId, username: 'admin', password: PASSWORD });
    const fields = {
      csrf: csrfOf(page),
      client_id: `race-${tenantId}`,
      redirect_uri: 'https://a.example/cb',
      'grant_types:client_credentials': 'on',
      scope: 'api',
    };
    const answers = await Promise.all(
      Array.from({ length: N }, () => postAction(app, jar, 'admin', { section: 'clients', action: 'create' }, fields, origin)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array.from({ length: N - 1 }, () => 409)]);
    const shown =
      /<p class="secret" id="client-secret">([^<]+)<\/p>/.exec(String(answers.find((answer) => answer.status === 200)?.body))?.[1] ?? '';
    const client = { clientId: fields.client_id, clientSecret: shown, redirectUri: 'https://a.example/cb', tenantId };
    expect((await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).status).toBe(200);
  });

  it(`${N} imports of one batch at once, and 5 first sign-ins racing on the rehash of an imported hash (docs/api.md 13.2)`, async () => {
    const tenantId = uniqueTenant('race');
    const admin = await registerAdmin(app, tenantId);
    const passwordHash = bcrypt.hashSync(PASSWORD, 4);
    const users = ['Moved', 'ｍｏｖｅｄ', 'other'].map((username) => ({ username, role: 'ANALYST', passwordHash }));
    const imports = await Promise.all(
      Array.from({ length: N }, () => app.request('adminImportUsers', { token: admin.token, body: { users } })),
    );
    // Each username is created by exactly one call; the full-width spelling is the same user.
    expect(imports.every((answer) => answer.status === 200)).toBe(true);
    expect(imports.reduce((sum, answer) => sum + answer.body.data.imported, 0)).toBe(2);
    const records = await items(tenantId);
    expect(records.filter((item) => String(item.pk).includes('#USERNAME#'))).toHaveLength(3);
    // As many as the attempt budget lets run at once (each attempt is reserved before the hash is checked).
    const logins = await Promise.all(
      Array.from({ length: 5 }, () => app.request('login', { body: { username: 'moved', password: PASSWORD, tenantId } })),
    );
    // Every sign-in with the right password succeeds, whichever rehash wins (the others meet a changed hash).
    expect(count(logins, 200)).toBe(5);
    const stored = (await deps.store.users.findByUsername(tenantId, 'moved'))?.passwordHash;
    expect(stored).toMatch(/^\$argon2id\$/);
    expect((await app.request('login', { body: { username: 'moved', password: PASSWORD, tenantId } })).status).toBe(200);
  });

  it(`${TENANTS} tenants verifying one domain at once, and ${N} additions of one domain by one tenant: one claim each (docs/api.md 14.2)`, async () => {
    const dns = await startDnsServer();
    try {
      const fed = testApp({ ...deps, config: { ...deps.config, dnsServers: [dns.address] } });
      const domain = `${uniqueTenant('race')}.example`;
      const tenants = await Promise.all(
        Array.from({ length: TENANTS }, async () => {
          const tenantId = uniqueTenant('race');
          return { tenantId, token: (await registerAdmin(fed, tenantId)).token };
        }),
      );
      const added = await Promise.all(tenants.map(({ token }) => fed.request('adminAddDomain', { token, body: { domain } })));
      expect(added.map((answer) => answer.status)).toEqual(tenants.map(() => 201));
      // Every tenant's record published: the claim alone decides.
      dns.txt.set(
        `_identity-verification.${domain}`,
        added.map((answer) => answer.body.data.verification.value),
      );
      const verified = await Promise.all(
        tenants.map(({ token }) => fed.request('adminVerifyDomain', { token, pathParameters: { domain } })),
      );
      expect(count(verified, 200)).toBe(1);
      expect(verified.filter((answer) => answer.status === 409 && answer.body.error === 'Domain already claimed')).toHaveLength(
        TENANTS - 1,
      );
      const winner = tenants[verified.findIndex((answer) => answer.status === 200)];
      expect(await deps.store.domains.claimOf(domain)).toMatchObject({ tenantId: winner?.tenantId });
      const records = await Promise.all(tenants.map(({ tenantId }) => deps.store.domains.find(tenantId, domain)));
      expect(records.filter((record) => record?.status === 'verified').map((record) => record?.tenantId)).toEqual([winner?.tenantId]);

      const other = `${uniqueTenant('race')}.example`;
      const token = tenants[0]?.token;
      const adds = await Promise.all(Array.from({ length: N }, () => fed.request('adminAddDomain', { token, body: { domain: other } })));
      expect(count(adds, 201)).toBe(1);
      expect(adds.filter((answer) => answer.status === 409 && answer.body.error === 'Domain already added')).toHaveLength(N - 1);
    } finally {
      await dns.close();
    }
  });

  it(`${N} ADMINs' renames of the tenant at once: each answers its own name, the record keeps one of them whole`, async () => {
    const tenantId = uniqueTenant('rename');
    const admin = await registerAdmin(app, tenantId);
    const names = Array.from({ length: N }, (_, i) => `Name ${i}`);
    const answers = await Promise.all(
      names.map((displayName) => app.request('adminUpdateTenant', { token: admin.token, body: { displayName } })),
    );
    expect(answers.map((answer) => [answer.status, answer.body.data.tenant.displayName])).toEqual(names.map((name) => [200, name]));
    const [tenant] = (await items(tenantId)).filter((item) => String(item.pk) === `T#${tenantId}` && String(item.sk) === 'TENANT');
    expect(names).toContain(tenant?.displayName);
    expect(tenant).toMatchObject({ tenantId, createdAt: expect.any(String), defaultShopId: 'default' });
  });

  it(`${N} concurrent refreshes with one refresh token: exactly one wins, and the session stays consistent`, async () => {
    const tenantId = uniqueTenant('refresh');
    const { refreshToken, token } = await registerAdmin(app, tenantId);
    const answers = await Promise.all(Array.from({ length: N }, () => app.request('refreshToken', { body: { refreshToken } })));
    expect(count(answers, 200)).toBe(1);
    expect(answers.filter((answer) => answer.status === 401 && answer.body.error === 'Invalid refresh token')).toHaveLength(N - 1);
    // The losers presented a token the winner had just retired: that is reuse (docs/api.md 4.2),
    // so the whole session ends, the winner's new tokens and the old access token with it.
    const winner = answers.find((answer) => answer.status === 200)?.body.data;
    const session = (await items(tenantId)).filter((item) => item.sk === 'SESSION');
    expect(session).toHaveLength(1);
    expect(session[0]).toMatchObject({ refreshGeneration: 1, revokedReason: 'refresh_token_reuse' });
    expect((await app.request('refreshToken', { body: { refreshToken: winner.refreshToken } })).status).toBe(401);
    expect(await app.identityOf(winner.token)).toBeNull();
    expect(await app.identityOf(token)).toBeNull();
  });

  it('a refresh racing a logout: either order leaves the session ended and no live token', async () => {
    for (let round = 0; round < 5; round++) {
      const { refreshToken, token } = await registerAdmin(app, uniqueTenant('logout'));
      const [refreshed, loggedOut] = await Promise.all([
        app.request('refreshToken', { body: { refreshToken } }),
        app.request('logout', { token }),
      ]);
      expect(loggedOut.status).toBe(200);
      expect([200, 401]).toContain(refreshed.status);
      if (refreshed.status === 200) {
        expect(await app.identityOf(refreshed.body.data.token)).toBeNull();
        expect((await app.request('refreshToken', { body: { refreshToken: refreshed.body.data.refreshToken } })).status).toBe(401);
      }
    }
  });

  it(`${N} RP-initiated logouts of one browser session racing an SSO authorize: every logout answers, the session ends`, async () => {
    const tenantId = uniqueTenant('rp-logout');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const client = await createClient(app, admin.token, tenantId, { scope: 'openid' });
    const bye = 'https://app.example.com/bye';
    const body = { first_party: true, post_logout_redirect_uris: bye };
    await app.request('updateOAuth2Client', { token: admin.token, pathParameters: { clientId: client.clientId }, body });
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, client, { scope: 'openid' });
    const origin = new URL(deps.config.issuer).origin;
    const back = await postForm(app, jar, 'hostedSignIn', { csrf: begun.csrf, username: 'admin', password: PASSWORD }, origin);
    const code = new URL(back.headers.Location ?? '').searchParams.get('code') ?? '';
    const redeem = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: begun.verifier };
    const idToken = String((await app.request('oauth2Token', tokenRequest(client, redeem))).body.id_token);
    const sessionId = String(decodeJwt(idToken).sid);
    const query = { id_token_hint: idToken, post_logout_redirect_uri: bye, state: 's' };
    // The same browser's second tab: the same cookie, its own interaction.
    const ssoJar = new CookieJar();
    for (const [name, value] of jar.cookies) ssoJar.cookies.set(name, value);
    const [sso, ...logouts] = await Promise.all([
      browserAuthorize(app, ssoJar, client, { scope: 'openid', prompt: 'none' }),
      ...Array.from({ length: N }, () => app.request('oauth2Logout', { method: 'GET', headers: jar.header(), query })),
    ]);
    for (const answer of logouts) expect([answer.status, answer.headers.Location]).toEqual([302, `${bye}?state=s`]);
    expect(sso.response.status).toBe(302);
    const answered = new URL(sso.response.headers.Location ?? '').searchParams;
    expect(answered.has('code') || answered.get('error') === 'login_required').toBe(true);
    expect((await deps.store.sessions.find(tenantId, sessionId))?.revokedReason).toBe('signed_out');
    const after = await browserAuthorize(app, jar, client, { scope: 'openid', prompt: 'none' });
    expect(new URL(after.response.headers.Location ?? '').searchParams.get('error')).toBe('login_required');
  });

  it('a back-channel logout URI set racing the client deletion: a deleted client never gets one, nor a logout token (docs/api.md 17.3)', async () => {
    const tenantId = uniqueTenant('bcl-race');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    for (let round = 0; round < 3; round++) {
      const client = await createClient(app, admin.token, tenantId, { scope: 'openid' });
      const pathParameters = { clientId: client.clientId };
      const body = { backchannel_logout_uri: 'https://app.example.com/bcl' };
      const [set, deleted] = await Promise.all([
        app.request('updateOAuth2Client', { token: admin.token, pathParameters, body }),
        app.request('deleteOAuth2Client', { token: admin.token, pathParameters }),
      ]);
      expect(deleted.status).toBe(200);
      expect([200, 404]).toContain(set.status);
      expect(await deps.store.oauthClients.find(client.clientId)).toBeUndefined();
      const delivery = {
        id: 'bcl_race',
        kind: 'backchannel_logout' as const,
        tenantId,
        target: client.clientId,
        attempt: 1,
        firstAttemptAt: 0,
      };
      expect(await logoutRequest(deps, { ...delivery, payload: { sub: admin.user.id } })).toBeUndefined();
    }
  });

  it('"sign out my other sessions" from several sessions at once: exactly one wins, and only its session lives', async () => {
    for (let round = 0; round < 3; round++) {
      const tenantId = uniqueTenant('signout');
      await registerAdmin(app, tenantId, 'admin', PASSWORD);
      const sessions = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const login = await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
          return login.body.data as { token: string; refreshToken: string };
        }),
      );
      const answers = await Promise.all(sessions.map((session) => app.request('revokeOtherSessions', { token: session.token })));
      // The winner ended every other session, the losers' among them: their own session is over (401).
      expect(count(answers, 200)).toBe(1);
      expect(answers.filter((answer) => answer.status === 401 && answer.body.error === 'Unauthorized')).toHaveLength(sessions.length - 1);
      const live = await Promise.all(sessions.map(async (session) => (await app.identityOf(session.token)) !== null));
      expect(live).toEqual(answers.map((answer) => answer.status === 200));
      const user = (await items(tenantId)).find((item) => item.sk === 'PROFILE');
      expect(user?.signInEpoch).toBe(1);
    }
  });

  it('"sign out my other sessions" twice at once from one session: both answer, the session lives', async () => {
    const tenantId = uniqueTenant('signout');
    const { token } = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const other = await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
    const answers = await Promise.all([1, 2].map(() => app.request('revokeOtherSessions', { token })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await app.identityOf(token)).not.toBeNull();
    expect(await app.identityOf(other.body.data.token)).toBeNull();
  });

  it(`SCIM: ${N} creations of one userName and externalId, and removals of both ADMINs from the ADMIN group at once (docs/api.md 13.3)`, async () => {
    const tenantId = uniqueTenant('race-scim');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const scim = scimClient(app, (await scimTokenOf(app, admin.token)).token);
    const creations = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        scim('scimCreateUser', { body: { userName: i % 2 ? 'Racer' : 'racer', externalId: 'race-ext' } }),
      ),
    );
    expect(count(creations, 201)).toBe(1);
    expect(count(creations, 409)).toBe(N - 1);
    expect((await items(tenantId)).filter((item) => item.sk === 'EXTERNALID')).toHaveLength(1);

    const second = await scim('scimCreateUser', { body: { userName: 'second-admin' } });
    const patch = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] };
    const promote = { ...patch, Operations: [{ op: 'add', path: 'members', value: [{ value: second.body.id }] }] };
    expect((await scim('scimPatchGroup', { pathParameters: { groupId: 'ADMIN' }, body: promote })).status).toBe(204);
    const removals = await Promise.all(
      [admin.user.id, second.body.id].map((userId) =>
        scim('scimPatchGroup', {
          pathParameters: { groupId: 'ADMIN' },
          body: { ...patch, Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }] },
        }),
      ),
    );
    expect(removals.map((answer) => answer.status).sort()).toEqual([204, 400]);
    const admins = (await items(tenantId)).filter((item) => item.sk === 'PROFILE' && item.role === 'ADMIN' && item.status === 'active');
    expect(admins).toHaveLength(1);
  });

  it('ADMINs demoting, disabling and deleting one another and themselves at once: an active ADMIN stays', async () => {
    for (let round = 0; round < 3; round++) {
      const tenantId = uniqueTenant('race-admins');
      const first = await registerAdmin(app, tenantId);
      const admins = [first];
      for (const username of ['second', 'third']) {
        const response = await app.request('register', {
          token: first.token,
          body: { username, password: PASSWORD, role: 'ADMIN', tenantId },
        });
        admins.push(response.body.data);
      }
      const actions = admins.flatMap((actor) =>
        admins.flatMap((target) => [
          app.request('adminUpdateUser', { token: actor.token, pathParameters: { userId: target.user.id }, body: { role: 'OPERATOR' } }),
          app.request('adminUpdateUser', { token: actor.token, pathParameters: { userId: target.user.id }, body: { status: 'disabled' } }),
          app.request('adminDeleteUser', { token: actor.token, pathParameters: { userId: target.user.id } }),
        ]),
      );
      const answers = await Promise.all(actions);
      for (const answer of answers) expect([200, 401, 403, 404, 409]).toContain(answer.status);
      const users = (await items(tenantId)).filter((item) => item.sk === 'PROFILE');
      expect(users.filter((user) => user.role === 'ADMIN' && user.status === 'active').length, `round ${round}`).toBeGreaterThanOrEqual(1);
    }
  });

  it('10 disables and 10 role changes of one user at once: one identity.user.disabled, one role_changed, numbered without gaps', async () => {
    const tenantId = uniqueTenant('race-events');
    const admin = await registerAdmin(app, tenantId);
    const member = await app.request('register', {
      token: admin.token,
      body: { username: 'member', password: PASSWORD, role: 'OPERATOR', tenantId },
    });
    const userId: string = member.body.data.user.id;
    const change = (body: Record<string, unknown>) =>
      app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId }, body });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => change(i % 2 === 0 ? { status: 'disabled' } : { role: 'MANAGER' })),
    );
    // Each is answered; under contention some may be asked to try again.
    for (const answer of answers) expect([200, 503]).toContain(answer.status);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    const user = await deps.store.users.findById(tenantId, userId);
    // Created, then one event per change that took effect: a change applied to a user it
    // no longer changes (disabled already) emits nothing.
    const expected = 1 + (user?.status === 'disabled' ? 1 : 0) + (user?.role === 'MANAGER' ? 1 : 0);
    expect(await eventCount(deps, tenantId, userId)).toBe(expected);
    expect(user).toMatchObject({ status: 'disabled', role: 'MANAGER' });
    expect(await lastEvents(deps, tenantId, userId)).toHaveLength(1);
  });

  it('ADMINs disabling and deleting each other from the tenant console at once: an active ADMIN stays (docs/api.md 15.3.1)', async () => {
    const tenantId = uniqueTenant('race-console');
    const first = await registerAdmin(app, tenantId, 'first', PASSWORD);
    const second = await app.request('register', {
      token: first.token,
      body: { username: 'second', password: PASSWORD, role: 'ADMIN', tenantId },
    });
    const origin = new URL(deps.config.issuer).origin;
    const browsers = await Promise.all(['first', 'second'].map((username) => consoleBrowser(app, origin, tenantId, username, PASSWORD)));
    const ids = [first.user.id, second.body.data.user.id as string];
    const answers = await Promise.all(
      browsers.flatMap((browser, i) => {
        const other = ids[1 - i] ?? '';
        return [
          browser.post('staff', 'status', { userId: other, status: 'disabled' }),
          browser.post('staff', 'delete', { userId: other }),
          browser.post('staff', 'role-shop', { userId: other, role: 'OPERATOR', shopId: deps.config.defaultShopId }),
        ];
      }),
    );
    // Done (303), refused as the last ADMIN (409), the other already gone (404), the actor's
    // own session ended (401), or the actor already made an OPERATOR by the other, so no
    // longer let into the console (403: its only refusal of a same-site form with the
    // session's token, lib/console/frame.tsx).
    for (const answer of answers) expect([303, 401, 403, 404, 409]).toContain(answer.status);
    const users = (await items(tenantId)).filter((item) => item.sk === 'PROFILE');
    expect(users.filter((user) => user.role === 'ADMIN' && user.status === 'active')).toHaveLength(1);
  });

  describe('OAuth', () => {
    let adminToken: string;
    let client: TestClient;
    beforeAll(async () => {
      const tenantId = uniqueTenant('oauth-race');
      adminToken = (await registerAdmin(app, tenantId)).token;
      client = await createClient(app, adminToken, tenantId);
    });
    const introspect = async (token: string) => (await app.request('introspect', tokenRequest(client, { token }))).body;

    it(`${N} concurrent redemptions of one code (form and JSON): exactly one wins, and its tokens are then revoked`, async () => {
      const { code, verifier } = await authorizationCode(app, adminToken, client);
      const fields = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier };
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          i % 2
            ? app.request('oauth2Token', tokenRequest(client, fields))
            : app.request('oauth2Token', { body: { ...fields, client_id: client.clientId, client_secret: client.clientSecret } }),
        ),
      );
      expect(count(answers, 200)).toBe(1);
      expect(count(answers, 400)).toBe(N - 1);
      const winner = answers.find((answer) => answer.status === 200)?.body;
      const issued = winner.data ?? winner;
      expect(await introspect(issued.access_token)).toEqual({ active: false });
      expect(await introspect(issued.refresh_token)).toEqual({ active: false });
    });

    it(`${N} concurrent refresh_token grants with one OAuth refresh token: exactly one wins`, async () => {
      const { code, verifier } = await authorizationCode(app, adminToken, client);
      const issued = (
        await app.request(
          'oauth2Token',
          tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
        )
      ).body;
      const answers = await Promise.all(
        Array.from({ length: N }, () =>
          app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })),
        ),
      );
      expect(count(answers, 200)).toBe(1);
      expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'invalid_grant')).toHaveLength(N - 1);
      // As for sessions: the losers presented a retired token (reuse), so the grant ends.
      const winner = answers.find((answer) => answer.status === 200)?.body;
      expect(await introspect(winner.refresh_token)).toEqual({ active: false });
      expect(await introspect(winner.access_token)).toEqual({ active: false });
    });

    it(`${N} concurrent uses of one DPoP proof, at the token endpoint and at userinfo: exactly one accepted each (docs/api.md 16.3)`, async () => {
      const key = await dpopKey();
      const iat = Math.floor(deps.clock.now() / 1000);
      const proof = await dpopProof(key, { htu: `${deps.config.issuer}/oauth2/token`, iat });
      const form = tokenRequest(client, { grant_type: 'client_credentials' });
      const answers = await Promise.all(
        Array.from({ length: N }, () => app.request('oauth2Token', { ...form, headers: { ...form.headers, dpop: proof } })),
      );
      expect(count(answers, 200)).toBe(1);
      expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'invalid_dpop_proof')).toHaveLength(N - 1);

      const oidc = await createClient(app, adminToken, client.tenantId, { scope: 'openid' });
      const { code, verifier } = await authorizationCode(app, adminToken, oidc, { scope: 'openid' });
      const redeem = tokenRequest(oidc, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: oidc.redirectUri,
        code_verifier: verifier,
      });
      const tokenProof = await dpopProof(key, { htu: `${deps.config.issuer}/oauth2/token`, iat });
      const token = (await app.request('oauth2Token', { ...redeem, headers: { ...redeem.headers, dpop: tokenProof } })).body.access_token;
      const userinfoProof = await dpopProof(key, { htm: 'GET', htu: `${deps.config.issuer}/oauth2/userinfo`, iat, accessToken: token });
      const calls = await Promise.all(
        Array.from({ length: N }, () =>
          app.request('userInfo', { method: 'GET', headers: { authorization: `DPoP ${token}`, dpop: userinfoProof } }),
        ),
      );
      expect(count(calls, 200)).toBe(1);
      expect(calls.filter((call) => call.status === 401 && call.body.code === 'INVALID_DPOP_PROOF')).toHaveLength(N - 1);
    });
  });

  it(`${N} ADMINs' changes of one client's allowed origins at once: the origin index names every origin the client ends with (docs/api.md 16.2)`, async () => {
    const tenantId = uniqueTenant('origins-race');
    const adminToken = (await registerAdmin(app, tenantId)).token;
    const clientId = `spa-${tenantId}`;
    const origin = (i: number) => `https://o${i}.${tenantId}.example`;
    const created = await app.request('createOAuth2Client', {
      token: adminToken,
      body: {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        redirect_uri: 'https://spa.example.com/cb',
        grant_types: 'authorization_code',
        scope: 'orders:read',
        tenant_id: tenantId,
        allowed_origins: `${origin(0)} ${origin(1)}`,
      },
    });
    expect(created.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        app.request('updateOAuth2Client', {
          token: adminToken,
          pathParameters: { clientId },
          body: { allowed_origins: i % 2 ? origin(i % 3) : `${origin((i + 1) % 3)} ${origin(0)}` },
        }),
      ),
    );
    expect(count(answers, 200)).toBe(N);
    const final = await deps.store.oauthClients.find(clientId);
    expect(final?.allowedOrigins.length).toBeGreaterThan(0);
    for (const listed of final?.allowedOrigins ?? []) expect(await deps.store.oauthClients.listsOrigin(listed), listed).toBe(true);
    // The index is every tenant's, so the whole table is checked; but not other tenants' records,
    // whose first user another test here deleted on purpose (ADMINs deleting each other, above).
    const items = await scanTable(endpoint, tableName);
    expect(halfWrittenState(items.filter((item) => item.sk !== 'TENANT' || item.pk === `T#${tenantId}`))).toEqual([]);
  });

  describe('OAuth client lifecycle', () => {
    let adminToken: string;
    let tenantId: string;
    beforeAll(async () => {
      tenantId = uniqueTenant('client-race');
      adminToken = (await registerAdmin(app, tenantId)).token;
    });
    const works = async (client: TestClient, secret: string) =>
      (await app.request('oauth2Token', tokenRequest({ ...client, clientSecret: secret }, { grant_type: 'client_credentials' }))).status;
    const rotate = (client: TestClient, secret: string) =>
      app.request('rotateOAuth2ClientSecret', {
        token: adminToken,
        pathParameters: { clientId: client.clientId },
        body: { client_secret: secret, previous_secret_expires_in: 3600 },
      });

    it.each([2, 5])('%i rotations at once: each applies once, in turn; the newest two secrets work, no other', async (n) => {
      const client = await createClient(app, adminToken, tenantId);
      const secrets = Array.from({ length: n }, () => newSecret());
      const answers = await Promise.all(secrets.map((secret) => rotate(client, secret)));
      expect(answers.map((answer) => answer.status)).toEqual(secrets.map(() => 200));
      const statuses = await Promise.all([client.clientSecret, ...secrets].map((secret) => works(client, secret)));
      // The original secret was replaced first by one of them, then each rotation moved the one before it to previous.
      expect(statuses[0]).toBe(401);
      expect(statuses.filter((status) => status === 200)).toHaveLength(2);
      const stored = await deps.store.oauthClients.find(client.clientId);
      const holds = async (hash: string | undefined) =>
        Promise.all(secrets.map(async (secret) => (await deps.clientSecretHasher.check(hash, secret)).matches));
      const [current, previous] = [await holds(stored?.secretHash), await holds(stored?.previousSecretHash)];
      expect(current.filter(Boolean)).toHaveLength(1);
      expect(previous.filter(Boolean)).toHaveLength(1);
      expect(secrets.map((_, i) => current[i] || previous[i])).toEqual(statuses.slice(1).map((status) => status === 200));
    });

    it(`a deletion racing ${N} token requests: afterwards nothing of the client works, whatever was issued`, async () => {
      const client = await createClient(app, adminToken, tenantId);
      const other = await createClient(app, adminToken, tenantId);
      const codes = await Promise.all(Array.from({ length: N / 2 }, () => authorizationCode(app, adminToken, client)));
      const requests = [
        ...codes.map(({ code, verifier }) =>
          app.request(
            'oauth2Token',
            tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
          ),
        ),
        ...Array.from({ length: N / 2 }, () => app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))),
      ];
      const [deleted, ...answers] = await Promise.all([
        app.request('deleteOAuth2Client', { token: adminToken, pathParameters: { clientId: client.clientId } }),
        ...requests,
      ]);
      expect(deleted?.body).toEqual({ success: true, data: { message: 'OAuth2 client deleted' } });
      for (const answer of answers) expect([200, 401]).toContain(answer.status);
      for (const issued of answers.filter((answer) => answer.status === 200).map((answer) => answer.body)) {
        if (issued.refresh_token) {
          const refreshed = await app.request(
            'oauth2Token',
            tokenRequest(client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token }),
          );
          expect(refreshed.status).toBe(401);
          expect((await app.request('introspect', tokenRequest(other, { token: issued.refresh_token }))).body).toEqual({
            active: false,
          });
        }
        expect((await app.request('introspect', tokenRequest(client, { token: issued.access_token }))).status).toBe(401);
        expect((await app.request('introspect', tokenRequest(other, { token: issued.access_token }))).body).toEqual({
          active: false,
        });
      }
      expect(await works(client, client.clientSecret)).toBe(401);
      const record = (await scanTable(endpoint, tableName)).filter((item) => item.clientId === client.clientId && item.sk === 'CLIENT');
      expect(record).toEqual([expect.objectContaining({ deletedAt: expect.any(String), tenantId })]);
      expect(record[0]?.secretHash).toBeUndefined();
    });
  });

  describe('MFA codes', () => {
    const newUser = async () => {
      const tenantId = uniqueTenant('mfa-race');
      const admin = await registerAdmin(app, tenantId, 'alice', PASSWORD);
      return {
        tenantId,
        token: admin.token,
        userId: admin.user.id,
        login: (extra: Record<string, unknown>) =>
          app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, ...extra } }),
      };
    };

    it(`${N} concurrent logins with one TOTP code: exactly one session`, async () => {
      const user = await newUser();
      const { code } = await activateTotp(app, deps, user.token);
      const mfaCode = code();
      const answers = await Promise.all(Array.from({ length: N }, () => user.login({ mfaCode })));
      expect(count(answers, 200)).toBe(1);
      // Each loser either lost the race for the time step or was stopped by the lockout once 5 had failed.
      expect(
        answers.every(
          (answer) => answer.status === 200 || (answer.status === 401 && answer.body.error === 'Invalid MFA code') || answer.status === 429,
        ),
      ).toBe(true);
      const sessions = (await items(user.tenantId)).filter(
        (item) => item.sk === 'SESSION' && Array.isArray(item.amr) && item.amr.includes('otp'),
      );
      expect(sessions).toHaveLength(1);
    });

    it.each(['SMS', 'EMAIL'] as const)(`${N} concurrent logins with one %s code: exactly one session`, async (method) => {
      const user = await newUser();
      await activateDelivered(app, deps, user.token, user.userId, method, method === 'SMS' ? '+15550001111' : 'alice@example.com');
      deps.clock.advance(31);
      expect((await user.login({})).body.error).toBe('MFA code required');
      const mfaCode = (await deps.outbox.latest(user.tenantId, user.userId, method))?.code;
      const answers = await Promise.all(Array.from({ length: N }, () => user.login({ mfaCode })));
      expect(count(answers, 200)).toBe(1);
      const sessions = (await items(user.tenantId)).filter(
        (item) => item.sk === 'SESSION' && Array.isArray(item.amr) && item.amr.includes('otp'),
      );
      expect(sessions).toHaveLength(1);
    });

    it.each(['TOTP', 'SMS'] as const)(`${N} concurrent verifications of one %s enrolment code: exactly one 200`, async (method) => {
      const user = await newUser();
      let code: string | undefined;
      if (method === 'TOTP') {
        const secret = newTotpSecret();
        expect((await app.request('enableMFA', { token: user.token, body: { method, secret } })).status).toBe(200);
        code = authenticator(deps, secret)();
      } else {
        expect((await app.request('enableMFA', { token: user.token, body: { method, secret: '+15550002222' } })).status).toBe(200);
        code = (await deps.outbox.latest(user.tenantId, user.userId, method))?.code;
      }
      const answers = await Promise.all(
        Array.from({ length: N }, () => app.request('verifyMFA', { token: user.token, body: { method, code } })),
      );
      expect(count(answers, 200)).toBe(1);
      expect(answers.every((answer) => answer.status === 200 || answer.status === 400 || answer.status === 429)).toBe(true);
    });

    it(`${N} concurrent logins with one recovery code: exactly one session, and the code is used`, async () => {
      const user = await newUser();
      const { code } = await activateTotp(app, deps, user.token);
      const signedIn = await user.login({ mfaCode: code() });
      const generated = await app.request('generateRecoveryCodes', { token: signedIn.body.data.token });
      const mfaCode = generated.body.data.codes[0] as string;
      const answers = await Promise.all(Array.from({ length: N }, () => user.login({ mfaMethod: 'RECOVERY', mfaCode })));
      expect(count(answers, 200)).toBe(1);
      // Each loser lost the race for the code, or was stopped by the lockout once 5 had failed.
      expect(
        answers.every(
          (answer) => answer.status === 200 || (answer.status === 401 && answer.body.error === 'Invalid MFA code') || answer.status === 429,
        ),
      ).toBe(true);
      const sessions = (await items(user.tenantId)).filter(
        (item) => item.sk === 'SESSION' && Array.isArray(item.amr) && item.amr.includes('otp'),
      );
      // The sign-in with TOTP and the one winner.
      expect(sessions).toHaveLength(2);
      const recovery = (await items(user.tenantId)).find((item) => item.sk === 'RECOVERY');
      expect(recovery?.digests).toBeInstanceOf(Set);
      expect((recovery?.digests as Set<string> | undefined)?.size).toBe(9);
    });

    it('the last two methods disabled at once, and recovery codes generated meanwhile: never codes without an active method', async () => {
      for (let round = 0; round < 3; round++) {
        const user = await newUser();
        const { code } = await activateTotp(app, deps, user.token);
        const token = (await user.login({ mfaCode: code() })).body.data.token as string;
        await activateDelivered(app, deps, token, user.userId, 'EMAIL', 'alice@example.com');
        expect((await app.request('generateRecoveryCodes', { token })).status).toBe(200);
        const answers = await Promise.all([
          app.request('disableMFA', { token, body: { method: 'TOTP' } }),
          app.request('disableMFA', { token, body: { method: 'EMAIL' } }),
          app.request('generateRecoveryCodes', { token }),
          app.request('generateRecoveryCodes', { token }),
        ]);
        for (const answer of answers) expect([200, 400, 503], JSON.stringify(answer.body)).toContain(answer.status);
        const records = await items(user.tenantId);
        const active = records.filter((item) => String(item.sk).startsWith('METHOD#') && item.status === 'active');
        const recovery = records.filter((item) => item.sk === 'RECOVERY');
        if (active.length === 0) expect(recovery, `round ${round}`).toEqual([]);
        expect(active.length + answers.slice(0, 2).filter((answer) => answer.status === 200).length).toBe(2);
      }
    });

    it("logins of one user and enrolments of each method at once: every one answers, and the user's activity names them (docs/decisions/027-bounded-admin-lists.md)", async () => {
      // As many logins as the account's budget lets through at once (docs/api.md 10).
      const logins = 4;
      const user = await newUser();
      const enrolments = [
        { method: 'TOTP', secret: newTotpSecret() },
        { method: 'SMS', secret: '+15550102030' },
        { method: 'EMAIL', secret: 'alice@example.com' },
      ].map((body) => app.request('enableMFA', { token: user.token, body }));
      const answers = await Promise.all([...Array.from({ length: logins }, () => user.login({})), ...enrolments]);
      expect(answers.map((answer) => answer.status)).toEqual(Array(logins + 3).fill(200));
      const stored = await items(user.tenantId);
      expect(stored.filter((item) => String(item.sk).startsWith('METHOD#'))).toHaveLength(3);
      expect(stored.filter((item) => item.sk === 'SESSION')).toHaveLength(logins + 1);
      expect(halfWrittenState(stored)).toEqual([]);
    });

    it('10 concurrent TOTP enrolments with different secrets: one pending method, and only its secret verifies', async () => {
      const user = await newUser();
      const secrets = Array.from({ length: 10 }, () => newTotpSecret());
      const answers = await Promise.all(
        secrets.map((secret) => app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } })),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      const methods = (await items(user.tenantId)).filter((item) => String(item.sk).startsWith('METHOD#'));
      expect(methods).toHaveLength(1);
      // The lockout allows 5 wrong codes per 15 minutes: try the secrets 4 at a time, moving
      // the clock on (and signing in again, as access tokens last 15 minutes).
      const accepted: string[] = [];
      let token = user.token;
      for (let i = 0; i < secrets.length; i++) {
        if (i % 4 === 0 && i > 0) {
          deps.clock.advance(15 * 60 + 1);
          const active = accepted[0];
          token = (await user.login(active ? { mfaCode: authenticator(deps, active)() } : {})).body.data.token;
        }
        const secret = secrets[i] ?? '';
        const verified = await app.request('verifyMFA', { token, body: { method: 'TOTP', code: authenticator(deps, secret)() } });
        expect([200, 400]).toContain(verified.status);
        if (verified.status === 200) accepted.push(secret);
      }
      expect(accepted).toHaveLength(1);
      expect(decodeJwt(user.token).tenantId).toBe(user.tenantId);
    });
  });

  describe('reset and verification codes (docs/api.md 8.7, 8.8)', () => {
    // 5: every request gets one of the code's 5 tries; the winner is decided by the use.
    const M = 5;

    it(`${M} concurrent resets with one code, each with its own new password: exactly one wins, once`, async () => {
      for (let round = 0; round < 3; round++) {
        const tenantId = uniqueTenant('reset-race');
        const admin = await registerAdmin(app, tenantId, 'alice', PASSWORD);
        await verifiedEmail(app, deps, admin.token, tenantId, admin.user.id, 'alice@example.com');
        await app.request('passwordForgot', { body: { username: 'alice', tenantId } });
        const code = (await deps.outbox.latest(tenantId, admin.user.id, 'EMAIL', 'reset'))?.code;
        const passwords = Array.from({ length: M }, (_, i) => `${PASSWORD} reset ${i}`);
        const answers = await Promise.all(
          passwords.map((newPassword) => app.request('passwordReset', { body: { username: 'alice', tenantId, code, newPassword } })),
        );
        expect(count(answers, 200)).toBe(1);
        expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'Invalid reset code')).toHaveLength(M - 1);
        const winner = passwords[answers.findIndex((answer) => answer.status === 200)];
        const logins = await Promise.all(
          passwords.map((password) => app.request('login', { body: { username: 'alice', password, tenantId } })),
        );
        expect(logins.map((login) => login.status === 200)).toEqual(passwords.map((password) => password === winner));
        const user = (await items(tenantId)).find((item) => item.sk === 'PROFILE');
        expect(user?.sessionEpoch).toBe(1);
      }
    });

    it('a reset with removePasskeys against a passkey registration and a removal in flight: no passkey outlives it', async () => {
      for (let round = 0; round < 3; round++) {
        const tenantId = uniqueTenant('reset-passkey-race');
        const admin = await registerAdmin(app, tenantId, 'alice', PASSWORD);
        await verifiedEmail(app, deps, admin.token, tenantId, admin.user.id, 'alice@example.com');
        const passkeys = softwareAuthenticator();
        const options = async () => (await app.request('passkeyRegistrationOptions', { token: admin.token, body: {} })).body.data.options;
        const kept = await app.request('passkeyRegistration', {
          token: admin.token,
          body: { credential: passkeys.create(await options()).response },
        });
        expect(kept.status).toBe(201);
        const late = passkeys.create(await options()).response;
        await app.request('passwordForgot', { body: { username: 'alice', tenantId } });
        const code = (await deps.outbox.latest(tenantId, admin.user.id, 'EMAIL', 'reset'))?.code;
        const [reset, registration, removal] = await Promise.all([
          app.request('passwordReset', {
            body: { username: 'alice', tenantId, code, newPassword: `${PASSWORD} reset`, removePasskeys: true },
          }),
          app.request('passkeyRegistration', { token: admin.token, body: { credential: late } }),
          app.request('removePasskey', { token: admin.token, pathParameters: { id: kept.body.data.passkey.id } }),
        ]);
        expect(reset.status).toBe(200);
        // Each lands before the reset (and is undone by it), or finds the session revoked.
        expect([201, 401]).toContain(registration.status);
        expect([200, 401, 404]).toContain(removal.status);
        const live = (await items(tenantId)).filter((item) => String(item.pk).includes('#PASSKEY#') && item.removedAt === undefined);
        expect(live).toEqual([]);
        for (const credential of passkeys.credentials) {
          const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId } })).body.data.options;
          const assertion = passkeys.get(request, {}, credential);
          expect((await app.request('passkeyAuthentication', { body: { tenantId, credential: assertion } })).status).toBe(401);
        }
      }
    });

    it(`${M} concurrent verifications with one code: exactly one wins`, async () => {
      const tenantId = uniqueTenant('verify-race');
      const admin = await registerAdmin(app, tenantId, 'alice', PASSWORD);
      await app.request('emailSet', { token: admin.token, body: { email: 'alice@example.com' } });
      const code = (await deps.outbox.latest(tenantId, admin.user.id, 'EMAIL', 'verify-email'))?.code;
      const answers = await Promise.all(
        Array.from({ length: M }, () => app.request('emailVerify', { token: admin.token, body: { code } })),
      );
      expect(count(answers, 200)).toBe(1);
      expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'Invalid verification code')).toHaveLength(M - 1);
    });
  });

  it(`${N} concurrent passkey sign-ins with one assertion, and ${N} registrations of one credential id: exactly one each (docs/api.md 12)`, async () => {
    const tenantId = uniqueTenant('race');
    const admin = await registerAdmin(app, tenantId);
    const passkeys = softwareAuthenticator();
    const creations = await Promise.all(
      Array.from(
        { length: N },
        async () => (await app.request('passkeyRegistrationOptions', { token: admin.token, body: {} })).body.data.options,
      ),
    );
    const first = passkeys.create(creations[0]);
    const registrations = await Promise.all(
      creations.map((creation, i) =>
        app.request('passkeyRegistration', {
          token: admin.token,
          body: { credential: i === 0 ? first.response : passkeys.create(creation, {}, first.credential).response },
        }),
      ),
    );
    expect(count(registrations, 201)).toBe(1);
    expect(registrations.filter((answer) => answer.status === 409 && answer.body.error === 'Passkey already registered')).toHaveLength(
      N - 1,
    );
    expect((await items(tenantId)).filter((item) => String(item.pk).includes('#PASSKEY#'))).toHaveLength(1);

    const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId } })).body.data.options;
    const assertion = passkeys.get(request, {}, first.credential);
    const signIns = await Promise.all(
      Array.from({ length: N }, () => app.request('passkeyAuthentication', { body: { tenantId, credential: assertion } })),
    );
    expect(count(signIns, 200)).toBe(1);
    expect(signIns.filter((answer) => answer.status === 401 && answer.body.error === 'Invalid passkey')).toHaveLength(N - 1);
  });

  it(`${N} passkey confirmations on the account page with one assertion: one proof recorded, the others refused (docs/api.md 15.2)`, async () => {
    const tenantId = uniqueTenant('race-confirm');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const passkeys = softwareAuthenticator();
    const creation = (await app.request('passkeyRegistrationOptions', { token: admin.token, body: {} })).body.data.options;
    expect(
      (await app.request('passkeyRegistration', { token: admin.token, body: { credential: passkeys.create(creation).response } })).status,
    ).toBe(201);
    const origin = new URL(deps.config.issuer).origin;
    const { jar, page } = await signedInJar(app, origin, 'account', { tenantId, username: 'admin', password: PASSWORD });
    // A challenge bound to the user, as the page's.
    const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: 'admin' } })).body.data.options;
    const fields = { csrf: csrfOf(page), credential: JSON.stringify(passkeys.get(request)) };
    const answers = await Promise.all(
      Array.from({ length: N }, () => postAction(app, jar, 'account', { section: 'profile', action: 'confirm-passkey' }, fields, origin)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, ...Array.from({ length: N - 1 }, () => 401)]);
    const proofs = await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 50, type: 'reauthenticated' });
    expect(proofs.events).toHaveLength(1);
  });

  it(`device grant: ${N} decisions on one code, ${N} polls after it, and 30 wrong codes at once (docs/api.md 16.4)`, async () => {
    const tenantId = uniqueTenant('race-device');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const device = await createClient(app, admin.token, tenantId, { grantTypes: DEVICE_GRANT, scope: 'orders:read' });
    const origin = new URL(deps.config.issuer).origin;
    const browser = await deviceBrowser(app, origin, tenantId, 'admin', PASSWORD);
    const codes = await deviceCodes(app, device);
    const decisions = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: codes.user_code, decision: i % 2 ? 'allow' : 'deny' }),
      ),
    );
    // One decision wins; the others find it decided, or (entries in flight fill the window for a moment) wait their turn.
    expect(count(decisions, 303)).toBe(1);
    const used = decisions.filter((answer) => answer.status === 400 && String(answer.body).includes('This code has been used already.'));
    expect(used.length + count(decisions, 429)).toBe(N - 1);
    const allowed = decisions.find((answer) => answer.status === 303)?.headers.Location?.endsWith('done=allowed');
    const polls = await Promise.all(Array.from({ length: N }, () => pollToken(app, device, codes.device_code)));
    // One poll passes the interval: it answers the decision; the others are too early.
    expect(count(polls, 200)).toBe(allowed ? 1 : 0);
    const late = polls.filter((answer) => answer.status !== 200 && answer.body.error !== 'slow_down');
    expect(
      late.map((answer) => answer.body.error),
      JSON.stringify(polls.map((answer) => [answer.status, answer.body.error ?? answer.body])),
    ).toEqual(allowed ? [] : ['access_denied']);
    const grants = (await items(tenantId)).filter((item) => item.sk === 'GRANT');
    expect(grants).toHaveLength(allowed ? 1 : 0);

    // Wrong codes from one user at once: no more than 10 are looked up, and then a right code is refused too.
    const fresh = await deviceCodes(app, device);
    const guesses = await Promise.all(
      Array.from({ length: 30 }, () => postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: 'BBBB-BBBB' })),
    );
    expect(count(guesses, 400)).toBe(10);
    expect(count(guesses, 429)).toBe(20);
    expect((await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: fresh.user_code })).status).toBe(429);
  });

  describe('invitations (docs/api.md 13.1)', () => {
    const FORM_TYPE = 'application/x-www-form-urlencoded';
    const linkOf = async (email: string) => /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1] ?? '';

    it(`${N} acceptances of one link at once, by JSON and by the hosted page: exactly one account`, async () => {
      const tenantId = uniqueTenant('accept');
      const admin = await registerAdmin(app, tenantId);
      const email = `race@${tenantId}.example`;
      expect((await app.request('adminCreateInvitation', { token: admin.token, body: { email, role: 'ANALYST' } })).status).toBe(201);
      const token = await linkOf(email);
      const origin = new URL(deps.config.issuer).origin;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          i % 2 === 0
            ? app.request('acceptInvitation', { body: { token, username: `taker-${i}`, password: `${PASSWORD} ${i}` } })
            : app.request('hostedInvitationAccept', {
                pathParameters: { token },
                headers: { 'content-type': FORM_TYPE, origin },
                body: new URLSearchParams({ username: `taker-${i}`, password: `${PASSWORD} ${i}` }).toString(),
              }),
        ),
      );
      const won = answers.filter((answer) => answer.status === 201 || answer.status === 200);
      expect(won).toHaveLength(1);
      const lost = answers.filter((answer) => answer.status === 400);
      expect(lost).toHaveLength(N - 1);
      for (const answer of lost) {
        if (typeof answer.body === 'string') expect(answer.body).toContain('Invalid invitation');
        else expect(answer.body.error).toBe('Invalid invitation');
      }
      const records = await items(tenantId);
      expect(records.filter((item) => item.sk === 'PROFILE' && item.email === email)).toHaveLength(1);
      expect(records.filter((item) => item.sk === 'USERNAME')).toHaveLength(2);
      expect(records.filter((item) => item.sk === 'INVITATION').map((item) => item.status)).toEqual(['accepted']);
    });

    it(`${N} invitations of one address at once (any case): one 201, the others 409, one pending record`, async () => {
      const tenantId = uniqueTenant('invite');
      const admin = await registerAdmin(app, tenantId);
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          app.request('adminCreateInvitation', {
            token: admin.token,
            body: { email: i % 2 ? 'Same@Example.com' : 'same@example.com', role: 'ANALYST' },
          }),
        ),
      );
      expect(count(answers, 201)).toBe(1);
      expect(answers.filter((answer) => answer.status === 409 && answer.body.error === 'Invitation already pending')).toHaveLength(N - 1);
      const records = await items(tenantId);
      expect(records.filter((item) => item.sk === 'PENDING')).toHaveLength(1);
      expect(records.filter((item) => item.sk === 'INVITATION')).toHaveLength(1);
    });
  });

  describe('SAML (docs/api.md 14.5)', () => {
    it(`${N} posts of one response, and ${N} sign-ins answered with one assertion ID: one session, one user`, async () => {
      const tenantId = uniqueTenant('saml-race');
      const domain = `${tenantId}.example`;
      const admin = await registerAdmin(app, tenantId);
      const [client, idp] = await Promise.all([createClient(app, admin.token, tenantId), makeSamlIdp()]);
      const saml = await samlConnectionOf(deps, tenantId, domain, {
        idpEntityId: idp.entityId,
        ssoUrl: 'https://idp.example.test/sso',
        signingCertificates: [idp.cert],
      });
      const email = `racer@${domain}`;
      const responseTo = (start: SamlStart, assertionId: string) =>
        idp.encodedResponse({
          ...start,
          inResponseTo: start.requestId,
          nameId: 'racer',
          attributes: { email: [email] },
          now: deps.clock.now(),
          assertionId,
        });

      // The same form posted N times at once (a double-click, a replaying attacker): the pending sign-in is taken once.
      const jar = new CookieJar();
      const start = await startSamlSignIn(app, jar, client, email);
      const form = { SAMLResponse: responseTo(start, '_race-one'), RelayState: start.relayState };
      const samePosts = await Promise.all(
        Array.from({ length: N }, () => {
          const copy = new CookieJar();
          for (const [name, value] of jar.cookies) copy.cookies.set(name, value);
          return postSamlResponse(app, copy, saml.id, form);
        }),
      );
      expect(samePosts.filter((answer) => answer.status === 200 || answer.status === 303)).toHaveLength(1);
      expect(samePosts.filter((answer) => answer.status === 400)).toHaveLength(N - 1);

      // N sign-ins, each answered by a response of its own, all with one assertion ID: the ID is accepted once.
      const starts = await Promise.all(
        Array.from({ length: N }, async () => {
          const own = new CookieJar();
          return { jar: own, start: await startSamlSignIn(app, own, client, email) };
        }),
      );
      const answers = await Promise.all(
        starts.map(({ jar: own, start: each }) =>
          postSamlResponse(app, own, saml.id, { SAMLResponse: responseTo(each, '_race-two'), RelayState: each.relayState }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 200 || answer.status === 303)).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 400)).toHaveLength(N - 1);
      // One user (provisioned by the first part), one session of each part.
      const users = await deps.store.users.findByEmail(tenantId, email);
      expect(users).toHaveLength(1);
      expect(await deps.store.sessions.listByUser(tenantId, users[0]?.id ?? '')).toHaveLength(2);
    });
  });
});
