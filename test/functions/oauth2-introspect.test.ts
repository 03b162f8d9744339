import { randomBytes } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signOAuthAccessToken } from '../../lib/oauth/access-token';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import {
  authorizationCode,
  basic,
  createClient,
  form,
  type OAuthTenant,
  oauthTenant,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth';

describe('POST /oauth2/introspect', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let client: TestClient;
  let issued: { access_token: string; refresh_token: string };

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app);
    client = tenant.client;
    issued = await tokensFor(client);
  });

  async function tokensFor(who: TestClient) {
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, who);
    const response = await app.request(
      'oauth2Token',
      tokenRequest(who, { grant_type: 'authorization_code', code, redirect_uri: who.redirectUri, code_verifier: verifier }),
    );
    return response.body as { access_token: string; refresh_token: string };
  }

  const introspect = (who: TestClient, token: string | undefined, extra: Record<string, string> = {}) =>
    app.request('introspect', tokenRequest(who, { token, ...extra }));

  it('describes an active access token (RFC 7662 2.2), no-store', async () => {
    const response = await introspect(client, issued.access_token, { token_type_hint: 'access_token' });
    const now = Math.floor(deps.clock.now() / 1000);
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
      body: {
        active: true,
        client_id: client.clientId,
        scope: 'orders:read orders:write',
        sub: tenant.adminId,
        aud: client.clientId,
        iss: 'http://localhost:3000',
        iat: now,
        exp: now + 3600,
        jti: expect.any(String),
        token_type: 'Bearer',
        tenantId: tenant.tenantId,
      },
    });
  });

  it('describes an active refresh token, whatever the hint says, with HTTP Basic', async () => {
    const response = await app.request('introspect', {
      ...form({ token: issued.refresh_token, token_type_hint: 'access_token' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.clientId, client.clientSecret) },
    });
    const now = Math.floor(deps.clock.now() / 1000);
    expect(response.body).toEqual({
      active: true,
      client_id: client.clientId,
      scope: 'orders:read orders:write',
      sub: tenant.adminId,
      iss: 'http://localhost:3000',
      iat: now,
      exp: now + 30 * 24 * 3600,
      tenantId: tenant.tenantId,
    });
  });

  const clientCredentials = async (who: TestClient) =>
    (await app.request('oauth2Token', tokenRequest(who, { grant_type: 'client_credentials', scope: 'orders:read' }))).body
      .access_token as string;

  it('describes an active client_credentials token (stateless: no grant, no deny record)', async () => {
    const token = await clientCredentials(client);
    const now = Math.floor(deps.clock.now() / 1000);
    expect(await introspect(client, token)).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
      body: {
        active: true,
        client_id: client.clientId,
        scope: 'orders:read',
        sub: client.clientId,
        aud: client.clientId,
        iss: 'http://localhost:3000',
        iat: now,
        exp: now + 3600,
        jti: decodeJwt(token).jti,
        token_type: 'Bearer',
        tenantId: tenant.tenantId,
      },
    });
  });

  it('sees the end of a client_credentials token after its hour', async () => {
    const local = nearRealTime(await testDeps());
    const localApp = testApp(local);
    const fresh = (await localApp.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).body
      .access_token as string;
    local.clock.advance(3599);
    expect((await localApp.request('introspect', tokenRequest(client, { token: fresh }))).body.active).toBe(true);
    local.clock.advance(1);
    expect((await localApp.request('introspect', tokenRequest(client, { token: fresh }))).body).toEqual({ active: false });
  });

  it('still honours a client_credentials token of a stored grant (issued before tokens became stateless), and its revocation', async () => {
    const now = Math.floor(deps.clock.now() / 1000);
    const grantId = randomBytes(16).toString('base64url');
    await deps.store.oauthGrants.save({
      id: grantId,
      tenantId: tenant.tenantId,
      clientId: client.clientId,
      kind: 'client_credentials',
      subject: client.clientId,
      scope: ['orders:read'],
      createdAt: now,
      expiresAt: now + 3600,
    });
    const token = signOAuthAccessToken(deps.keySet, {
      iss: 'http://localhost:3000',
      client_id: client.clientId,
      sub: client.clientId,
      scope: 'orders:read',
      tenantId: tenant.tenantId,
      grant_id: grantId,
      iat: now,
      jti: randomBytes(16).toString('hex'),
    });
    expect((await introspect(client, token)).body).toMatchObject({ active: true, sub: client.clientId });
    await app.request('revoke', tokenRequest(client, { token }));
    expect((await introspect(client, token)).body).toEqual({ active: false });
    expect((await deps.store.oauthGrants.find(tenant.tenantId, grantId))?.revokedReason).toBe('revoked_by_client:access_token');
  });

  it.each<[string, () => Promise<{ who?: TestClient; token: string }>]>([
    [
      'a revoked client_credentials token',
      async () => {
        const token = await clientCredentials(client);
        await app.request('revoke', tokenRequest(client, { token }));
        return { token };
      },
    ],
    [
      'a client_credentials token of another client of the tenant',
      async () => ({ who: await createClient(app, tenant.adminToken, tenant.tenantId), token: await clientCredentials(client) }),
    ],
    [
      'a client_credentials token of a client of another tenant',
      async () => ({ who: (await oauthTenant(app)).client, token: await clientCredentials(client) }),
    ],
    [
      'a stateless token of ours whose subject is not the client',
      async () => {
        const now = Math.floor(deps.clock.now() / 1000);
        const token = signOAuthAccessToken(deps.keySet, {
          iss: 'http://localhost:3000',
          client_id: client.clientId,
          sub: tenant.adminId,
          scope: 'orders:read',
          tenantId: tenant.tenantId,
          iat: now,
          jti: randomBytes(16).toString('hex'),
        });
        return { token };
      },
    ],
    [
      'a revoked access token',
      async () => {
        const fresh = await tokensFor(client);
        await app.request('revoke', tokenRequest(client, { token: fresh.access_token }));
        return { token: fresh.access_token };
      },
    ],
    [
      'a retired refresh token',
      async () => {
        const fresh = await tokensFor(client);
        await app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: fresh.refresh_token }));
        return { token: fresh.refresh_token };
      },
    ],
    [
      'a token of another client of the tenant',
      async () => ({ who: await createClient(app, tenant.adminToken, tenant.tenantId), token: issued.access_token }),
    ],
    [
      'a refresh token of another client',
      async () => ({ who: await createClient(app, tenant.adminToken, tenant.tenantId), token: issued.refresh_token }),
    ],
    ['a token of a client of another tenant', async () => ({ who: (await oauthTenant(app)).client, token: issued.access_token })],
    ['a first-party session token', async () => ({ token: tenant.adminToken })],
    [
      'a token signed by someone else',
      async () => ({
        token: await new SignJWT({ client_id: client.clientId, scope: 'x', tenantId: tenant.tenantId, grant_id: 'g' })
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
          .setIssuer('http://localhost:3000')
          .setAudience(client.clientId)
          .setSubject('u')
          .setIssuedAt()
          .setExpirationTime('1h')
          .setJti('j')
          .sign(new Uint8Array(32)),
      }),
    ],
    ['garbage', async () => ({ token: 'not a token' })],
  ])('answers { active: false } and nothing more for %s', async (_, setup) => {
    const { who, token } = await setup();
    expect(await introspect(who ?? client, token)).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: { active: false },
    });
  });

  it('sees the end of an access token after its hour', async () => {
    const local = nearRealTime(await testDeps());
    const localApp = testApp(local);
    const { code, verifier } = await authorizationCode(localApp, tenant.adminToken, client);
    const fresh = (
      await localApp.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
      )
    ).body;
    local.clock.advance(3599);
    expect((await localApp.request('introspect', tokenRequest(client, { token: fresh.access_token }))).body.active).toBe(true);
    local.clock.advance(1);
    expect((await localApp.request('introspect', tokenRequest(client, { token: fresh.access_token }))).body).toEqual({
      active: false,
    });
  });

  it.each<[string, () => Parameters<typeof app.request>[1], number, Record<string, unknown>]>([
    [
      'no client authentication',
      () => form({ token: issued.access_token }),
      401,
      { error: 'invalid_client', error_description: 'Invalid client' },
    ],
    [
      'a wrong secret',
      () => form({ token: issued.access_token, client_id: client.clientId, client_secret: 'x'.repeat(43) }),
      401,
      { error: 'invalid_client', error_description: 'Invalid client' },
    ],
    ['no token', () => tokenRequest(client, {}), 400, { error: 'invalid_request', error_description: 'Missing token' }],
  ])('refuses %s in RFC format', async (_, request, status, body) => {
    expect(await app.request('introspect', request())).toEqual({
      status,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body,
    });
  });

  it('refuses a JSON request (RFC 7662 is form-encoded) in the envelope', async () => {
    const response = await app.request('introspect', {
      body: { token: issued.access_token, client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(response).toEqual({ status: 415, headers: expect.any(Object), body: failure('Unsupported content type') });
  });
});
