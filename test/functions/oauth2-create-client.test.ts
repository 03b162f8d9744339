import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/store/keys';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { newSecret } from '../helpers/oauth';

describe('POST /oauth2/clients', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let adminId: string;
  let operatorToken: string;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenantId = uniqueTenant();
    const admin = await registerAdmin(app, tenantId);
    adminToken = admin.token;
    adminId = admin.user.id;
    operatorToken = (
      await registerStaff(app, adminToken, { username: 'olga', password: 'an operator passphrase', role: 'OPERATOR', tenantId })
    ).token;
  });

  let counter = 0;
  const registration = (overrides: Record<string, unknown> = {}) => ({
    client_id: `shop-app-${Date.now()}-${counter++}`,
    client_secret: newSecret(),
    redirect_uri: 'https://shop.example.com/callback http://localhost:8080/cb',
    grant_types: 'authorization_code,refresh_token',
    scope: 'orders:read orders:write',
    tenant_id: tenantId,
    ...overrides,
  });

  it('answers 201 with the client and never its secret, and stores only a keyed hash of the secret', async () => {
    const body = registration();
    const response = await app.request('createOAuth2Client', { token: adminToken, body });
    expect(response).toEqual({
      status: 201,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: {
        success: true,
        data: {
          message: 'OAuth2 client created successfully',
          client: {
            client_id: body.client_id,
            tenant_id: tenantId,
            redirect_uris: ['https://shop.example.com/callback', 'http://localhost:8080/cb'],
            grant_types: ['authorization_code', 'refresh_token'],
            scope: 'orders:read orders:write',
            token_endpoint_auth_method: 'client_secret_basic',
          },
        },
      },
    });
    const stored = await deps.store.oauthClients.find(body.client_id);
    expect(stored).toEqual({
      clientId: body.client_id,
      tenantId,
      tokenEndpointAuthMethod: 'client_secret_basic',
      secretHash: expect.stringMatching(/^hmac-sha256\$test-1\$[A-Za-z0-9_-]{43}$/),
      redirectUris: ['https://shop.example.com/callback', 'http://localhost:8080/cb'],
      allowedOrigins: [],
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['orders:read', 'orders:write'],
      createdAt: new Date(deps.clock.now()).toISOString(),
      createdBy: adminId,
      introspectAny: false,
      resources: [],
    });
    expect(JSON.stringify(stored)).not.toContain(body.client_secret);
    expect(deps.logText()).not.toContain(body.client_secret);
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'oauth_client_created', clientId: body.client_id, tenantId }));
  });

  it('keeps client ids in one record outside any tenant, naming its tenant', () => {
    expect(keys.oauthClient('a#b')).toEqual({ pk: 'CLIENT#a%23b', sk: 'CLIENT' });
  });

  it('accepts grant types separated by spaces, commas or both, and loopback http redirect URIs', async () => {
    const body = registration({
      grant_types: 'client_credentials, authorization_code  refresh_token',
      redirect_uri: 'http://127.0.0.1:9000/cb  http://[::1]/cb https://x.example.com/cb?tenant=a',
    });
    const response = await app.request('createOAuth2Client', { token: adminToken, body });
    expect(response.status).toBe(201);
    expect(response.body.data.client).toMatchObject({
      grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
      redirect_uris: ['http://127.0.0.1:9000/cb', 'http://[::1]/cb', 'https://x.example.com/cb?tenant=a'],
    });
  });

  describe('permission (before validation)', () => {
    it.each([
      ['no identity', undefined, { tenant_id: 'x' }],
      ['no identity and bad input', undefined, { client_id: 5 }],
      ['a role other than ADMIN', 'operator', {}],
      ['a role other than ADMIN with bad input', 'operator', { client_secret: 1 }],
      ['an ADMIN of another tenant', 'other', {}],
      ['an ADMIN naming another tenant, with bad input', 'admin', { tenant_id: 'someone-else', scope: '' }],
    ] as const)('answers 403 Permission denied for %s', async (_, who, overrides) => {
      const token =
        who === 'admin'
          ? adminToken
          : who === 'operator'
            ? operatorToken
            : who === 'other'
              ? (await registerAdmin(app, uniqueTenant())).token
              : undefined;
      const response = await app.request('createOAuth2Client', { ...(token ? { token } : {}), body: registration(overrides) });
      expect(response).toEqual({ status: 403, headers: expect.any(Object), body: failure('Permission denied') });
    });
  });

  describe('validation and rules (docs/api.md 4.8, in order)', () => {
    it.each([
      [{ client_id: undefined }, 'client_id: Invalid input: expected string, received undefined'],
      [{ client_id: '' }, 'client_id: Too small: expected string to have >=1 characters'],
      [{ client_secret: '' }, 'client_secret: Too small: expected string to have >=1 characters'],
      [{ redirect_uri: undefined }, 'redirect_uri: Invalid input: expected string, received undefined'],
      [{ grant_types: '' }, 'grant_types: Too small: expected string to have >=1 characters'],
      [{ scope: 5 }, 'scope: Invalid input: expected string, received number'],
      [{ tenant_id: undefined }, 'tenant_id: Invalid input: expected string, received undefined'],
      [{ redirect_uri: '/callback' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'http://shop.example.com/cb' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'http://localhost.evil.example/cb' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'https://shop.example.com/cb#fragment' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'https://user:pw@shop.example.com/cb' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'com.example.app:/cb' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'javascript:alert(1)' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'https:shop.example.com' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'https://shop.example.com/cb https://ok.example.com/cb ftp://x.example.com' }, 'Invalid redirect_uri'],
      [{ redirect_uri: '   ' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'https://shop.example.com/ünï' }, 'Invalid redirect_uri'],
      [{ grant_types: 'implicit' }, 'Unsupported grant type'],
      [{ grant_types: 'authorization_code password' }, 'Unsupported grant type'],
      [{ grant_types: ' , ' }, 'Unsupported grant type'],
      [{ scope: 'orders:read "quoted"' }, 'Invalid scope'],
      [{ scope: '   ' }, 'Invalid scope'],
      [{ client_secret: 'x'.repeat(31) }, 'Client secret too short'],
      [{ client_secret: 'a'.repeat(40) }, 'Client secret too weak'],
      [{ client_secret: 'ab'.repeat(20) }, 'Client secret too weak'],
      [{ client_secret: 'abcdefghijklmnopqrstuvwxyz0123456789' }, 'Client secret too weak'],
      // Several rules broken at once: the first in the contract's order answers.
      [{ redirect_uri: 'http://evil.example', grant_types: 'implicit', client_secret: 'short' }, 'Invalid redirect_uri'],
      [{ grant_types: 'implicit', client_secret: 'short' }, 'Unsupported grant type'],
    ])('answers 400 for %j', async (overrides, error) => {
      const response = await app.request('createOAuth2Client', { token: adminToken, body: registration(overrides) });
      expect(response).toEqual({
        status: 400,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: failure(error),
      });
    });
  });

  it('answers 409 OAuth2 client already exists for a taken client_id, in any tenant, and keeps the first', async () => {
    const first = registration();
    expect((await app.request('createOAuth2Client', { token: adminToken, body: first })).status).toBe(201);
    const again = await app.request('createOAuth2Client', { token: adminToken, body: { ...first, client_secret: newSecret() } });
    expect(again).toEqual({ status: 409, headers: expect.any(Object), body: failure('OAuth2 client already exists') });
    const otherTenant = uniqueTenant();
    const otherAdmin = await registerAdmin(app, otherTenant);
    const elsewhere = await app.request('createOAuth2Client', { token: otherAdmin.token, body: { ...first, tenant_id: otherTenant } });
    expect(elsewhere).toEqual({
      status: 409,
      headers: expect.any(Object),
      body: failure('OAuth2 client already exists'),
    });
    expect((await deps.store.oauthClients.find(first.client_id))?.tenantId).toBe(tenantId);
  });

  it('registers exactly one of 10 concurrent registrations of one client_id', async () => {
    const clientId = `race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        app.request('createOAuth2Client', { token: adminToken, body: registration({ client_id: clientId }) }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(9);
  });
});
