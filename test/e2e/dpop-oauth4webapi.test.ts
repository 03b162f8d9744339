import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { type ApiServer, startApiServer } from '../helpers/http-server';
import { newSecret } from '../helpers/oauth';
import { mountServerlessRoutes } from '../helpers/routes';

/**
 * DPoP (RFC 9449, docs/api.md 16.3) with a client we did not write: oauth4webapi's
 * `DPoP()` handle over real HTTP, against a server that requires nonces at the token
 * endpoint. The library's plain-HTTP switch for local testing is the only one turned on.
 */
describe('DPoP with oauth4webapi', () => {
  let server: ApiServer;
  let deps: TestDeps;
  let issuer: string;
  let userToken: string;
  let userId: string;
  const redirectUri = 'https://rp.example.com/callback';
  const rp = { id: `dpop-rp-${Date.now()}`, secret: newSecret() };
  const insecure = { [oauth.allowInsecureRequests]: true };

  beforeAll(async () => {
    server = await startApiServer();
    issuer = server.url;
    deps = await testDeps({ ISSUER: issuer, DPOP_REQUIRE_NONCE: 'true' });
    // oauth4webapi writes each proof's iat from its own clock.
    deps.clock.set(Date.now());
    mountServerlessRoutes(server, deps);
    const json = async (path: string, body: unknown, token?: string) => {
      const answer = await fetch(`${issuer}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return (await answer.json()) as { data: Record<string, any> };
    };
    const tenantId = uniqueTenant('dpop');
    const registered = await json('/auth/register', { username: 'dora', password: 'a long unusual passphrase', role: 'ADMIN', tenantId });
    userToken = registered.data.token;
    userId = registered.data.user.id;
    const created = await json(
      '/oauth2/clients',
      {
        client_id: rp.id,
        client_secret: rp.secret,
        redirect_uri: redirectUri,
        grant_types: 'authorization_code refresh_token',
        scope: 'openid orders:read',
        tenant_id: tenantId,
        dpop_bound_access_tokens: true,
      },
      userToken,
    );
    expect(created.data.client.dpop_bound_access_tokens).toBe(true);
  });

  afterAll(async () => server?.close());

  /** Runs a request, and once more when the server asks for a nonce (the handle keeps the one it was given). */
  async function withNonce<T>(attempt: () => Promise<T>): Promise<{ result: T; askedForNonce: boolean }> {
    try {
      return { result: await attempt(), askedForNonce: false };
    } catch (error) {
      if (!oauth.isDPoPNonceError(error)) throw error;
      return { result: await attempt(), askedForNonce: true };
    }
  }

  it('gets DPoP-bound tokens with dpop_jkt, handles the server nonce, refreshes with the same key, calls userinfo with DPoP', async () => {
    const issuerUrl = new URL(issuer);
    const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, insecure));
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
    const client: oauth.Client = { client_id: rp.id };
    const auth = oauth.ClientSecretPost(rp.secret);
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint ?? '');
    for (const [name, value] of Object.entries({
      client_id: rp.id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      dpop_jkt: await dpop.calculateThumbprint(),
    }))
      url.searchParams.set(name, value);
    // The browser's part: the signed-in user's session token gets the redirect (docs/api.md 4.6).
    const redirected = await fetch(url, { redirect: 'manual', headers: { authorization: `Bearer ${userToken}` } });
    expect(redirected.status).toBe(302);
    const params = oauth.validateAuthResponse(as, client, new URL(redirected.headers.get('location') ?? ''), state);

    const redeemed = await withNonce(async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, { ...insecure, DPoP: dpop }),
      ),
    );
    expect(redeemed.askedForNonce).toBe(true);
    const tokens = redeemed.result;
    expect(tokens.token_type).toBe('dpop');
    const jkt = await dpop.calculateThumbprint();
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });

    // The nonce is kept by the handle: the refresh needs no second round.
    const refreshed = await withNonce(async () =>
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token ?? '', { ...insecure, DPoP: dpop }),
      ),
    );
    expect(refreshed.askedForNonce).toBe(false);
    expect(refreshed.result.token_type).toBe('dpop');
    expect(decodeJwt(refreshed.result.access_token).cnf).toEqual({ jkt });

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      userId,
      await oauth.userInfoRequest(as, client, refreshed.result.access_token, { ...insecure, DPoP: dpop }),
    );
    expect(info).toEqual({ sub: userId });

    // The same token without its proof (oauth4webapi sends Bearer then): refused, RFC 9449 7.1.
    const downgraded = await oauth.userInfoRequest(as, client, refreshed.result.access_token, insecure);
    expect(downgraded.status).toBe(401);
    expect(downgraded.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
  });
});
