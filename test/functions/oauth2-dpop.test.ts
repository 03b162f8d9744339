import { decodeJwt, exportJWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DPOP_SIGNING_ALGORITHMS } from '../../lib/oauth/dpop';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { type DpopKey, dpopKey, dpopProof, unsignedJws } from '../helpers/dpop';
import { failure } from '../helpers/failures';
import { browserAuthorize, CookieJar, postForm } from '../helpers/hosted';
import {
  authorizationCode,
  createClient,
  newSecret,
  type OAuthTenant,
  oauthTenant,
  pkcePair,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth';

/** DPoP, sender-constrained tokens (RFC 9449, docs/api.md 16.3): the token endpoint, introspection, revocation, userinfo. */
describe('DPoP (docs/api.md 16.3)', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let client: TestClient;
  let keyA: DpopKey;
  let keyB: DpopKey;
  let keyC: DpopKey;
  let tokenUrl: string;
  let userinfoUrl: string;
  const ALGS = `algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app, { scope: 'openid orders:read' });
    client = tenant.client;
    [keyA, keyB, keyC] = await Promise.all([dpopKey(), dpopKey('EdDSA'), dpopKey()]);
    tokenUrl = `${deps.config.issuer}/oauth2/token`;
    userinfoUrl = `${deps.config.issuer}/oauth2/userinfo`;
  });

  const now = () => Math.floor(deps.clock.now() / 1000);
  /** A proof of a token request by `key`, as a client writes it. */
  const tokenProof = (key: DpopKey = keyA, claims: Partial<Parameters<typeof dpopProof>[1]> = {}) =>
    dpopProof(key, { htu: tokenUrl, iat: now(), ...claims });
  /** A token request the RFC way with a `DPoP` header (or several, joined as API Gateway joins them). */
  const withProof = (who: TestClient, fields: Record<string, string | undefined>, dpop: string | undefined) => {
    const request = tokenRequest(who, fields);
    return app.request('oauth2Token', { ...request, headers: { ...request.headers, ...(dpop === undefined ? {} : { dpop }) } });
  };
  const clientCredentials = (dpop: string | undefined, who = client) => withProof(who, { grant_type: 'client_credentials' }, dpop);
  const redeem = (who: TestClient, issued: { code: string; verifier: string }, dpop: string | undefined) =>
    withProof(
      who,
      { grant_type: 'authorization_code', code: issued.code, redirect_uri: who.redirectUri, code_verifier: issued.verifier },
      dpop,
    );
  const refresh = (who: TestClient, refreshToken: string, dpop: string | undefined) =>
    withProof(who, { grant_type: 'refresh_token', refresh_token: refreshToken }, dpop);
  const invalidProof = {
    status: 400,
    headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
    body: { error: 'invalid_dpop_proof', error_description: 'Invalid DPoP proof' },
  };
  const invalidGrant = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid grant' } };

  describe('the token endpoint', () => {
    it('issues a DPoP-bound token (token_type DPoP, cnf.jkt) for a request with a proof, and introspection tells its key', async () => {
      const answer = await clientCredentials(await tokenProof());
      expect(answer).toMatchObject({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { access_token: expect.any(String), token_type: 'DPoP', expires_in: 3600, scope: 'openid orders:read' },
      });
      expect(answer.headers['DPoP-Nonce']).toBeUndefined();
      expect(decodeJwt(answer.body.access_token).cnf).toEqual({ jkt: keyA.jkt });
      const introspected = await app.request('introspect', tokenRequest(client, { token: answer.body.access_token }));
      expect(introspected.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: keyA.jkt } });
      // Without a proof: a bearer token, as before.
      const bearer = await clientCredentials(undefined);
      expect(bearer.body.token_type).toBe('Bearer');
      expect(decodeJwt(bearer.body.access_token).cnf).toBeUndefined();
      const plain = await app.request('introspect', tokenRequest(client, { token: bearer.body.access_token }));
      expect(plain.body).toMatchObject({ active: true, token_type: 'Bearer' });
      expect(plain.body.cnf).toBeUndefined();
    });

    it('takes htu in any spelling the URL parser makes equal, its query and fragment ignored', async () => {
      const url = new URL(tokenUrl);
      const spelled = `${url.protocol.toUpperCase()}//${url.host.toUpperCase()}${url.pathname}?x=1#f`;
      expect((await clientCredentials(await tokenProof(keyA, { htu: spelled }))).status).toBe(200);
    });

    it.each<[string, () => Promise<string>]>([
      ['another htu', () => tokenProof(keyA, { htu: `${tokenUrl}/other` })],
      ['htu of another endpoint', () => tokenProof(keyA, { htu: userinfoUrl })],
      ['another htm', () => tokenProof(keyA, { htm: 'GET' })],
      ['an iat 61 seconds old', () => tokenProof(keyA, { iat: now() - 61 })],
      ['an iat 11 seconds ahead', () => tokenProof(keyA, { iat: now() + 11 })],
      ['no jti', () => tokenProof(keyA, { jti: undefined })],
      ['another typ', () => dpopProof(keyA, { htu: tokenUrl, iat: now() }, { header: { typ: 'JWT' } })],
      ['a signature by another key than its jwk', () => dpopProof(keyC, { htu: tokenUrl, iat: now() }, { header: { jwk: keyA.jwk } })],
      [
        'HS256',
        () =>
          new SignJWT({ jti: 'x', htm: 'POST', htu: tokenUrl, iat: now() })
            .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct' } })
            .sign(new TextEncoder().encode('secret')),
      ],
      [
        'alg none',
        async () => unsignedJws({ alg: 'none', typ: 'dpop+jwt', jwk: keyA.jwk }, { jti: 'x', htm: 'POST', htu: tokenUrl, iat: now() }),
      ],
      [
        'a private key in its header',
        async () => dpopProof(keyA, { htu: tokenUrl, iat: now() }, { header: { jwk: await exportJWK(keyA.privateKey) } }),
      ],
      ['no jwk', () => dpopProof(keyA, { htu: tokenUrl, iat: now() }, { header: { jwk: undefined } })],
      ['a malformed JWT', async () => 'not.a.jwt'],
      ['a JWS whose header is no JSON', async () => `${Buffer.from('{').toString('base64url')}.e30.c2ln`],
      ['two DPoP headers', async () => `${await tokenProof()},${await tokenProof()}`],
    ])('refuses a proof with %s: 400 invalid_dpop_proof', async (_, proof) => {
      expect(await clientCredentials(await proof())).toMatchObject(invalidProof);
    });

    it('refuses a replayed proof (its jti accepted once) in the envelope too', async () => {
      const proof = await tokenProof();
      expect((await clientCredentials(proof)).status).toBe(200);
      expect(await clientCredentials(proof)).toMatchObject(invalidProof);
      const json = await app.request('oauth2Token', {
        headers: { dpop: proof },
        body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
      });
      expect([json.status, json.body]).toEqual([400, failure('Invalid DPoP proof')]);
    });

    it('binds a code’s tokens to the proof’s key; a confidential client’s refresh may prove another key (RFC 9449 5)', async () => {
      const redeemed = await redeem(client, await authorizationCode(app, tenant.adminToken, client), await tokenProof());
      expect(redeemed.body).toMatchObject({ token_type: 'DPoP', refresh_token: expect.any(String) });
      expect(decodeJwt(redeemed.body.access_token).cnf).toEqual({ jkt: keyA.jkt });
      const refreshed = await refresh(client, redeemed.body.refresh_token, await tokenProof(keyB));
      expect(refreshed.body.token_type).toBe('DPoP');
      expect(decodeJwt(refreshed.body.access_token).cnf).toEqual({ jkt: keyB.jkt });
    });

    it('binds a public client’s refresh tokens to its key: another key or none is invalid_grant, and the token stays usable', async () => {
      const open: TestClient = {
        clientId: `spa-${Date.now()}`,
        clientSecret: '',
        redirectUri: 'https://spa.example.com/cb',
        tenantId: tenant.tenantId,
      };
      const registered = await app.request('createOAuth2Client', {
        token: tenant.adminToken,
        body: {
          client_id: open.clientId,
          token_endpoint_auth_method: 'none',
          redirect_uri: open.redirectUri,
          grant_types: 'authorization_code refresh_token',
          scope: 'openid orders:read',
          tenant_id: tenant.tenantId,
        },
      });
      expect(registered.status).toBe(201);
      const redeemed = await redeem(open, await authorizationCode(app, tenant.adminToken, open), await tokenProof());
      expect(redeemed.status).toBe(200);
      const { refresh_token } = redeemed.body;
      expect(await refresh(open, refresh_token, await tokenProof(keyB))).toMatchObject(invalidGrant);
      expect(await refresh(open, refresh_token, undefined)).toMatchObject(invalidGrant);
      const refreshed = await refresh(open, refresh_token, await tokenProof(keyA));
      expect(refreshed.body).toMatchObject({ token_type: 'DPoP', refresh_token: expect.any(String) });
      expect(decodeJwt(refreshed.body.access_token).cnf).toEqual({ jkt: keyA.jkt });
      expect((await refresh(open, refreshed.body.refresh_token, await tokenProof(keyA))).status).toBe(200);
    });

    it('redeems a code asked for with dpop_jkt (RFC 9449 10) only with a proof by that key', async () => {
      const issued = await authorizationCode(app, tenant.adminToken, client, {});
      // The Bearer door of docs/api.md 4.6 with dpop_jkt: the code is bound to keyA.
      const { verifier, challenge } = pkcePair();
      const asked = await app.request('oauth2Authorize', {
        token: tenant.adminToken,
        query: {
          response_type: 'code',
          client_id: client.clientId,
          redirect_uri: client.redirectUri,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          dpop_jkt: keyA.jkt,
        },
      });
      const code = new URL(asked.headers.Location ?? '').searchParams.get('code') ?? '';
      const bound = { code, verifier };
      expect(await redeem(client, bound, undefined)).toMatchObject(invalidGrant);
      expect(await redeem(client, bound, await tokenProof(keyB))).toMatchObject(invalidGrant);
      const redeemed = await redeem(client, bound, await tokenProof(keyA));
      expect(redeemed.body.token_type).toBe('DPoP');
      // A code without dpop_jkt is redeemed with or without a proof.
      expect((await redeem(client, issued, undefined)).body.token_type).toBe('Bearer');
      const malformed = await app.request('oauth2Authorize', {
        token: tenant.adminToken,
        query: {
          response_type: 'code',
          client_id: client.clientId,
          redirect_uri: client.redirectUri,
          code_challenge: challenge,
          dpop_jkt: 'x',
        },
      });
      expect(malformed.status).toBe(400);
    });

    it('keeps dpop_jkt through the browser sign-in (docs/api.md 11.5): the code is bound to that key', async () => {
      const jar = new CookieJar();
      const origin = new URL(deps.config.issuer).origin;
      // A client the user has not consented to yet: the consent page comes after the sign-in.
      const fresh = await createClient(app, tenant.adminToken, tenant.tenantId, { scope: 'orders:read' });
      const begun = await browserAuthorize(app, jar, fresh, { dpop_jkt: keyA.jkt });
      const signedIn = await postForm(
        app,
        jar,
        'hostedSignIn',
        { csrf: begun.csrf, username: 'admin', password: 'correct horse battery' },
        origin,
      );
      expect(signedIn.status).toBe(200);
      const allowed = await postForm(app, jar, 'hostedConsent', { csrf: begun.csrf, decision: 'allow' }, origin);
      const code = new URL(allowed.headers.Location ?? '').searchParams.get('code') ?? '';
      const issued = { code, verifier: begun.verifier };
      expect(await redeem(fresh, issued, await tokenProof(keyB))).toMatchObject(invalidGrant);
      expect((await redeem(fresh, issued, await tokenProof(keyA))).body.token_type).toBe('DPoP');
    });

    it('requires a proof of a client registered with dpop_bound_access_tokens (registration, PATCH, read)', async () => {
      const bound: TestClient = { ...client, clientId: `dpop-only-${Date.now()}`, clientSecret: newSecret() };
      const created = await app.request('createOAuth2Client', {
        token: tenant.adminToken,
        body: {
          client_id: bound.clientId,
          client_secret: bound.clientSecret,
          redirect_uri: bound.redirectUri,
          grant_types: 'client_credentials',
          scope: 'orders:read',
          tenant_id: tenant.tenantId,
          dpop_bound_access_tokens: true,
        },
      });
      expect([created.status, created.body.data.client.dpop_bound_access_tokens]).toEqual([201, true]);
      expect(await clientCredentials(undefined, bound)).toMatchObject(invalidProof);
      expect((await clientCredentials(await tokenProof(), bound)).body.token_type).toBe('DPoP');
      const path = { clientId: bound.clientId };
      const read = await app.request('readOAuth2Client', { token: tenant.adminToken, pathParameters: path });
      expect(read.body.data.client.dpop_bound_access_tokens).toBe(true);
      const patched = await app.request('updateOAuth2Client', {
        token: tenant.adminToken,
        pathParameters: path,
        body: { dpop_bound_access_tokens: false },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.data.client).not.toHaveProperty('dpop_bound_access_tokens');
      expect((await clientCredentials(undefined, bound)).body.token_type).toBe('Bearer');
      await app.request('updateOAuth2Client', { token: tenant.adminToken, pathParameters: path, body: { dpop_bound_access_tokens: true } });
      expect(await clientCredentials(undefined, bound)).toMatchObject(invalidProof);
    });

    it('asks for a server nonce where configured (use_dpop_nonce, DPoP-Nonce) and takes it for its time', async () => {
      const strict = await testDeps({ DPOP_REQUIRE_NONCE: 'true' });
      strict.clock.set(deps.clock.now());
      const strictApp = testApp(strict);
      const ask = (dpop: string) => {
        const request = tokenRequest(client, { grant_type: 'client_credentials' });
        return strictApp.request('oauth2Token', { ...request, headers: { ...request.headers, dpop } });
      };
      const asked = await ask(await tokenProof());
      const nonce = asked.headers['DPoP-Nonce'] ?? '';
      expect(asked).toMatchObject({ status: 400, body: { error: 'use_dpop_nonce', error_description: 'Use the DPoP nonce' } });
      expect(nonce).toMatch(/^n1\.\d+\.[A-Za-z0-9_-]{22}$/);
      const answered = await ask(await tokenProof(keyA, { nonce }));
      expect(answered.status).toBe(200);
      expect(answered.headers['DPoP-Nonce']).toBe(nonce);
      const forged = `${nonce.slice(0, -5)}${nonce.at(-5) === 'x' ? 'y' : 'x'}${nonce.slice(-4)}`;
      expect((await ask(await tokenProof(keyA, { nonce: forged }))).body.error).toBe('use_dpop_nonce');
      // Two steps later the nonce is stale: a new one is handed out.
      strict.clock.advance(600_000);
      const stale = await ask(await dpopProof(keyA, { htu: tokenUrl, iat: Math.floor(strict.clock.now() / 1000), nonce }));
      expect(stale.body, JSON.stringify(stale)).toMatchObject({ error: 'use_dpop_nonce' });
      expect(stale.headers['DPoP-Nonce']).not.toBe(nonce);
    });
  });

  describe('userinfo, revocation and the authorizer with a DPoP-bound token', () => {
    let bound: { access_token: string; refresh_token: string };
    beforeAll(async () => {
      bound = (await redeem(client, await authorizationCode(app, tenant.adminToken, client, { scope: 'openid' }), await tokenProof())).body;
    });
    const userinfoProof = (key: DpopKey, claims: Partial<Parameters<typeof dpopProof>[1]> = {}, method = 'GET') =>
      dpopProof(key, { htm: method, htu: userinfoUrl, iat: now(), accessToken: bound.access_token, ...claims });
    const userinfo = (authorization: string, dpop?: string, method = 'GET') =>
      app.request('userInfo', { method, headers: { authorization, ...(dpop === undefined ? {} : { dpop }) } });
    const refused = (message: string, challenge: string) => ({
      status: 401,
      headers: expect.objectContaining({ 'WWW-Authenticate': challenge }),
      body: failure(message),
    });

    it('answers `Authorization: DPoP` with a proof of the token’s key (GET and POST)', async () => {
      for (const method of ['GET', 'POST']) {
        const answer = await userinfo(`DPoP ${bound.access_token}`, await userinfoProof(keyA, {}, method), method);
        expect(answer).toMatchObject({ status: 200, body: { sub: tenant.adminId } });
      }
    });

    it.each<[string, () => Promise<[string, string | undefined]>, string, string]>([
      [
        'the bound token sent as Bearer (downgrade)',
        async () => [`Bearer ${bound.access_token}`, undefined],
        'Invalid token',
        `DPoP error="invalid_token", ${ALGS}`,
      ],
      [
        'the bound token as Bearer with a proof',
        async () => [`Bearer ${bound.access_token}`, await userinfoProof(keyA)],
        'Invalid token',
        `DPoP error="invalid_token", ${ALGS}`,
      ],
      ['no proof', async () => [`DPoP ${bound.access_token}`, undefined], 'Invalid DPoP proof', `DPoP error="invalid_dpop_proof", ${ALGS}`],
      [
        'a proof by another key than the token’s',
        async () => [`DPoP ${bound.access_token}`, await userinfoProof(keyB)],
        'Invalid token',
        `DPoP error="invalid_token", ${ALGS}`,
      ],
      [
        'a proof without ath',
        async () => [`DPoP ${bound.access_token}`, await userinfoProof(keyA, { accessToken: undefined })],
        'Invalid DPoP proof',
        `DPoP error="invalid_dpop_proof", ${ALGS}`,
      ],
      [
        'a proof with another ath',
        async () => [`DPoP ${bound.access_token}`, await userinfoProof(keyA, { accessToken: 'other' })],
        'Invalid DPoP proof',
        `DPoP error="invalid_dpop_proof", ${ALGS}`,
      ],
      [
        'a proof of the token endpoint',
        async () => [`DPoP ${bound.access_token}`, await userinfoProof(keyA, { htu: tokenUrl })],
        'Invalid DPoP proof',
        `DPoP error="invalid_dpop_proof", ${ALGS}`,
      ],
      [
        'a proof of another method',
        async () => [`DPoP ${bound.access_token}`, await userinfoProof(keyA, { htm: 'POST' })],
        'Invalid DPoP proof',
        `DPoP error="invalid_dpop_proof", ${ALGS}`,
      ],
      [
        'two DPoP headers',
        async () => [`DPoP ${bound.access_token}`, `${await userinfoProof(keyA)},${await userinfoProof(keyA)}`],
        'Invalid DPoP proof',
        `DPoP error="invalid_dpop_proof", ${ALGS}`,
      ],
      [
        'an unbound token sent as DPoP',
        async () => [`DPoP ${(await clientCredentials(undefined)).body.access_token}`, await userinfoProof(keyA)],
        'Invalid token',
        `DPoP error="invalid_token", ${ALGS}`,
      ],
    ])('refuses %s: 401 with the DPoP challenge', async (_, request, message, challenge) => {
      const [authorization, dpop] = await request();
      expect(await userinfo(authorization, dpop)).toMatchObject(refused(message, challenge));
    });

    it('refuses a replayed proof, and challenges a request without credentials with both schemes', async () => {
      const proof = await userinfoProof(keyA);
      expect((await userinfo(`DPoP ${bound.access_token}`, proof)).status).toBe(200);
      expect(await userinfo(`DPoP ${bound.access_token}`, proof)).toMatchObject(
        refused('Invalid DPoP proof', `DPoP error="invalid_dpop_proof", ${ALGS}`),
      );
      const none = await app.request('userInfo', {});
      expect([none.status, none.headers['WWW-Authenticate']]).toEqual([401, `Bearer, DPoP ${ALGS}`]);
    });

    it('is never taken by the session authorizer, whatever the scheme', async () => {
      expect(await app.identityOf(bound.access_token)).toBeNull();
      const me = await app.request('me', { headers: { authorization: `DPoP ${bound.access_token}`, dpop: await userinfoProof(keyA) } });
      expect(me.status).toBe(401);
    });

    it('revokes a DPoP-bound token like any other: its grant ends, introspection and userinfo then refuse it', async () => {
      const fresh = (await redeem(client, await authorizationCode(app, tenant.adminToken, client, { scope: 'openid' }), await tokenProof()))
        .body;
      expect((await app.request('revoke', tokenRequest(client, { token: fresh.access_token }))).status).toBe(200);
      expect((await app.request('introspect', tokenRequest(client, { token: fresh.access_token }))).body).toEqual({ active: false });
      const proof = await dpopProof(keyA, { htm: 'GET', htu: userinfoUrl, iat: now(), accessToken: fresh.access_token });
      expect((await userinfo(`DPoP ${fresh.access_token}`, proof)).status).toBe(401);
    });
  });

  it('publishes dpop_signing_alg_values_supported in both metadata documents', async () => {
    for (const route of ['metadata', 'openIdConfiguration'] as const) {
      const answer = await app.request(route, { method: 'GET' });
      expect(answer.body.dpop_signing_alg_values_supported).toEqual(['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA', 'Ed25519']);
    }
  });
});
