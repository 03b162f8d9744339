import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DELETED_CLIENT_ID_RESERVED_SECONDS } from '../../lib/oauth/client-admin';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { authorizationCode, createClient, newSecret, type TestClient, tokenRequest } from '../helpers/oauth';

/** docs/api.md 9.9-9.13: the OAuth client lifecycle, rule by rule. */
const iso = (ms: number) => new Date(ms).toISOString();
const invalidClient = { status: 401, body: { error: 'invalid_client', error_description: 'Invalid client' } };

describe('the OAuth client lifecycle', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let operatorToken: string;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenantId = uniqueTenant('clients');
    adminToken = (await registerAdmin(app, tenantId)).token;
    operatorToken = (
      await registerStaff(app, adminToken, { username: 'olga', password: 'an operator passphrase', role: 'OPERATOR', tenantId })
    ).token;
  });

  const newClient = (options: Parameters<typeof createClient>[3] = {}) => createClient(app, adminToken, tenantId, options);
  const clientCredentials = (client: TestClient, secret = client.clientSecret) =>
    app.request('oauth2Token', tokenRequest({ ...client, clientSecret: secret }, { grant_type: 'client_credentials' }));
  const path = (client: TestClient | string) => ({ clientId: typeof client === 'string' ? client : client.clientId });
  /** The client object of docs/api.md 9.9 as registered by the helper (all grants, two scopes). */
  const viewOf = (client: TestClient, overrides: Record<string, unknown> = {}) => ({
    client_id: client.clientId,
    tenant_id: tenantId,
    client_name: null,
    redirect_uris: [client.redirectUri],
    post_logout_redirect_uris: [],
    grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
    scope: 'orders:read orders:write',
    token_endpoint_auth_method: 'client_secret_basic',
    allowed_origins: [],
    first_party: false,
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    updated_at: null,
    previous_secret_expires_at: null,
    ...overrides,
  });

  describe('every route', () => {
    const routes = [
      ['listOAuth2Clients', {}],
      ['readOAuth2Client', { pathParameters: { clientId: 'any' } }],
      ['updateOAuth2Client', { pathParameters: { clientId: 'any' }, body: {} }],
      ['deleteOAuth2Client', { pathParameters: { clientId: 'any' } }],
      ['rotateOAuth2ClientSecret', { pathParameters: { clientId: 'any' }, body: { client_secret: newSecret() } }],
    ] as const;

    it.each(routes)('%s answers 403 Permission denied to a non-ADMIN and to a caller without a token', async (route, request) => {
      expect(await app.request(route, { ...request, token: operatorToken })).toMatchObject({
        status: 403,
        body: failure('Permission denied'),
      });
      expect(await app.request(route, request)).toMatchObject({ status: 403, body: failure('Permission denied') });
    });

    it.each(routes.slice(1))(
      '%s answers 404 Client not found for an unknown id, and 400 for an id over 128 characters',
      async (route, request) => {
        const unknown = await app.request(route, {
          ...request,
          token: adminToken,
          pathParameters: { clientId: `nobody-${randomBytes(4).toString('hex')}` },
        });
        expect(unknown).toMatchObject({
          status: 404,
          headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
          body: failure('Client not found'),
        });
        const long = await app.request(route, { ...request, token: adminToken, pathParameters: { clientId: 'c'.repeat(129) } });
        expect(long).toMatchObject({ status: 400, body: failure('clientId: Too big: expected string to have <=128 characters') });
      },
    );
  });

  describe('GET /oauth2/clients', () => {
    it('lists the tenant’s clients, oldest first, and no other tenant’s', async () => {
      const tenant = uniqueTenant('list');
      const token = (await registerAdmin(app, tenant)).token;
      const first = await createClient(app, token, tenant);
      deps.clock.advance(1);
      const second = await createClient(app, token, tenant, { grantTypes: 'client_credentials', scope: 'stock:read' });
      await newClient();
      const response = await app.request('listOAuth2Clients', { token });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            clients: [
              { ...viewOf(first), tenant_id: tenant },
              { ...viewOf(second), tenant_id: tenant, grant_types: ['client_credentials'], scope: 'stock:read' },
            ],
          },
        },
      });
    });

    it('no longer lists a deleted client', async () => {
      const tenant = uniqueTenant('list');
      const token = (await registerAdmin(app, tenant)).token;
      const client = await createClient(app, token, tenant);
      await app.request('deleteOAuth2Client', { token, pathParameters: path(client) });
      expect((await app.request('listOAuth2Clients', { token })).body).toEqual({ success: true, data: { clients: [] } });
    });

    it('answers 400 for a query parameter', async () => {
      expect(await app.request('listOAuth2Clients', { token: adminToken, query: { limit: '5' } })).toMatchObject({
        status: 400,
        body: failure('query: Unrecognized key: "limit"'),
      });
    });
  });

  describe('GET /oauth2/clients/{clientId}', () => {
    it('answers the client, never its secret or the secret’s hash', async () => {
      const client = await newClient();
      const response = await app.request('readOAuth2Client', { token: adminToken, pathParameters: path(client) });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { client: viewOf(client, { created_at: iso(deps.clock.now()) }) } },
      });
      const stored = await deps.store.oauthClients.find(client.clientId);
      expect(JSON.stringify(response.body)).not.toContain(client.clientSecret);
      expect(JSON.stringify(response.body)).not.toContain(String(stored?.secretHash?.split('$')[2]));
    });
  });

  describe('PATCH /oauth2/clients/{clientId}', () => {
    it('changes what is given, keeps the rest, and answers the client as changed', async () => {
      const client = await newClient();
      const response = await app.request('updateOAuth2Client', {
        token: adminToken,
        pathParameters: path(client),
        body: {
          redirect_uri: 'https://new.example.com/cb http://127.0.0.1:9000/cb',
          grant_types: 'authorization_code refresh_token',
          scope: 'orders:read profile',
          client_name: 'Shop app',
          first_party: true,
          post_logout_redirect_uris: 'https://new.example.com/bye',
        },
      });
      const changed = viewOf(client, {
        client_name: 'Shop app',
        redirect_uris: ['https://new.example.com/cb', 'http://127.0.0.1:9000/cb'],
        post_logout_redirect_uris: ['https://new.example.com/bye'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'orders:read profile',
        first_party: true,
        updated_at: iso(deps.clock.now()),
      });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { client: changed } },
      });
      expect((await app.request('readOAuth2Client', { token: adminToken, pathParameters: path(client) })).body.data.client).toEqual(
        changed,
      );
      // The secret stays.
      expect((await clientCredentials(client)).status).toBe(400);
      const cleared = await app.request('updateOAuth2Client', {
        token: adminToken,
        pathParameters: path(client),
        body: { post_logout_redirect_uris: '', first_party: false },
      });
      expect(cleared.body.data.client).toEqual({ ...changed, post_logout_redirect_uris: [], first_party: false });
    });

    it('changes nothing for an empty body', async () => {
      const client = await newClient();
      const response = await app.request('updateOAuth2Client', { token: adminToken, pathParameters: path(client), body: {} });
      expect(response.body).toEqual({ success: true, data: { client: viewOf(client) } });
    });

    it('takes effect on the next request: a removed grant type and redirect URI are refused', async () => {
      const client = await newClient();
      expect((await clientCredentials(client)).status).toBe(200);
      await app.request('updateOAuth2Client', {
        token: adminToken,
        pathParameters: path(client),
        body: { grant_types: 'authorization_code', redirect_uri: 'https://other.example.com/cb' },
      });
      expect(await clientCredentials(client)).toMatchObject({
        status: 400,
        body: { error: 'unauthorized_client', error_description: 'Unauthorized client' },
      });
      await expect(authorizationCode(app, adminToken, client)).rejects.toThrow(/Invalid redirect_uri/);
      expect(await authorizationCode(app, adminToken, { ...client, redirectUri: 'https://other.example.com/cb' })).toMatchObject({
        code: expect.any(String),
      });
    });

    it.each([
      [{ redirect_uri: 'http://shop.example.com/cb' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'https://shop.example.com/cb#frag' }, 'Invalid redirect_uri'],
      [{ grant_types: 'implicit' }, 'Unsupported grant type'],
      [{ scope: 'orders:"read' }, 'Invalid scope'],
      [{ post_logout_redirect_uris: 'https://ok.example.com/bye javascript:alert(1)' }, 'Invalid post_logout_redirect_uri'],
      [{ redirect_uri: 'ftp://x', grant_types: 'implicit' }, 'Invalid redirect_uri'],
      [{ grant_types: 'implicit', scope: '"' }, 'Unsupported grant type'],
      [{ client_name: '' }, 'client_name: Too small: expected string to have >=1 characters'],
      [{ first_party: 'yes' }, 'first_party: Invalid input: expected boolean, received string'],
      [{ client_secret: newSecret() }, 'body: Unrecognized key: "client_secret"'],
      [{ redirect_uri: '' }, 'redirect_uri: Too small: expected string to have >=1 characters'],
    ])('refuses %j: 400 %s, and changes nothing', async (body, message) => {
      const client = await newClient();
      const response = await app.request('updateOAuth2Client', { token: adminToken, pathParameters: path(client), body });
      expect(response).toMatchObject({ status: 400, body: failure(message) });
      expect((await app.request('readOAuth2Client', { token: adminToken, pathParameters: path(client) })).body.data.client).toEqual(
        viewOf(client),
      );
    });
  });

  describe('DELETE /oauth2/clients/{clientId}', () => {
    it('ends every grant and token of the client at once: refresh token, access token, codes, client_credentials', async () => {
      const client = await newClient();
      const resourceServer = await newClient();
      const redeem = (code: { code: string; verifier: string }) =>
        app.request(
          'oauth2Token',
          tokenRequest(client, {
            grant_type: 'authorization_code',
            code: code.code,
            redirect_uri: client.redirectUri,
            code_verifier: code.verifier,
          }),
        );
      const issued = (await redeem(await authorizationCode(app, adminToken, client))).body;
      const pending = await authorizationCode(app, adminToken, client);
      const machine = (await clientCredentials(client)).body.access_token as string;
      const introspect = (who: TestClient, token: string) => app.request('introspect', tokenRequest(who, { token }));
      expect((await introspect(client, issued.access_token)).body.active).toBe(true);
      expect((await introspect(client, machine)).body.active).toBe(true);

      const deleted = await app.request('deleteOAuth2Client', { token: adminToken, pathParameters: path(client) });
      expect(deleted).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'OAuth2 client deleted' } },
      });

      expect(
        await app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })),
      ).toMatchObject(invalidClient);
      expect(await redeem(pending)).toMatchObject(invalidClient);
      expect(await clientCredentials(client)).toMatchObject(invalidClient);
      for (const token of [issued.access_token, issued.refresh_token, machine]) {
        expect(await introspect(client, token)).toMatchObject(invalidClient);
        expect((await introspect(resourceServer, token)).body).toEqual({ active: false });
      }
      expect(await app.request('revoke', tokenRequest(client, { token: issued.refresh_token }))).toMatchObject(invalidClient);
      expect(
        await app.request('oauth2Authorize', {
          token: adminToken,
          query: {
            response_type: 'code',
            client_id: client.clientId,
            redirect_uri: client.redirectUri,
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          },
        }),
      ).toMatchObject({ status: 400, body: failure('Invalid client') });
      expect(await app.request('readOAuth2Client', { token: adminToken, pathParameters: path(client) })).toMatchObject({
        status: 404,
        body: failure('Client not found'),
      });
      expect(await app.request('deleteOAuth2Client', { token: adminToken, pathParameters: path(client) })).toMatchObject({
        status: 404,
        body: failure('Client not found'),
      });
    });

    it('keeps the id taken until everything issued to the old client has expired', async () => {
      const own = nearRealTime(await testDeps());
      const ownApp = testApp(own);
      const tenant = uniqueTenant('reserved');
      const token = (await registerAdmin(ownApp, tenant)).token;
      const client = await createClient(ownApp, token, tenant);
      const code = await authorizationCode(ownApp, token, client);
      const issued = (
        await ownApp.request(
          'oauth2Token',
          tokenRequest(client, {
            grant_type: 'authorization_code',
            code: code.code,
            redirect_uri: client.redirectUri,
            code_verifier: code.verifier,
          }),
        )
      ).body;
      await ownApp.request('deleteOAuth2Client', { token, pathParameters: path(client) });
      const again = await ownApp.request('createOAuth2Client', {
        token,
        body: {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uri: client.redirectUri,
          grant_types: 'authorization_code refresh_token',
          scope: 'orders:read',
          tenant_id: tenant,
        },
      });
      expect(again).toMatchObject({ status: 409, body: failure('OAuth2 client already exists') });

      const stored = { clientId: client.clientId, tenantId: tenant, createdBy: 'admin' };
      const registration = {
        ...stored,
        secretHash: await own.clientSecretHasher.hash(client.clientSecret),
        redirectUris: [client.redirectUri],
        grantTypes: ['authorization_code' as const, 'refresh_token' as const],
        scopes: ['orders:read'],
        introspectAny: false,
        resources: [],
        tokenEndpointAuthMethod: 'client_secret_basic' as const,
        allowedOrigins: [],
      };
      own.clock.advance(DELETED_CLIENT_ID_RESERVED_SECONDS - 1);
      expect(await own.store.oauthClients.create({ ...registration, createdAt: iso(own.clock.now()) })).toBe('exists');
      own.clock.advance(2);
      expect(await own.store.oauthClients.create({ ...registration, createdAt: iso(own.clock.now()) })).toBe('created');
      // The new client of the old id gets nothing the old one was given.
      expect(
        await ownApp.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })),
      ).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant' },
      });
    });
  });

  describe('POST /oauth2/clients/{clientId}/secrets', () => {
    const rotate = (client: TestClient, body: Record<string, unknown>) =>
      app.request('rotateOAuth2ClientSecret', { token: adminToken, pathParameters: path(client), body });

    it('keeps the old secret working until it expires (86400 s by default), then only the new one', async () => {
      const own = nearRealTime(await testDeps());
      const ownApp = testApp(own);
      const tenant = uniqueTenant('rotate');
      const token = (await registerAdmin(ownApp, tenant)).token;
      const client = await createClient(ownApp, token, tenant);
      const next = newSecret();
      const rotatedAt = own.clock.now();
      const response = await ownApp.request('rotateOAuth2ClientSecret', {
        token,
        pathParameters: path(client),
        body: { client_secret: next },
      });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            client: {
              ...viewOf(client),
              tenant_id: tenant,
              updated_at: iso(rotatedAt),
              previous_secret_expires_at: iso(rotatedAt + 86_400_000),
            },
          },
        },
      });
      expect(JSON.stringify(response.body)).not.toContain(next);
      const works = async (secret: string) =>
        (await ownApp.request('oauth2Token', tokenRequest({ ...client, clientSecret: secret }, { grant_type: 'client_credentials' })))
          .status;
      expect([await works(client.clientSecret), await works(next)]).toEqual([200, 200]);
      own.clock.advance(86_399);
      expect([await works(client.clientSecret), await works(next)]).toEqual([200, 200]);
      own.clock.advance(1);
      expect([await works(client.clientSecret), await works(next)]).toEqual([401, 200]);
      own.clock.advance(7 * 86_400);
      expect([await works(client.clientSecret), await works(next)]).toEqual([401, 200]);
    });

    it('retires the old secret at once with previous_secret_expires_in 0', async () => {
      const client = await newClient();
      const next = newSecret();
      const response = await rotate(client, { client_secret: next, previous_secret_expires_in: 0 });
      expect(response.body.data.client).toEqual(viewOf(client, { updated_at: iso(deps.clock.now()), previous_secret_expires_at: null }));
      expect(await clientCredentials(client)).toMatchObject(invalidClient);
      expect((await clientCredentials(client, next)).status).toBe(200);
    });

    it('keeps two secrets at most: a second rotation ends the first secret at once', async () => {
      const client = await newClient();
      const [second, third] = [newSecret(), newSecret()];
      await rotate(client, { client_secret: second });
      const response = await rotate(client, { client_secret: third, previous_secret_expires_in: 60 });
      expect(response.body.data.client.previous_secret_expires_at).toBe(iso(deps.clock.now() + 60_000));
      expect(await clientCredentials(client)).toMatchObject(invalidClient);
      expect((await clientCredentials(client, second)).status).toBe(200);
      expect((await clientCredentials(client, third)).status).toBe(200);
    });

    it('changes nothing and answers the same when the secret is already the current one (a retried request)', async () => {
      const client = await newClient();
      const next = newSecret();
      const first = await rotate(client, { client_secret: next, previous_secret_expires_in: 600 });
      deps.clock.advance(5);
      const retried = await rotate(client, { client_secret: next, previous_secret_expires_in: 600 });
      expect(retried).toEqual(first);
      expect((await clientCredentials(client)).status).toBe(200);
      expect((await clientCredentials(client, next)).status).toBe(200);
    });

    it.each([
      [{ client_secret: 'x'.repeat(31) }, 'Client secret too short'],
      [{ client_secret: 'ab'.repeat(20) }, 'Client secret too weak'],
      [
        { client_secret: newSecret(), previous_secret_expires_in: 604_801 },
        'previous_secret_expires_in: Too big: expected number to be <=604800',
      ],
      [{ client_secret: newSecret(), previous_secret_expires_in: -1 }, 'previous_secret_expires_in: Too small: expected number to be >=0'],
      [
        { client_secret: newSecret(), previous_secret_expires_in: 1.5 },
        'previous_secret_expires_in: Invalid input: expected int, received number',
      ],
      [
        { client_secret: newSecret(), previous_secret_expires_in: '60' },
        'previous_secret_expires_in: Invalid input: expected number, received string',
      ],
      [{}, 'client_secret: Invalid input: expected string, received undefined'],
      [{ client_secret: newSecret(), client_id: 'other' }, 'body: Unrecognized key: "client_id"'],
    ])('refuses %j: 400 %s, and the old secret stays the only one', async (body, message) => {
      const client = await newClient();
      expect(await rotate(client, body)).toMatchObject({ status: 400, body: failure(message) });
      expect((await clientCredentials(client)).status).toBe(200);
      expect((await app.request('readOAuth2Client', { token: adminToken, pathParameters: path(client) })).body.data.client).toEqual(
        viewOf(client),
      );
    });

    it('takes a secret of exactly 604800 s and of 1 s', async () => {
      const client = await newClient();
      const week = await rotate(client, { client_secret: newSecret(), previous_secret_expires_in: 604_800 });
      expect(week.body.data.client.previous_secret_expires_at).toBe(iso(deps.clock.now() + 604_800_000));
      const second = await rotate(client, { client_secret: newSecret(), previous_secret_expires_in: 1 });
      expect(second.body.data.client.previous_secret_expires_at).toBe(iso(deps.clock.now() + 1000));
    });
  });
});
