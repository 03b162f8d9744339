import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { clientSecretHasherFor } from '../../lib/oauth/client-secret';
import { GetCommand, UpdateCommand } from '../../lib/store/commands';
import { createDynamo, type Dynamo } from '../../lib/store/dynamo';
import { keys } from '../../lib/store/keys';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { noSecretsManager, type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { basic, form, newSecret } from '../helpers/oauth';

/**
 * Hashes name their pepper, every live pepper verifies, and a client
 * that authenticates under a pepper that is no longer current has its hash rewritten
 * under the current one, by a conditional write that never overwrites a secret changed
 * meanwhile. So a pepper can be rotated without breaking clients: add and make current
 * a new one, let clients authenticate, retire the old one.
 */
const document = (current: string, peppers: Record<string, Buffer>) =>
  JSON.stringify({ current, peppers: Object.fromEntries(Object.entries(peppers).map(([id, key]) => [id, key.toString('base64url')])) });

describe('client-secret pepper rotation against DynamoDB Local', () => {
  let dynamo: Dynamo;
  beforeAll(() => {
    dynamo = createDynamo({ tableName: inject('tableName'), region: 'us-east-1', endpoint: inject('dynamodbEndpoint') });
  });
  const storedHash = async (clientId: string) =>
    (await dynamo.doc.send(new GetCommand({ TableName: dynamo.table, Key: keys.oauthClient(clientId), ConsistentRead: true }))).Item
      ?.secretHash as string;
  const usePeppers = (deps: TestDeps, text: string) => {
    deps.clientSecretHasher = clientSecretHasherFor({ source: 'env', value: text }, noSecretsManager);
    return testApp(deps);
  };

  async function registeredClient(deps: TestDeps, peppers: string) {
    const app = usePeppers(deps, peppers);
    const tenantId = uniqueTenant('pepper');
    const admin = await registerAdmin(app, tenantId);
    const client = { id: `pepper-client-${randomBytes(4).toString('hex')}`, secret: newSecret() };
    const created = await app.request('createOAuth2Client', {
      token: admin.token,
      body: {
        client_id: client.id,
        client_secret: client.secret,
        redirect_uri: 'https://app.example.com/cb',
        grant_types: 'client_credentials',
        scope: 'orders:read',
        tenant_id: tenantId,
      },
    });
    expect(created.status).toBe(201);
    return client;
  }
  const tokenRequest = (client: { id: string; secret: string }) => {
    const request = form({ grant_type: 'client_credentials', scope: 'orders:read' });
    return { ...request, headers: { ...request.headers, authorization: basic(client.id, client.secret) } };
  };

  it.each(['oauth2Token', 'introspect', 'revoke'] as const)(
    'new pepper, clients still work, old pepper removed: %s rewrites the hash under the current pepper',
    async (route) => {
      const [p1, p2] = [randomBytes(32), randomBytes(32)];
      const deps = nearRealTime(await testDeps());
      const client = await registeredClient(deps, document('p1', { p1 }));
      const underP1 = await storedHash(client.id);
      expect(underP1).toMatch(/^hmac-sha256\$p1\$[A-Za-z0-9_-]{43}$/);

      const rotated = usePeppers(deps, document('p2', { p1, p2 }));
      const request =
        route === 'oauth2Token'
          ? tokenRequest(client)
          : { ...form({ token: 'not-a-token' }), headers: { ...form({}).headers, authorization: basic(client.id, client.secret) } };
      expect((await rotated.request(route, request)).status).toBe(200);
      expect(await storedHash(client.id)).toMatch(/^hmac-sha256\$p2\$[A-Za-z0-9_-]{43}$/);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'oauth_client_rehashed', clientId: client.id, pepperId: 'p2' }));

      const retired = usePeppers(deps, document('p2', { p2 }));
      expect((await retired.request(route, request)).status).toBe(200);
      const wrong = { ...request, headers: { ...request.headers, authorization: basic(client.id, newSecret()) } };
      expect((await retired.request(route, wrong)).status).toBe(401);
    },
  );

  it('never overwrites a secret that changed after the record was read (the conditional write loses, authentication still answers)', async () => {
    const [p1, p2] = [randomBytes(32), randomBytes(32)];
    const deps = nearRealTime(await testDeps());
    const client = await registeredClient(deps, document('p1', { p1 }));
    // The instance reads the record; then, before it rewrites the hash, the secret changes in the table.
    const changed = `hmac-sha256$p2$${randomBytes(32).toString('base64url')}`;
    const clients = deps.store.oauthClients;
    // A store loads its module on its first call (docs/decisions/029-cold-start-floor.md):
    // loaded before its methods are spread into the one below.
    await clients.find(client.id);
    deps.store = {
      ...deps.store,
      oauthClients: {
        ...clients,
        find: async (clientId) => {
          const read = await clients.find(clientId);
          await dynamo.doc.send(
            new UpdateCommand({
              TableName: dynamo.table,
              Key: keys.oauthClient(client.id),
              UpdateExpression: 'SET secretHash = :h',
              ExpressionAttributeValues: { ':h': changed },
            }),
          );
          return read;
        },
      },
    };
    const rotated = usePeppers(deps, document('p2', { p1, p2 }));
    expect((await rotated.request('oauth2Token', tokenRequest(client))).status).toBe(200);
    expect(await storedHash(client.id)).toBe(changed);
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'oauth_client_rehash_skipped', clientId: client.id }));
  });

  it('replaces a stored hash only while it is the one expected', async () => {
    const deps = nearRealTime(await testDeps());
    const client = await registeredClient(deps, document('p1', { p1: randomBytes(32) }));
    const current = await storedHash(client.id);
    const next = `hmac-sha256$p2$${randomBytes(32).toString('base64url')}`;
    expect(await deps.store.oauthClients.replaceSecretHash(client.id, 'hmac-sha256$p0$stale', next)).toBe(false);
    expect(await storedHash(client.id)).toBe(current);
    expect(await deps.store.oauthClients.replaceSecretHash(client.id, current, next)).toBe(true);
    expect(await storedHash(client.id)).toBe(next);
    expect(await deps.store.oauthClients.replaceSecretHash('no-such-client', current, next)).toBe(false);
    expect(await storedHash('no-such-client')).toBeUndefined();
  });
});
