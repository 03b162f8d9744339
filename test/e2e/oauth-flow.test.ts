import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { type ApiServer, startApiServer } from '../helpers/http-server';
import { newSecret } from '../helpers/oauth';
import { mountServerlessRoutes } from '../helpers/routes';

/**
 * The whole authorization code flow driven by openid-client (a certified third-party
 * client) over real HTTP: discovery, PKCE, authorization with a signed-in user, code
 * exchange, verification of the access token against the JWKS, refresh, introspection,
 * revocation, and client_credentials.
 */
describe('OAuth 2.0 with openid-client', () => {
  let server: ApiServer;
  let deps: TestDeps;
  let issuer: string;
  let userToken: string;
  let userId: string;
  const clientId = `e2e-${Date.now()}`;
  const clientSecret = newSecret();
  const redirectUri = 'https://client.example.com/callback';

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

  const discover = (auth: client.ClientAuth) =>
    client.discovery(new URL(issuer), clientId, clientSecret, auth, { execute: [client.allowInsecureRequests], algorithm: 'oauth2' });

  beforeAll(async () => {
    server = await startApiServer();
    issuer = server.url;
    deps = await testDeps({ ISSUER: issuer });
    deps.clock.set(Date.now());
    mountServerlessRoutes(server, deps);
    const tenantId = uniqueTenant('e2e');
    const registered = await http('POST', '/auth/register', {
      json: { username: 'alice', password: 'a long unusual passphrase', role: 'ADMIN', tenantId },
    });
    userToken = registered.body.data.token;
    userId = registered.body.data.user.id;
    const created = await http('POST', '/oauth2/clients', {
      token: userToken,
      json: {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uri: redirectUri,
        grant_types: 'authorization_code refresh_token client_credentials',
        scope: 'orders:read orders:write',
        tenant_id: tenantId,
      },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => server?.close());

  it('runs discovery, authorization with PKCE, code exchange, JWKS verification, refresh, introspection and revocation', async () => {
    const config = await discover(client.ClientSecretBasic(clientSecret));
    const metadata = config.serverMetadata();
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth2/authorize`,
      token_endpoint: `${issuer}/oauth2/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      code_challenge_methods_supported: ['S256'],
    });

    // The client sends the user's browser to the authorization endpoint with PKCE.
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'orders:read',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    // The browser carries the signed-in user's session token; the answer redirects back.
    const authorized = await fetch(authorizationUrl, { redirect: 'manual', headers: { authorization: `Bearer ${userToken}` } });
    expect(authorized.status).toBe(302);
    const callback = new URL(authorized.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

    // openid-client checks state and iss (RFC 9207) and redeems the code with the verifier.
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'orders:read' });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    // A resource server verifies the access token against the published keys.
    const keys = createRemoteJWKSet(new URL(metadata.jwks_uri ?? ''));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, keys, {
      issuer,
      audience: clientId,
      typ: 'at+jwt',
      algorithms: ['ES256'],
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: userId, client_id: clientId, scope: 'orders:read', exp: (payload.iat ?? 0) + 3600 });

    // The session authorizer never takes it for a session token.
    expect(await http('GET', '/auth/me', { token: tokens.access_token })).toMatchObject({
      status: 401,
      body: failure('Unauthorized'),
    });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '');
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await jwtVerify(refreshed.access_token, keys, { issuer, audience: clientId, typ: 'at+jwt' });

    expect(await client.tokenIntrospection(config, refreshed.access_token)).toMatchObject({
      active: true,
      client_id: clientId,
      sub: userId,
      scope: 'orders:read',
      token_type: 'Bearer',
    });
    expect(await client.tokenIntrospection(config, tokens.refresh_token ?? '')).toEqual({ active: false });

    await client.tokenRevocation(config, refreshed.refresh_token ?? '');
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toEqual({ active: false });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token ?? '')).rejects.toMatchObject({
      error: 'invalid_grant',
      status: 400,
    });
  });

  it('issues a client_credentials token to a client authenticating in the body', async () => {
    const config = await discover(client.ClientSecretPost(clientSecret));
    const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:write' });
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'orders:write' });
    expect(tokens.refresh_token).toBeUndefined();
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), {
      issuer,
      audience: clientId,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: clientId, client_id: clientId });
  });

  it('reports a wrong client secret as invalid_client (401) to openid-client', async () => {
    const config = await client.discovery(
      new URL(issuer),
      clientId,
      undefined,
      client.ClientSecretBasic('wrong-secret-wrong-secret-wrong-secret'),
      {
        execute: [client.allowInsecureRequests],
        algorithm: 'oauth2',
      },
    );
    const error = await client.clientCredentialsGrant(config).catch((caught: unknown) => caught);
    // RFC 6749 5.2: 401 with a Basic challenge, since the client used Basic.
    expect(error).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    expect(error).toMatchObject({ status: 401, cause: [{ scheme: 'basic', parameters: { realm: 'oauth2', charset: 'UTF-8' } }] });
    expect(await (error as client.WWWAuthenticateChallengeError).response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'Invalid client',
    });
  });
});
