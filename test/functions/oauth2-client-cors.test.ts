import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '../../lib/store/commands';
import { createDynamo } from '../../lib/store/dynamo';
import { keys } from '../../lib/store/keys';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { form, type OAuthTenant, oauthTenant } from '../helpers/oauth';

// An origin of this file's own: the index is of every tenant, and other files' clients list spa.example.com.
const SPA = `https://spa-${Date.now().toString(36)}.example.com`;
const LOOPBACK = `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}`;
const FRONT_END = 'https://admin.example.com';
const EVIL = 'https://evil.example.com';

/** The CORS headers of an answer (and Vary), by their names as the functions write them. */
const corsOf = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('Access-Control-') || name === 'Vary'));

/** docs/api.md 16.2: CORS per client on the token, userinfo and revocation endpoints, and every preflight. */
describe('per-client CORS', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let clientId: string;

  const dynamo = () =>
    createDynamo({ tableName: deps.config.tableName, region: deps.config.awsRegion, endpoint: deps.config.dynamodbEndpoint });
  const preflight = (path: string, origin: string) =>
    app.request('corsPreflight', {
      method: 'OPTIONS',
      pathParameters: { proxy: path.slice(1) },
      headers: { origin, 'access-control-request-method': 'POST' },
    });
  const patchOrigins = (allowed_origins: string) =>
    app.request('updateOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId }, body: { allowed_origins } });

  beforeAll(async () => {
    deps = nearRealTime(await testDeps({ CORS_ALLOWED_ORIGINS: FRONT_END }));
    app = testApp(deps);
    tenant = await oauthTenant(app);
    clientId = `spa-cors-${tenant.tenantId}`;
    const registered = await app.request('createOAuth2Client', {
      token: tenant.adminToken,
      body: {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        redirect_uri: `${SPA}/callback`,
        grant_types: 'authorization_code refresh_token',
        scope: 'openid',
        tenant_id: tenant.tenantId,
        allowed_origins: `${SPA} ${LOOPBACK}`,
      },
    });
    expect(registered.status).toBe(201);
  });

  describe('preflights (OPTIONS, functions/cors-preflight.ts)', () => {
    it.each([
      ['/oauth2/token', 'POST'],
      ['/oauth2/revoke', 'POST'],
      ['/oauth2/userinfo', 'GET, POST'],
    ])('allows an origin a client lists on %s', async (path, methods) => {
      expect(await preflight(path, SPA)).toEqual({
        status: 204,
        headers: expect.objectContaining({
          'Access-Control-Allow-Origin': SPA,
          'Access-Control-Allow-Methods': methods,
          'Access-Control-Allow-Headers': 'Content-Type, Authorization, DPoP',
          'Access-Control-Max-Age': '600',
          Vary: 'Origin',
        }),
        body: undefined,
      });
    });

    it.each([
      ['an origin no client lists', '/oauth2/token', EVIL],
      ['a client’s origin on a first-party route', '/auth/login', SPA],
      ['a client’s origin on introspection', '/oauth2/introspect', SPA],
      ['a client’s origin in other case', '/oauth2/token', SPA.replace('https://spa-', 'https://SPA-')],
    ])('answers %s without CORS headers', async (_, path, origin) => {
      const answer = await preflight(path, origin);
      expect([answer.status, corsOf(answer.headers)]).toEqual([204, { Vary: 'Origin' }]);
    });

    it('allows the configured front ends on every route, with the first-party methods and headers', async () => {
      const answer = await preflight('/auth/login', FRONT_END);
      expect(answer.status).toBe(204);
      expect(answer.headers).toMatchObject({
        'Access-Control-Allow-Origin': FRONT_END,
        'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Device-Token',
      });
      expect((await preflight('/oauth2/token', FRONT_END)).headers['Access-Control-Allow-Origin']).toBe(FRONT_END);
    });
  });

  describe('answers', () => {
    const exposed = {
      'Access-Control-Allow-Origin': SPA,
      'Access-Control-Expose-Headers': 'WWW-Authenticate, Retry-After, DPoP-Nonce',
      Vary: 'Origin',
    };

    it('lets a listed origin read the token endpoint’s answers, failures included; no other origin', async () => {
      const failed = await app.request('oauth2Token', {
        ...form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'not-a-token' }),
        headers: { ...form({}).headers, origin: SPA },
      });
      expect([failed.status, corsOf(failed.headers)]).toEqual([400, exposed]);
      const refused = await app.request('oauth2Token', {
        ...form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'not-a-token' }),
        headers: { ...form({}).headers, origin: EVIL },
      });
      expect([refused.status, corsOf(refused.headers)]).toEqual([400, { Vary: 'Origin' }]);
    });

    it('lets a listed origin read userinfo and revocation answers, never introspection’s', async () => {
      const userinfo = await app.request('userInfo', { method: 'GET', headers: { origin: SPA } });
      expect([userinfo.status, corsOf(userinfo.headers)]).toEqual([401, exposed]);
      const revoked = await app.request('revoke', {
        ...form({ client_id: clientId, token: 'x' }),
        headers: { ...form({}).headers, origin: SPA },
      });
      expect([revoked.status, corsOf(revoked.headers)]).toEqual([200, exposed]);
      const introspected = await app.request('introspect', {
        ...form({ client_id: clientId, token: 'x' }),
        headers: { ...form({}).headers, origin: SPA },
      });
      expect([introspected.status, corsOf(introspected.headers)]).toEqual([401, { Vary: 'Origin' }]);
    });
  });

  it.each(['metadata', 'openIdConfiguration', 'jwks'])('lets every origin read %s, a public document an app reads first', async (route) => {
    const answer = await app.request(route, { method: 'GET', headers: { origin: EVIL } });
    expect([answer.status, answer.headers['Access-Control-Allow-Origin']]).toEqual([200, EVIL]);
  });

  describe('the origin index follows the clients (docs/api.md 16.2)', () => {
    const indexed = async (origin: string) => {
      const { Item } = await dynamo().doc.send(new GetCommand({ TableName: deps.config.tableName, Key: keys.corsOrigin(origin) }));
      return Item?.clientIds instanceof Set ? [...Item.clientIds] : [];
    };

    it('stops allowing an origin the client no longer lists, allows it again when listed, and none once the client is deleted', async () => {
      expect(await indexed(SPA)).toContain(clientId);
      expect((await patchOrigins(LOOPBACK)).status).toBe(200);
      expect((await preflight('/oauth2/token', SPA)).headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect(await indexed(SPA)).not.toContain(clientId);
      expect((await patchOrigins(`${SPA} ${LOOPBACK}`)).status).toBe(200);
      expect((await preflight('/oauth2/token', SPA)).headers['Access-Control-Allow-Origin']).toBe(SPA);

      const deleted = await app.request('deleteOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId } });
      expect(deleted.status).toBe(200);
      expect((await preflight('/oauth2/token', SPA)).headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect((await preflight('/oauth2/token', LOOPBACK)).headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect(await indexed(SPA)).not.toContain(clientId);
    });

    it('trusts the clients over a stale index entry: an origin in the index that no live client lists is refused', async () => {
      const stale = 'https://stale.example.com';
      await deps.store.oauthClients.create({
        ...(await oneStoredClient()),
        clientId: `stale-${tenant.tenantId}`,
        allowedOrigins: [stale],
      });
      expect(await deps.store.oauthClients.listsOrigin(stale)).toBe(true);
      // The client's write lost, the index entry stays: the client decides.
      await dynamo().doc.send(
        new UpdateCommand({
          TableName: deps.config.tableName,
          Key: keys.oauthClient(`stale-${tenant.tenantId}`),
          UpdateExpression: 'SET allowedOrigins = :none',
          ExpressionAttributeValues: { ':none': [] },
        }),
      );
      expect(await indexed(stale)).toContain(`stale-${tenant.tenantId}`);
      expect(await deps.store.oauthClients.listsOrigin(stale)).toBe(false);
    });
  });

  async function oneStoredClient() {
    const stored = await deps.store.oauthClients.find(tenant.client.clientId);
    if (!stored) throw new Error('no client');
    return stored;
  }
});
