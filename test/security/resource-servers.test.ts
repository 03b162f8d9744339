import { randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { authorizationCode, newSecret, pkcePair, type TestClient, tokenRequest } from '../helpers/oauth';

/**
 * Subject confusion, RFC 8707 resource indicators, and introspection by resource
 * servers: docs/api.md 4.6, 4.7, 4.8, 4.14.
 */
const API = 'https://api.example.com';
const REPORTS = 'https://reports.example.com/v1';

interface Tenant {
  tenantId: string;
  adminToken: string;
  adminId: string;
}

async function tenantOf(app: App): Promise<Tenant> {
  const tenantId = uniqueTenant('rs');
  const admin = await registerAdmin(app, tenantId);
  return { tenantId, adminToken: admin.token, adminId: admin.user.id };
}

/** createOAuth2Client with the fields of this issue; the whole answer. */
function register(app: App, tenant: Tenant, extra: Record<string, unknown> = {}) {
  return app.request('createOAuth2Client', {
    token: tenant.adminToken,
    body: {
      client_id: `rs-${randomBytes(6).toString('hex')}`,
      client_secret: newSecret(),
      redirect_uri: 'https://app.example.com/callback',
      grant_types: 'authorization_code refresh_token client_credentials',
      scope: 'orders:read',
      tenant_id: tenant.tenantId,
      ...extra,
    },
  });
}

describe('client ids never name a user', () => {
  let app: App;
  let tenant: Tenant;
  beforeAll(async () => {
    app = testApp(await testDeps());
    tenant = await tenantOf(app);
  });

  it.each([
    ['a user id of the tenant', () => tenant.adminId],
    ['a UUID in capitals', () => randomUUID().toUpperCase()],
    ['any UUID', () => randomUUID()],
  ])('refuses a client id of UUID form (%s): 400 Reserved client_id', async (_, id) => {
    const response = await register(app, tenant, { client_id: id() });
    expect([response.status, response.body]).toEqual([400, failure('Reserved client_id')]);
  });

  it('takes a client id that only looks close to a UUID', async () => {
    expect((await register(app, tenant, { client_id: `app-${randomUUID()}` })).status).toBe(201);
  });
});

describe('resource indicators (RFC 8707) and the audience', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: Tenant;
  let rsClient: TestClient;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await tenantOf(app);
    const secret = newSecret();
    const response = await register(app, tenant, { client_secret: secret, resources: `${API} ${REPORTS} ${API}` });
    expect(response.status).toBe(201);
    expect(response.body.data.client).toEqual({
      client_id: response.body.data.client.client_id,
      tenant_id: tenant.tenantId,
      redirect_uris: ['https://app.example.com/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      scope: 'orders:read',
      token_endpoint_auth_method: 'client_secret_basic',
      resources: [API, REPORTS],
    });
    rsClient = {
      clientId: response.body.data.client.client_id,
      clientSecret: secret,
      redirectUri: 'https://app.example.com/callback',
      tenantId: tenant.tenantId,
    };
  });

  it.each(['ftp://api.example.com', 'https://api.example.com/#x', 'not a uri', 'http://api.example.com', 'https://user@api.example.com'])(
    'refuses the resource %j at registration: 400 Invalid resource',
    async (resource) => {
      const response = await register(app, tenant, { resources: resource });
      expect([response.status, response.body]).toEqual([400, failure('Invalid resource', 'INVALID_TARGET')]);
    },
  );

  it('client_credentials: aud is the resource asked for, else the client; another resource is invalid_target', async () => {
    const token = async (resource?: string) =>
      app.request('oauth2Token', tokenRequest(rsClient, { grant_type: 'client_credentials', resource }));
    const forApi = await token(API);
    expect(forApi.status).toBe(200);
    expect(decodeJwt(forApi.body.access_token)).toMatchObject({ aud: API, sub: rsClient.clientId, client_id: rsClient.clientId });
    expect(decodeJwt((await token()).body.access_token).aud).toBe(rsClient.clientId);
    const other = await token('https://evil.example.com');
    expect([other.status, other.body]).toEqual([400, { error: 'invalid_target', error_description: 'Invalid resource' }]);
    const json = await app.request('oauth2Token', {
      body: {
        grant_type: 'client_credentials',
        client_id: rsClient.clientId,
        client_secret: rsClient.clientSecret,
        resource: 'https://evil.example.com',
      },
    });
    expect([json.status, json.body]).toEqual([400, failure('Invalid resource', 'INVALID_TARGET')]);
    // Introspection tells the resource server whom the token is for.
    const introspected = await app.request('introspect', tokenRequest(rsClient, { token: forApi.body.access_token }));
    expect(introspected.body).toMatchObject({ active: true, aud: API });
  });

  it('authorization_code: the code is bound to the resource; tokens and refreshes keep it; another one is refused', async () => {
    const refused = await app.request('oauth2Authorize', {
      token: tenant.adminToken,
      query: {
        response_type: 'code',
        client_id: rsClient.clientId,
        redirect_uri: rsClient.redirectUri,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: 'https://evil.example.com',
      },
    });
    expect([refused.status, refused.body]).toEqual([400, failure('Invalid resource', 'INVALID_TARGET')]);

    const bound = async () => {
      const { verifier, challenge } = pkcePair();
      const response = await app.request('oauth2Authorize', {
        token: tenant.adminToken,
        query: {
          response_type: 'code',
          client_id: rsClient.clientId,
          redirect_uri: rsClient.redirectUri,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          resource: API,
        },
      });
      expect(response.status).toBe(302);
      return { code: new URL(response.headers.Location ?? '').searchParams.get('code') ?? '', verifier };
    };
    const redeem = (code: string, verifier: string, resource?: string) =>
      app.request(
        'oauth2Token',
        tokenRequest(rsClient, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: rsClient.redirectUri,
          code_verifier: verifier,
          resource,
        }),
      );

    const first = await bound();
    const mismatch = await redeem(first.code, first.verifier, REPORTS);
    expect([mismatch.status, mismatch.body]).toEqual([400, { error: 'invalid_target', error_description: 'Invalid resource' }]);
    // The refused resource did not use the code up.
    const issued = await redeem(first.code, first.verifier);
    expect(issued.status).toBe(200);
    expect(decodeJwt(issued.body.access_token)).toMatchObject({ aud: API, sub: tenant.adminId });

    const otherResource = await app.request(
      'oauth2Token',
      tokenRequest(rsClient, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, resource: REPORTS }),
    );
    expect(otherResource.body).toEqual({ error: 'invalid_target', error_description: 'Invalid resource' });
    // Refused before it was spent: the refresh token still works, for the bound resource.
    const refreshed = await app.request(
      'oauth2Token',
      tokenRequest(rsClient, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token }),
    );
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token).aud).toBe(API);

    // Without a resource at authorize, the token request may name one of the client's.
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, rsClient);
    const named = await redeem(code, verifier, REPORTS);
    expect(decodeJwt(named.body.access_token).aud).toBe(REPORTS);
  });

  it('uses the configured default audience when no resource is asked for', async () => {
    const configured = nearRealTime(await testDeps({ OAUTH_DEFAULT_AUDIENCE: 'https://platform.example.com' }));
    const response = await testApp(configured).request('oauth2Token', tokenRequest(rsClient, { grant_type: 'client_credentials' }));
    expect(decodeJwt(response.body.access_token).aud).toBe('https://platform.example.com');
  });
});

describe('introspection by resource servers', () => {
  let app: App;
  let tenant: Tenant;
  let issuer: TestClient;
  let resourceServer: TestClient;
  let plain: TestClient;
  let foreignServer: TestClient;
  let tokens: { access_token: string; refresh_token: string };
  let clientToken: string;

  const full = async (app: App, tenant: Tenant, extra: Record<string, unknown> = {}): Promise<TestClient> => {
    const secret = newSecret();
    const response = await register(app, tenant, { client_secret: secret, ...extra });
    expect(response.status).toBe(201);
    return {
      clientId: response.body.data.client.client_id,
      clientSecret: secret,
      redirectUri: 'https://app.example.com/callback',
      tenantId: tenant.tenantId,
    };
  };

  beforeAll(async () => {
    app = testApp(nearRealTime(await testDeps()));
    tenant = await tenantOf(app);
    issuer = await full(app, tenant);
    plain = await full(app, tenant);
    resourceServer = await full(app, tenant, { introspect_any: true, grant_types: 'client_credentials' });
    foreignServer = await full(app, await tenantOf(app), { introspect_any: true, grant_types: 'client_credentials' });
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, issuer);
    tokens = (
      await app.request(
        'oauth2Token',
        tokenRequest(issuer, { grant_type: 'authorization_code', code, redirect_uri: issuer.redirectUri, code_verifier: verifier }),
      )
    ).body;
    clientToken = (await app.request('oauth2Token', tokenRequest(issuer, { grant_type: 'client_credentials' }))).body.access_token;
  });

  const introspect = (who: TestClient, token: string) => app.request('introspect', tokenRequest(who, { token }));

  it('answers the permission in the client view', async () => {
    const response = await register(app, tenant, { introspect_any: true });
    expect(response.body.data.client).toMatchObject({ introspect_any: true });
    const without = await register(app, tenant);
    expect(without.body.data.client).not.toHaveProperty('introspect_any');
    const wrongType = await register(app, tenant, { introspect_any: 'yes' });
    expect([wrongType.status, wrongType.body]).toEqual([400, failure('introspect_any: Invalid input: expected boolean, received string')]);
  });

  it('lets a client with introspect_any see the access tokens of every client of its tenant', async () => {
    const user = await introspect(resourceServer, tokens.access_token);
    expect(user.body).toMatchObject({ active: true, client_id: issuer.clientId, sub: tenant.adminId, tenantId: tenant.tenantId });
    const stateless = await introspect(resourceServer, clientToken);
    expect(stateless.body).toMatchObject({ active: true, client_id: issuer.clientId, sub: issuer.clientId });
  });

  it('sees revocations: a revoked token is inactive to the resource server at once', async () => {
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, issuer);
    const own = (
      await app.request(
        'oauth2Token',
        tokenRequest(issuer, { grant_type: 'authorization_code', code, redirect_uri: issuer.redirectUri, code_verifier: verifier }),
      )
    ).body;
    expect((await introspect(resourceServer, own.access_token)).body.active).toBe(true);
    expect((await app.request('revoke', tokenRequest(issuer, { token: own.refresh_token }))).status).toBe(200);
    expect((await introspect(resourceServer, own.access_token)).body).toEqual({ active: false });
  });

  it('keeps other clients to their own tokens, other tenants out, and refresh tokens with their client', async () => {
    expect((await introspect(plain, tokens.access_token)).body).toEqual({ active: false });
    expect((await introspect(foreignServer, tokens.access_token)).body).toEqual({ active: false });
    expect((await introspect(foreignServer, clientToken)).body).toEqual({ active: false });
    expect((await introspect(resourceServer, tokens.refresh_token)).body).toEqual({ active: false });
  });

  it('does not let the resource server revoke another client token', async () => {
    expect((await app.request('revoke', tokenRequest(resourceServer, { token: tokens.access_token }))).status).toBe(200);
    expect((await introspect(issuer, tokens.access_token)).body).toMatchObject({ active: true });
    expect((await app.request('revoke', tokenRequest(resourceServer, { token: clientToken }))).status).toBe(200);
    expect((await introspect(issuer, clientToken)).body).toMatchObject({ active: true });
  });
});
