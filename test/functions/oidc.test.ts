import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DPOP_SIGNING_ALGORITHMS } from '../../lib/oauth/dpop';
import { type App, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateTotp } from '../helpers/mfa';
import { authorizationCode, createClient, type OAuthTenant, oauthTenant, pkcePair, type TestClient, tokenRequest } from '../helpers/oauth';

/** docs/api.md 11.1-11.4 through the functions: the ID token, nonce, userinfo, discovery, RS256 clients. */
describe('OpenID Connect', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let client: TestClient;
  let rsaClient: TestClient;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app, { scope: 'openid profile email orders:read' });
    client = tenant.client;
    rsaClient = await createClient(app, tenant.adminToken, tenant.tenantId, { scope: 'openid profile', idTokenAlg: 'RS256' });
  });

  async function tokensFor(who: TestClient, options: { scope?: string; nonce?: string; userToken?: string } = {}) {
    const { code, verifier } = await authorizationCode(app, options.userToken ?? tenant.adminToken, who, options);
    const answer = await app.request(
      'oauth2Token',
      tokenRequest(who, { grant_type: 'authorization_code', code, redirect_uri: who.redirectUri, code_verifier: verifier }),
    );
    expect(answer.status).toBe(200);
    return answer.body as { access_token: string; id_token?: string; refresh_token: string; scope: string };
  }

  describe('GET /oauth2/authorize with nonce (docs/api.md 11.1)', () => {
    it.each([
      ['a control character', 'abc\u0000def'],
      ['a line break', 'abc\ndef'],
      ['a character outside ASCII', 'nonce-é'],
      ['an empty nonce', ''],
      ['513 characters', 'n'.repeat(513)],
    ])('answers 400 Invalid nonce for %s, and issues no code', async (_, nonce) => {
      const { challenge } = pkcePair();
      const answer = await app.request('oauth2Authorize', {
        token: tenant.adminToken,
        query: {
          response_type: 'code',
          client_id: client.clientId,
          redirect_uri: client.redirectUri,
          scope: 'openid',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          nonce,
        },
      });
      expect([answer.status, answer.body, answer.headers.Location]).toEqual([400, failure('Invalid nonce'), undefined]);
    });

    it('takes 512 printable characters, spaces included, and gives them back verbatim', async () => {
      const nonce = `a "quoted" <nonce> & ${'x'.repeat(491)}`;
      expect(nonce).toHaveLength(512);
      const tokens = await tokensFor(client, { scope: 'openid', nonce });
      expect(decodeJwt(tokens.id_token ?? '').nonce).toBe(nonce);
    });
  });

  describe('the ID token of POST /oauth2/token (docs/api.md 11.1)', () => {
    it('comes with scope openid, signed ES256, with every claim of the rules and nothing else', async () => {
      const tokens = await tokensFor(client, { scope: 'openid profile email', nonce: 'n-0S6_WzA2Mj' });
      const idToken = tokens.id_token ?? '';
      expect(decodeProtectedHeader(idToken)).toEqual({ alg: 'ES256', kid: 'test-key-1', typ: 'JWT' });
      const { payload } = await jwtVerify(idToken, deps.keySet.publicKeyFor, {
        issuer: deps.config.issuer,
        audience: client.clientId,
        algorithms: ['ES256'],
        currentDate: new Date(deps.clock.now()),
      });
      const identity = await app.identityOf(tenant.adminToken);
      const iat = Math.floor(deps.clock.now() / 1000);
      expect(payload).toEqual({
        iss: deps.config.issuer,
        sub: tenant.adminId,
        aud: client.clientId,
        iat,
        exp: iat + 3600,
        auth_time: identity?.authTime,
        nonce: 'n-0S6_WzA2Mj',
        amr: ['pwd'],
        sid: identity?.sessionId,
        at_hash: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        preferred_username: 'admin',
        tenantId: tenant.tenantId,
        shopId: identity?.shopId,
        role: 'ADMIN',
      });
    });

    it('is not there without openid, and the answer is as before', async () => {
      const tokens = await tokensFor(client, { scope: 'orders:read' });
      expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    });

    it('is in the envelope for a JSON token request too', async () => {
      const { code, verifier } = await authorizationCode(app, tenant.adminToken, client, { scope: 'openid' });
      const answer = await app.request('oauth2Token', {
        body: {
          grant_type: 'authorization_code',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code,
          redirect_uri: client.redirectUri,
          code_verifier: verifier,
        },
      });
      expect(answer.body).toMatchObject({ success: true, data: { scope: 'openid', id_token: expect.any(String) } });
    });

    it('is signed RS256 for a client registered with id_token_signed_response_alg RS256, which its read answers', async () => {
      const tokens = await tokensFor(rsaClient, { scope: 'openid' });
      expect(decodeProtectedHeader(tokens.id_token ?? '')).toEqual({ alg: 'RS256', kid: 'test-rsa-1', typ: 'JWT' });
      await jwtVerify(tokens.id_token ?? '', deps.keySet.publicKeyFor, {
        audience: rsaClient.clientId,
        algorithms: ['RS256'],
        currentDate: new Date(deps.clock.now()),
      });
      const read = await app.request('readOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId: rsaClient.clientId } });
      expect(read.body.data.client).toMatchObject({ client_id: rsaClient.clientId, id_token_signed_response_alg: 'RS256' });
    });

    it('says amr pwd, otp and mfa for a session signed in with a second factor', async () => {
      const staff = await registerStaff(app, tenant.adminToken, {
        username: 'mfa-user',
        password: 'another long passphrase',
        role: 'OPERATOR',
        tenantId: tenant.tenantId,
      });
      const { code } = await activateTotp(app, deps, staff.token);
      const login = await app.request('login', {
        body: { username: 'mfa-user', password: 'another long passphrase', tenantId: tenant.tenantId, mfaCode: code() },
      });
      expect(login.status).toBe(200);
      const tokens = await tokensFor(client, { scope: 'openid', userToken: login.body.data.token });
      expect(decodeJwt(tokens.id_token ?? '').amr).toEqual(['pwd', 'otp', 'mfa']);
    });

    it('is given again on refresh, with the original auth_time, amr and sid and no nonce', async () => {
      const first = await tokensFor(client, { scope: 'openid email', nonce: 'first' });
      deps.clock.advance(60);
      const refreshed = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: first.refresh_token }),
      );
      const before = decodeJwt(first.id_token ?? '');
      const after = decodeJwt(refreshed.body.id_token);
      expect(after).toEqual({
        ...before,
        iat: (before.iat ?? 0) + 60,
        exp: (before.exp ?? 0) + 60,
        at_hash: expect.any(String),
        nonce: undefined,
      });
      expect(after).not.toHaveProperty('nonce');
      expect(after.at_hash).not.toBe(before.at_hash);
    });
  });

  describe('GET|POST /oauth2/userinfo (docs/api.md 11.2)', () => {
    it('answers the claims of the token’s scope, by GET and by POST, never cached', async () => {
      const tokens = await tokensFor(client, { scope: 'openid profile' });
      for (const method of ['GET', 'POST']) {
        const answer = await app.request('userInfo', { method, headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(answer).toMatchObject({
          status: 200,
          headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
          body: { sub: tenant.adminId, preferred_username: 'admin', tenantId: tenant.tenantId, shopId: expect.any(String), role: 'ADMIN' },
        });
        expect(Object.keys(answer.body).sort()).toEqual(['preferred_username', 'role', 'shopId', 'sub', 'tenantId']);
      }
    });

    it.each<[string, () => Promise<Record<string, string>>, number, string, string]>([
      // Both schemes this endpoint takes (docs/api.md 16.3, RFC 9449 7.1).
      ['no Authorization header', async () => ({}), 401, 'Unauthorized', `Bearer, DPoP algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`],
      ['a Basic header', async () => ({ authorization: 'Basic YTpi' }), 401, 'Invalid token', 'Bearer error="invalid_token"'],
      [
        'a token that is no JWT',
        async () => ({ authorization: 'Bearer not-a-token' }),
        401,
        'Invalid token',
        'Bearer error="invalid_token"',
      ],
      [
        'a session access token',
        async () => ({ authorization: `Bearer ${tenant.adminToken}` }),
        401,
        'Invalid token',
        'Bearer error="invalid_token"',
      ],
      [
        'a client_credentials token',
        async () => {
          const answer = await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials', scope: 'openid' }));
          return { authorization: `Bearer ${answer.body.access_token}` };
        },
        401,
        'Invalid token',
        'Bearer error="invalid_token"',
      ],
      [
        'a token of a revoked grant',
        async () => {
          const tokens = await tokensFor(client, { scope: 'openid' });
          await app.request('revoke', tokenRequest(client, { token: tokens.refresh_token }));
          return { authorization: `Bearer ${tokens.access_token}` };
        },
        401,
        'Invalid token',
        'Bearer error="invalid_token"',
      ],
      [
        'a token without openid',
        async () => ({ authorization: `Bearer ${(await tokensFor(client, { scope: 'orders:read' })).access_token}` }),
        403,
        'Insufficient scope',
        'Bearer error="insufficient_scope", scope="openid"',
      ],
    ])('answers %s with the RFC 6750 challenge', async (_, headers, status, message, challenge) => {
      const answer = await app.request('userInfo', { headers: await headers() });
      expect([answer.status, answer.headers['WWW-Authenticate'], answer.body]).toEqual([status, challenge, failure(message)]);
    });

    it('refuses an expired access token', async () => {
      const tokens = await tokensFor(client, { scope: 'openid' });
      deps.clock.advance(3601);
      const answer = await app.request('userInfo', { headers: { authorization: `Bearer ${tokens.access_token}` } });
      nearRealTime(deps);
      expect([answer.status, answer.body]).toEqual([401, failure('Invalid token')]);
    });
  });

  describe('GET /.well-known/openid-configuration (docs/api.md 11.3)', () => {
    it('answers the provider metadata, cacheable, with the RFC 8414 document unchanged beside it', async () => {
      const issuer = deps.config.issuer;
      const answer = await app.request('openIdConfiguration');
      const rfc8414 = await app.request('metadata');
      expect(answer.headers['Cache-Control']).toBe('public, max-age=3600');
      expect(answer.body).toEqual({
        ...rfc8414.body,
        userinfo_endpoint: `${issuer}/oauth2/userinfo`,
        end_session_endpoint: `${issuer}/oauth2/logout`,
        scopes_supported: ['openid', 'profile', 'email'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256', 'RS256'],
        claims_supported: [
          'iss',
          'sub',
          'aud',
          'exp',
          'iat',
          'auth_time',
          'nonce',
          'amr',
          'sid',
          'at_hash',
          'preferred_username',
          'tenantId',
          'shopId',
          'role',
          'email',
          'email_verified',
        ],
        claims_parameter_supported: false,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        backchannel_logout_supported: true,
        backchannel_logout_session_supported: true,
      });
      expect(rfc8414.body).not.toHaveProperty('end_session_endpoint');
      expect(rfc8414.body).not.toHaveProperty('userinfo_endpoint');
    });
  });

  describe('client registration (docs/api.md 11.4)', () => {
    it('refuses an id_token_signed_response_alg other than ES256 and RS256', async () => {
      for (const alg of ['none', 'HS256', 'PS256', 'rs256']) {
        const answer = await app.request('createOAuth2Client', {
          token: tenant.adminToken,
          body: {
            client_id: `alg-${alg}`,
            client_secret: 'k8Yz3Qw9Lm2Rt6Vb1Nc5Xp7Hs4Jd0Fg8',
            redirect_uri: 'https://app.example.com/cb',
            grant_types: 'authorization_code',
            scope: 'openid',
            tenant_id: tenant.tenantId,
            id_token_signed_response_alg: alg,
          },
        });
        expect([answer.status, answer.body.code]).toEqual([400, 'VALIDATION_FAILED']);
      }
    });
  });
});
