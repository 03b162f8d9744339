import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { type ApiServer, startApiServer } from '../helpers/http-server';
import { newSecret } from '../helpers/oauth';
import { mountServerlessRoutes } from '../helpers/routes';

/**
 * OpenID Connect with relying parties we did not write (docs/api.md 11): openid-client
 * in its default OIDC mode (discovery from the issuer URL, `authorizationCodeGrant` with
 * PKCE and `expectedNonce`, `fetchUserInfo`) and oauth4webapi, over real HTTP. Each test
 * is named after the OpenID conformance suite's OP module it mirrors. The authorization
 * step is the Bearer path of docs/api.md 4.6: the signed-in user's session token gets the
 * redirect with the code, and that callback URL goes to the library as a browser would
 * bring it.
 *
 * The local issuer is http://127.0.0.1 (no TLS here), so the libraries get their
 * documented local-testing switch for plain HTTP (`allowInsecureRequests`); no check of
 * the ID token, state, nonce, iss or PKCE is turned off.
 */
describe('OpenID Connect with openid-client and oauth4webapi', () => {
  let server: ApiServer;
  let deps: TestDeps;
  let issuer: string;
  let tenantId: string;
  let userToken: string;
  let userId: string;
  const redirectUri = 'https://rp.example.com/callback';
  const postLogoutRedirectUri = 'https://rp.example.com/signed-out';
  const es256 = { id: `rp-es-${Date.now()}`, secret: newSecret() };
  const rs256 = { id: `rp-rs-${Date.now()}`, secret: newSecret() };

  const http = async (method: string, path: string, { token, json }: { token?: string; json?: unknown } = {}) => {
    const response = await fetch(`${issuer}${path}`, {
      method,
      redirect: 'manual',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json ? { 'content-type': 'application/json' } : {}) },
      ...(json ? { body: JSON.stringify(json) } : {}),
    });
    // Untyped like the other test helpers' bodies: the assertions check them.
    const body: any = response.status === 302 ? undefined : await response.json();
    return { status: response.status, headers: response.headers, body };
  };

  /** openid-client's default (OIDC) discovery from the issuer URL alone. */
  const discover = (rp: { id: string; secret: string }, metadata: Partial<client.ClientMetadata> = {}) =>
    client.discovery(new URL(issuer), rp.id, { client_secret: rp.secret, ...metadata }, client.ClientSecretBasic(rp.secret), {
      execute: [client.allowInsecureRequests],
    });

  /**
   * The browser's part: the authorization URL the library built, followed with the user's
   * session token (docs/api.md 4.6); the redirect back to the client is the callback URL.
   */
  async function authorize(url: URL, token = userToken): Promise<URL> {
    const answer = await fetch(url, { redirect: 'manual', headers: { authorization: `Bearer ${token}` } });
    if (answer.status !== 302) throw new Error(`authorize: ${answer.status} ${await answer.text()}`);
    return new URL(answer.headers.get('location') ?? '');
  }

  /** A whole code flow with openid-client: PKCE, state, nonce (unless `nonce` is false). */
  async function signIn(config: client.Configuration, scope: string, { nonce = true }: { nonce?: boolean } = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const expectedNonce = nonce ? client.randomNonce() : undefined;
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      state,
      ...(expectedNonce ? { nonce: expectedNonce } : {}),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await authorize(url);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      ...(expectedNonce ? { expectedNonce } : {}),
    });
    return { tokens, callback, verifier, state, expectedNonce };
  }

  beforeAll(async () => {
    server = await startApiServer();
    issuer = server.url;
    deps = await testDeps({ ISSUER: issuer });
    // openid-client checks iat and exp against its own clock.
    deps.clock.set(Date.now());
    mountServerlessRoutes(server, deps);
    tenantId = uniqueTenant('oidc');
    const registered = await http('POST', '/auth/register', {
      json: { username: 'olivia', password: 'a long unusual passphrase', role: 'ADMIN', tenantId, email: 'olivia@example.com' },
    });
    userToken = registered.body.data.token;
    userId = registered.body.data.user.id;
    for (const [rp, alg] of [
      [es256, undefined],
      [rs256, 'RS256'],
    ] as const) {
      const created = await http('POST', '/oauth2/clients', {
        token: userToken,
        json: {
          client_id: rp.id,
          client_secret: rp.secret,
          redirect_uri: redirectUri,
          grant_types: 'authorization_code refresh_token',
          scope: 'openid profile email orders:read',
          tenant_id: tenantId,
          post_logout_redirect_uris: postLogoutRedirectUri,
          ...(alg ? { id_token_signed_response_alg: alg } : {}),
        },
      });
      expect(created.status).toBe(201);
    }
  });

  afterAll(async () => server?.close());

  it('oidcc-server: discovery, code flow with PKCE and nonce, a valid ID token (ES256)', async () => {
    const config = await discover(es256);
    expect(config.serverMetadata()).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth2/authorize`,
      token_endpoint: `${issuer}/oauth2/token`,
      userinfo_endpoint: `${issuer}/oauth2/userinfo`,
      end_session_endpoint: `${issuer}/oauth2/logout`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
      subject_types_supported: ['public'],
      response_types_supported: ['code'],
    });
    const { tokens, expectedNonce } = await signIn(config, 'openid');
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'openid', id_token: expect.any(String) });
    expect(decodeProtectedHeader(tokens.id_token ?? '')).toEqual({ alg: 'ES256', kid: 'test-key-1', typ: 'JWT' });
    const claims = tokens.claims();
    expect(claims).toEqual({
      iss: issuer,
      sub: userId,
      aud: es256.id,
      iat: expect.any(Number),
      exp: (claims?.iat ?? 0) + 3600,
      auth_time: expect.any(Number),
      nonce: expectedNonce,
      amr: ['pwd'],
      sid: expect.any(String),
      at_hash: expect.any(String),
    });
  });

  it('oidcc-rp-initiated-logout: buildEndSessionUrl from the discovered end_session_endpoint sends the browser back with state', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'openid');
    const url = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token ?? '',
      post_logout_redirect_uri: postLogoutRedirectUri,
      state: 'logout-state',
    });
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/oauth2/logout`);
    // The browser's navigation (no browser session here: the Bearer door signed in): back to the RP.
    const answer = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(`${postLogoutRedirectUri}?state=logout-state`);
    // An RS256 client's ID token is a hint as good; another client's URI is not its own.
    const rs = await discover(rs256, { id_token_signed_response_alg: 'RS256' });
    const rsTokens = (await signIn(rs, 'openid')).tokens;
    const rsUrl = client.buildEndSessionUrl(rs, {
      id_token_hint: rsTokens.id_token ?? '',
      post_logout_redirect_uri: postLogoutRedirectUri,
    });
    expect((await fetch(rsUrl, { redirect: 'manual' })).status).toBe(302);
    const wrong = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token ?? '', post_logout_redirect_uri: redirectUri });
    const refused = await fetch(wrong, { redirect: 'manual' });
    expect([refused.status, refused.headers.get('location')]).toEqual([400, null]);
    expect(await refused.text()).toContain('Invalid post_logout_redirect_uri');
  });

  it('oidcc-idtoken-rs256: a client registered with id_token_signed_response_alg RS256 gets RS256 ID tokens', async () => {
    const config = await discover(rs256, { id_token_signed_response_alg: 'RS256' });
    const { tokens } = await signIn(config, 'openid');
    expect(decodeProtectedHeader(tokens.id_token ?? '')).toEqual({ alg: 'RS256', kid: 'test-rsa-1', typ: 'JWT' });
    expect(tokens.claims()).toMatchObject({ iss: issuer, sub: userId, aud: rs256.id });
    // The access token stays ES256: resource servers verify it as before.
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
  });

  it('oidcc-idtoken-signature: the ID token verifies against the published JWKS, and not once altered', async () => {
    for (const [rp, alg] of [
      [es256, 'ES256'],
      [rs256, 'RS256'],
    ] as const) {
      const config = await discover(rp, { id_token_signed_response_alg: alg });
      const { tokens } = await signIn(config, 'openid');
      const keys = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
      const idToken = tokens.id_token ?? '';
      const { protectedHeader } = await jwtVerify(idToken, keys, { issuer, audience: rp.id, algorithms: [alg] });
      expect(protectedHeader.alg).toBe(alg);
      const [header, payload, signature = ''] = idToken.split('.');
      const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      await expect(jwtVerify(`${header}.${payload}.${flipped}`, keys, { issuer, audience: rp.id })).rejects.toThrow(
        'signature verification failed',
      );
    }
  });

  it('oidcc-codereuse: a code used twice is refused, and the tokens issued from it stop working', async () => {
    const config = await discover(es256);
    const { tokens, callback, verifier, state, expectedNonce } = await signIn(config, 'openid');
    expect(await client.fetchUserInfo(config, tokens.access_token, userId)).toEqual({ sub: userId });
    const again = await client
      .authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce })
      .catch((error: unknown) => error);
    expect(again).toMatchObject({ error: 'invalid_grant', status: 400 });
    const refused = await client.fetchUserInfo(config, tokens.access_token, userId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    expect(refused).toMatchObject({ status: 401, cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }] });
  });

  it('oidcc-userinfo-get: userinfo by GET with the access token answers the subject', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'openid');
    expect(await client.fetchUserInfo(config, tokens.access_token, userId)).toEqual({ sub: userId });
  });

  it('oidcc-userinfo-post-header: userinfo by POST with the token in the Authorization header', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'openid profile');
    const answer = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${issuer}/oauth2/userinfo`), 'POST');
    expect([answer.status, answer.headers.get('cache-control'), await answer.json()]).toEqual([
      200,
      'no-store',
      { sub: userId, preferred_username: 'olivia', tenantId, shopId: expect.any(String), role: 'ADMIN' },
    ]);
  });

  it('oidcc-nonce-invalid: an ID token whose nonce is not the one sent is refused by the relying party', async () => {
    const config = await discover(es256);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      nonce: client.randomNonce(),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await authorize(url);
    await expect(
      client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedNonce: client.randomNonce() }),
    ).rejects.toMatchObject({ code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: { cause: { claim: 'nonce' } } });
  });

  it('oidcc-scope-profile: profile claims in the ID token and at userinfo', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'openid profile');
    const profile = { preferred_username: 'olivia', tenantId, shopId: expect.any(String), role: 'ADMIN' };
    expect(tokens.claims()).toMatchObject(profile);
    expect(tokens.claims()).not.toHaveProperty('email');
    expect(await client.fetchUserInfo(config, tokens.access_token, userId)).toEqual({ sub: userId, ...profile });
  });

  it('oidcc-scope-email: email claims in the ID token and at userinfo (no address is verified yet)', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'openid email');
    const email = { email: 'olivia@example.com', email_verified: false };
    expect(tokens.claims()).toMatchObject(email);
    expect(tokens.claims()).not.toHaveProperty('preferred_username');
    expect(await client.fetchUserInfo(config, tokens.access_token, userId)).toEqual({ sub: userId, ...email });
  });

  it('oidcc-refresh-token: a refresh gives a new ID token of the same subject, audience and authentication', async () => {
    const config = await discover(rs256, { id_token_signed_response_alg: 'RS256' });
    const { tokens } = await signIn(config, 'openid profile');
    const first = tokens.claims();
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '');
    const next = refreshed.claims();
    expect(next).toMatchObject({ iss: issuer, sub: userId, aud: rs256.id, auth_time: first?.auth_time, sid: first?.sid, amr: ['pwd'] });
    // OIDC Core 12.2: no nonce on a refreshed ID token.
    expect(next).not.toHaveProperty('nonce');
    expect(decodeProtectedHeader(refreshed.id_token ?? '').alg).toBe('RS256');
    // A narrower scope without openid gets no ID token.
    const narrowed = await client.refreshTokenGrant(config, refreshed.refresh_token ?? '', { scope: 'profile' });
    expect([narrowed.scope, narrowed.id_token]).toEqual(['profile', undefined]);
  });

  it('oidcc-ensure-request-without-nonce-succeeds-for-code-flow: no nonce sent, none in the ID token', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'openid', { nonce: false });
    expect(tokens.claims()).toMatchObject({ sub: userId });
    expect(tokens.claims()).not.toHaveProperty('nonce');
  });

  it('oidcc-userinfo-get with a token without openid: 403 insufficient_scope', async () => {
    const config = await discover(es256);
    const { tokens } = await signIn(config, 'orders:read', { nonce: false });
    expect(tokens.id_token).toBeUndefined();
    const refused = await client.fetchUserInfo(config, tokens.access_token, userId).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 403,
      cause: [{ scheme: 'bearer', parameters: { error: 'insufficient_scope', scope: 'openid' } }],
    });
    expect(await (refused as client.WWWAuthenticateChallengeError).response.json()).toEqual(failure('Insufficient scope'));
  });

  it('oauth4webapi: discovery, code flow with nonce and PKCE, ID token and userinfo checks (oidcc-server)', async () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuerUrl = new URL(issuer);
    const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, insecure));
    const rp: oauth.Client = { client_id: rs256.id, id_token_signed_response_alg: 'RS256' };
    const auth = oauth.ClientSecretPost(rs256.secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint ?? '');
    for (const [name, value] of Object.entries({
      client_id: rp.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(name, value);
    const params = oauth.validateAuthResponse(as, rp, await authorize(url), state);
    const response = await oauth.authorizationCodeGrantRequest(as, rp, auth, params, redirectUri, verifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(result);
    expect(claims).toMatchObject({ iss: issuer, sub: userId, aud: rs256.id, nonce, email: 'olivia@example.com', email_verified: false });
    const info = await oauth.processUserInfoResponse(
      as,
      rp,
      claims?.sub ?? '',
      await oauth.userInfoRequest(as, rp, result.access_token, insecure),
    );
    expect(info).toEqual({ sub: userId, email: 'olivia@example.com', email_verified: false });
    // The at_hash binds the ID token to the access token it came with (OIDC Core 3.1.3.8, 3.2.2.9).
    const hash = createHash('sha256').update(result.access_token).digest().subarray(0, 16).toString('base64url');
    expect(decodeJwt(result.id_token ?? '').at_hash).toBe(hash);
  });
});
