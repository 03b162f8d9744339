import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoStores } from '../../lib/deps';
import type { OAuthClient } from '../../lib/oauth/client';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { localDynamo } from '../helpers/local-dynamo';
import { createClient, newSecret, type TestClient, tokenRequest } from '../helpers/oauth';

/**
 * A deleted client or a retired secret must not work on the next request in
 * any warm instance. Two "instances": deps and handlers built separately (as two Lambda
 * instances are), on one table. There is no per-instance client cache to go stale: every
 * authentication reads the client record (strongly consistent, with the source's failure count in one BatchGetItem).
 */
describe('OAuth clients across warm instances', () => {
  let one: TestDeps;
  let two: TestDeps;
  let first: App;
  let second: App;

  beforeAll(async () => {
    [one, two] = [await testDeps(), await testDeps()];
    two.clock.set(one.clock.now());
    [first, second] = [testApp(one), testApp(two)];
  });

  const clientCredentials = (app: App, client: TestClient) =>
    app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }));
  const invalidClient = { error: 'invalid_client', error_description: 'Invalid client' };

  async function warmClient() {
    const tenantId = uniqueTenant('fresh');
    const admin = await registerAdmin(first, tenantId);
    const client = await createClient(first, admin.token, tenantId, { grantTypes: 'client_credentials' });
    // The second instance has authenticated the client: it is warm with it.
    expect((await clientCredentials(second, client)).status).toBe(200);
    return { admin, client };
  }

  it('refuses a client deleted on another instance at its next request', async () => {
    const { admin, client } = await warmClient();
    const deleted = await first.request('deleteOAuth2Client', { token: admin.token, pathParameters: { clientId: client.clientId } });
    expect(deleted.body).toEqual({ success: true, data: { message: 'OAuth2 client deleted' } });
    expect(await clientCredentials(second, client)).toMatchObject({ status: 401, body: invalidClient });
  });

  it('refuses a secret retired at once on another instance at its next request, and takes the new one', async () => {
    const { admin, client } = await warmClient();
    const next = newSecret();
    const rotated = await first.request('rotateOAuth2ClientSecret', {
      token: admin.token,
      pathParameters: { clientId: client.clientId },
      body: { client_secret: next, previous_secret_expires_in: 0 },
    });
    expect(rotated.status).toBe(200);
    expect(await clientCredentials(second, client)).toMatchObject({ status: 401, body: invalidClient });
    expect((await clientCredentials(second, { ...client, clientSecret: next })).status).toBe(200);
  });

  it('stops the previous secret on every instance when it expires, by each instance’s clock', async () => {
    const { admin, client } = await warmClient();
    const next = newSecret();
    const rotated = await first.request('rotateOAuth2ClientSecret', {
      token: admin.token,
      pathParameters: { clientId: client.clientId },
      body: { client_secret: next, previous_secret_expires_in: 600 },
    });
    expect(rotated.status).toBe(200);
    const renewed = { ...client, clientSecret: next };
    for (const app of [first, second]) {
      expect((await clientCredentials(app, client)).status).toBe(200);
      expect((await clientCredentials(app, renewed)).status).toBe(200);
    }
    one.clock.advance(600);
    two.clock.advance(600);
    for (const app of [first, second]) {
      expect(await clientCredentials(app, client)).toMatchObject({ status: 401, body: invalidClient });
      expect((await clientCredentials(app, renewed)).status).toBe(200);
    }
  });

  it('reads the client once per authentication, and hands out frozen records', async () => {
    const { client } = await warmClient();
    const reads: string[] = [];
    const counted: TestDeps = {
      ...two,
      store: {
        ...two.store,
        oauthClients: {
          ...two.store.oauthClients,
          find: (clientId) => {
            reads.push(clientId);
            return two.store.oauthClients.find(clientId);
          },
        },
      },
    } as TestDeps;
    const app = testApp(counted);
    for (let i = 0; i < 3; i++) expect((await clientCredentials(app, client)).status).toBe(200);
    expect(reads).toEqual([client.clientId, client.clientId, client.clientId]);

    const found = (await two.store.oauthClients.find(client.clientId)) as OAuthClient;
    expect(Object.isFrozen(found)).toBe(true);
    expect(() => found.grantTypes.push('authorization_code')).toThrow(TypeError);
    expect(() => found.scopes.push('admin')).toThrow(TypeError);
  });

  it("reads the client and the source's failed authentications in one round trip", async () => {
    const { client } = await warmClient();
    const dynamo = localDynamo();
    const sent: string[] = [];
    dynamo.doc.middlewareStack.add(
      (next, { commandName }) =>
        (args) => {
          sent.push(commandName);
          return next(args);
        },
      { step: 'initialize', name: 'countCommands' },
    );
    const app = testApp({ ...two, store: dynamoStores(dynamo, two) } as TestDeps);
    expect((await clientCredentials(app, client)).status).toBe(200);
    expect(sent).toEqual(['BatchGetItemCommand']);
  });

  it('finds a client registered on another instance at once, and no client under an unknown id', async () => {
    expect(
      await second.request(
        'oauth2Token',
        tokenRequest(
          { clientId: `nobody-${randomBytes(4).toString('hex')}`, clientSecret: newSecret(), redirectUri: '', tenantId: '' },
          { grant_type: 'client_credentials' },
        ),
      ),
    ).toMatchObject({ status: 401, body: invalidClient });
    const { client } = await warmClient();
    expect((await clientCredentials(second, client)).status).toBe(200);
  });
});
