import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../lib/deliveries/delivery';
import type { CloudEvent } from '../../lib/events/event';
import { BACKCHANNEL_LOGOUT_EVENT, backchannelLogoutPlanner, logoutRequest } from '../../lib/oauth/backchannel-logout';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { authorizationCode, createClient, redeemCode, type TestClient } from '../helpers/oauth';

/**
 * docs/api.md 17.3: who gets a logout token when sessions end (the planner, on grants made
 * through the real authorization code flow), and the token itself (the request maker),
 * verified against the JWKS as a client would.
 */
describe('back-channel logout', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let userId: string;
  /** The user's two sessions. */
  let first: string;
  let second: string;
  /** Holds both sessions; needs no sid. */
  let web: TestClient;
  /** Holds the first session; requires sid. */
  let strict: TestClient;
  /** Holds the first session; has no back-channel logout URI. */
  let silent: TestClient;
  /** Another tenant's client with a URI. */
  let foreign: TestClient;
  /** Grants that record no session (made before grants did), of `web` and `strict`. */
  const legacy = { web: `legacy-${randomBytes(8).toString('hex')}`, strict: `legacy-${randomBytes(8).toString('hex')}` };

  const withUri = (uri: string) => async (client: TestClient) => {
    const answer = await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: client.clientId },
      body: { backchannel_logout_uri: uri },
    });
    expect(answer.status).toBe(200);
    return client;
  };
  const grant = async (userToken: string, client: TestClient) => {
    const redeemed = await redeemCode(app, client, await authorizationCode(app, userToken, client, { scope: 'openid' }));
    expect(redeemed.status).toBe(200);
  };
  const legacyGrant = (id: string, clientId: string) =>
    deps.store.oauthGrants.save({
      id,
      tenantId,
      clientId,
      kind: 'authorization_code',
      subject: userId,
      scope: ['openid'],
      createdAt: 1,
      expiresAt: 4_000_000_000,
    });

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant('bcl');
    adminToken = (await registerAdmin(app, tenantId)).token;
    const options = { scope: 'openid orders:read', grantTypes: 'authorization_code refresh_token' };
    [web, strict, silent] = await Promise.all([
      createClient(app, adminToken, tenantId, options).then(withUri('https://web.example.com/bcl?app=web')),
      createClient(app, adminToken, tenantId, options),
      createClient(app, adminToken, tenantId, options),
    ]);
    const strictAnswer = await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: strict.clientId },
      body: { backchannel_logout_uri: 'https://strict.example.com/bcl', backchannel_logout_session_required: true },
    });
    expect(strictAnswer.status).toBe(200);
    const staff = { username: 'picker', password: 'correct horse battery', role: 'OPERATOR', tenantId };
    const firstLogin = await registerStaff(app, adminToken, staff);
    const secondLogin = (await app.request('login', { body: { username: 'picker', password: staff.password, tenantId } })).body.data;
    userId = firstLogin.user.id;
    const sessionOf = async (token: string) => (await app.identityOf(token))?.sessionId ?? '';
    first = await sessionOf(firstLogin.token);
    second = await sessionOf(secondLogin.token);
    await Promise.all([
      grant(firstLogin.token, web),
      grant(secondLogin.token, web),
      grant(firstLogin.token, strict),
      grant(firstLogin.token, silent),
      legacyGrant(legacy.web, web.clientId),
      legacyGrant(legacy.strict, strict.clientId),
    ]);
    // Another tenant's client with a URI; a (forged) grant of this tenant's user naming it must not reach it.
    const otherTenant = uniqueTenant('bcl-other');
    const otherAdmin = await registerAdmin(app, otherTenant);
    foreign = await createClient(app, otherAdmin.token, otherTenant, options).then(async (client) => {
      const answer = await app.request('updateOAuth2Client', {
        token: otherAdmin.token,
        pathParameters: { clientId: client.clientId },
        body: { backchannel_logout_uri: 'https://foreign.example.com/bcl' },
      });
      expect(answer.status).toBe(200);
      return client;
    });
    await deps.store.oauthGrants.save({
      id: `forged-${randomBytes(8).toString('hex')}`,
      tenantId,
      clientId: foreign.clientId,
      kind: 'authorization_code',
      subject: userId,
      sessionId: first,
      scope: ['openid'],
      createdAt: 1,
      expiresAt: 4_000_000_000,
    });
  });

  const event = (data: Record<string, unknown>, overrides: Partial<CloudEvent> = {}): CloudEvent => ({
    specversion: '1.0',
    id: randomBytes(8).toString('hex'),
    source: deps.config.issuer,
    type: 'identity.session.revoked',
    time: new Date().toISOString(),
    subject: userId,
    tenantid: tenantId,
    datacontenttype: 'application/json',
    sequence: '1',
    data: { actor: { type: 'user', id: userId }, ...data } as CloudEvent['data'],
    ...overrides,
  });
  /** The deliveries as `client sid` lines, sorted; every one a back-channel logout of the tenant for the user. */
  const planned = async (events: CloudEvent[]) => {
    const deliveries = await backchannelLogoutPlanner(deps, events);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ kind: 'backchannel_logout', tenantId, attempt: 1, payload: { sub: userId } });
      expect(Object.keys(delivery.payload).sort()).toEqual(delivery.payload.sid === undefined ? ['sub'] : ['sid', 'sub']);
    }
    return deliveries.map((delivery) => `${delivery.target} ${delivery.payload.sid ?? '-'}`).sort();
  };

  describe('the planner', () => {
    it('sends one logout per client with a URI that held an ended session, with its sid', async () => {
      expect(await planned([event({ endedSessions: [first] })])).toEqual(
        [`${strict.clientId} ${first}`, `${web.clientId} ${first}`].sort(),
      );
      expect(await planned([event({ endedSessions: [second, 'unknown-session'] })])).toEqual([`${web.clientId} ${second}`]);
    });

    it("for 'all', one per client and session of every grant of the user; sid only when known, or when the client requires it", async () => {
      expect(await planned([event({ endedSessions: 'all', reason: 'admin' }, { type: 'identity.user.disabled' })])).toEqual(
        [
          `${web.clientId} ${first}`,
          `${web.clientId} ${second}`,
          `${web.clientId} -`,
          `${strict.clientId} ${first}`,
          `${strict.clientId} ${legacy.strict}`,
        ].sort(),
      );
    });

    it("for 'all' with a kept session, none for the kept session nor for grants that cannot be told apart from it", async () => {
      expect(await planned([event({ endedSessions: 'all', keptSessionId: second }, { type: 'identity.password.changed' })])).toEqual(
        [`${strict.clientId} ${first}`, `${web.clientId} ${first}`].sort(),
      );
    });

    it('plans nothing for events that end no session, have no subject, or are of another tenant', async () => {
      expect(
        await planned([
          event({}, { type: 'identity.user.updated' }),
          event({ endedSessions: 'all' }, { subject: undefined }),
          event({ endedSessions: 'all' }, { tenantid: foreign.tenantId }),
          event({ endedSessions: 'not-a-list' }),
        ]),
      ).toEqual([]);
    });

    it('plans nothing from hostile event data, and never throws', async () => {
      const ids = fc.oneof(fc.string(), fc.constantFrom(first, second, 'all', '', legacy.web));
      const endedSessions = fc.oneof(fc.array(fc.oneof(ids, fc.integer(), fc.constant(null))), ids, fc.integer(), fc.object());
      await fc.assert(
        fc.asyncProperty(endedSessions, fc.option(ids), async (ended, kept) => {
          const data = { endedSessions: ended, ...(kept === null ? {} : { keptSessionId: kept }) };
          const deliveries = await backchannelLogoutPlanner(deps, [event(data)]);
          const valid = ended === 'all' || (Array.isArray(ended) && ended.every((id) => typeof id === 'string'));
          if (!valid) expect(deliveries).toEqual([]);
          for (const delivery of deliveries) expect([web.clientId, strict.clientId]).toContain(delivery.target);
        }),
        { numRuns: 60 },
      );
    });

    it('gives a delivery the same id however often its event is published, and another id for another event', async () => {
      const revoked = event({ endedSessions: [first] });
      const [once, again, other] = await Promise.all([
        backchannelLogoutPlanner(deps, [revoked]),
        backchannelLogoutPlanner(deps, [revoked]),
        backchannelLogoutPlanner(deps, [{ ...revoked, id: 'another-event' }]),
      ]);
      const ids = (deliveries: Delivery[]) => deliveries.map((delivery) => delivery.id).sort();
      expect(ids(once)).toHaveLength(2);
      expect(ids(again)).toEqual(ids(once));
      expect(ids(other).some((id) => ids(once).includes(id))).toBe(false);
    });
  });

  describe('the logout token', () => {
    const delivery = (overrides: Partial<Delivery> = {}): Delivery => ({
      id: 'bcl_test',
      kind: 'backchannel_logout',
      tenantId,
      target: web.clientId,
      payload: { sub: userId, sid: first },
      attempt: 1,
      firstAttemptAt: Date.now(),
      ...overrides,
    });
    const jwks = async () => createLocalJWKSet((await app.request('jwks')).body as JSONWebKeySet);
    const tokenOf = (body: string) => new URLSearchParams(body).get('logout_token') ?? '';

    it('is signed with our keys, typed logout+jwt, with the claims of OIDC Back-Channel Logout 1.0 2.4 and no nonce', async () => {
      const request = await logoutRequest(deps, delivery());
      expect(request?.url).toBe('https://web.example.com/bcl?app=web');
      expect(request?.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded' });
      expect([...new URLSearchParams(request?.body).keys()]).toEqual(['logout_token']);
      const { payload, protectedHeader } = await jwtVerify(tokenOf(request?.body ?? ''), await jwks(), {
        issuer: deps.config.issuer,
        audience: web.clientId,
        typ: 'logout+jwt',
        algorithms: ['ES256'],
      });
      expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'logout+jwt' });
      expect(Object.keys(payload).sort()).toEqual(['aud', 'events', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
      expect(payload).toMatchObject({ sub: userId, sid: first, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
      expect(payload).not.toHaveProperty('nonce');
    });

    it('has a fresh jti at each attempt, and no sid when the delivery has none', async () => {
      const [once, again] = await Promise.all([
        logoutRequest(deps, delivery({ payload: { sub: userId } })),
        logoutRequest(deps, delivery({ payload: { sub: userId }, attempt: 2 })),
      ]);
      const keys = await jwks();
      const [a, b] = await Promise.all([once, again].map(async (request) => (await jwtVerify(tokenOf(request?.body ?? ''), keys)).payload));
      expect(a?.jti).toEqual(expect.any(String));
      expect(a?.jti).not.toBe(b?.jti);
      expect(a).not.toHaveProperty('sid');
    });

    it("is signed with the client's ID token algorithm", async () => {
      const rsa = await createClient(app, adminToken, tenantId, { scope: 'openid', idTokenAlg: 'RS256' }).then(
        withUri('https://rsa.example.com/bcl'),
      );
      const request = await logoutRequest(deps, delivery({ target: rsa.clientId }));
      const token = tokenOf(request?.body ?? '');
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
      await expect(jwtVerify(token, await jwks(), { audience: rsa.clientId })).resolves.toBeDefined();
    });

    it('goes to the URI as it is at each attempt, and not at all once it is removed or the client deleted', async () => {
      const client = await createClient(app, adminToken, tenantId, { scope: 'openid' }).then(withUri('https://one.example.com/bcl'));
      const attempt = () => logoutRequest(deps, delivery({ target: client.clientId }));
      expect((await attempt())?.url).toBe('https://one.example.com/bcl');
      await withUri('https://two.example.com/bcl')(client);
      expect((await attempt())?.url).toBe('https://two.example.com/bcl');
      await withUri('')(client);
      expect(await attempt()).toBeUndefined();
      await withUri('https://three.example.com/bcl')(client);
      const deleted = await app.request('deleteOAuth2Client', { token: adminToken, pathParameters: { clientId: client.clientId } });
      expect(deleted.status).toBe(200);
      expect(await attempt()).toBeUndefined();
    });

    it("is not made for a delivery naming another tenant's client, nor for a payload that is not a logout's", async () => {
      expect(await logoutRequest(deps, delivery({ target: foreign.clientId }))).toBeUndefined();
      expect(await logoutRequest(deps, delivery({ payload: { sub: userId, extra: 'x' } }))).toBeUndefined();
      expect(await logoutRequest(deps, delivery({ kind: 'webhook' }))).toBeUndefined();
    });
  });

  describe('end to end', () => {
    const received: Array<{ contentType: string | undefined; url: string | undefined; body: string }> = [];
    const server = createServer(async (request: IncomingMessage, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.push({ contentType: request.headers['content-type'], url: request.url, body });
      response.writeHead(200).end();
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('a loopback receiver gets a logout token it can verify for the session that ended', async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const receiver = await createClient(app, adminToken, tenantId, { scope: 'openid' }).then(
        withUri(`http://127.0.0.1:${port}/bcl?rp=1`),
      );
      const signedIn = (await app.request('login', { body: { username: 'picker', password: 'correct horse battery', tenantId } })).body
        .data;
      const sessionId = (await app.identityOf(signedIn.token))?.sessionId ?? '';
      await grant(signedIn.token, receiver);

      const deliveries = await backchannelLogoutPlanner(deps, [event({ endedSessions: [sessionId], reason: 'signed_out' })]);
      const mine = deliveries.filter((delivery) => delivery.target === receiver.clientId);
      expect(mine).toHaveLength(1);
      const request = await logoutRequest(deps, mine[0] as Delivery);
      const answer = await fetch(request?.url ?? '', { method: 'POST', headers: request?.headers, body: request?.body });
      expect(answer.status).toBe(200);

      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ contentType: 'application/x-www-form-urlencoded', url: '/bcl?rp=1' });
      const { payload } = await jwtVerify(new URLSearchParams(received[0]?.body).get('logout_token') ?? '', await jwks(), {
        issuer: deps.config.issuer,
        audience: receiver.clientId,
        typ: 'logout+jwt',
      });
      expect(payload).toMatchObject({ sub: userId, sid: sessionId });
    });
    const jwks = async () => createLocalJWKSet((await app.request('jwks')).body as JSONWebKeySet);
  });
});
