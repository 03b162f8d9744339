import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import type { OAuthClient } from '../../lib/oauth/client';
import type { Dynamo } from '../../lib/store/dynamo';
import { CLIENT_CACHE_SECONDS, cachedOAuthClientStore, dynamoOAuthClientStore, type OAuthClientStore } from '../../lib/store/oauth-clients';
import { testClock } from '../helpers/deps';
import { localDynamo } from '../helpers/local-dynamo';

/** The real DynamoDB store without a cache, with the reads it makes counted. */
function countedStore(dynamo: Dynamo, failNext = { value: false }) {
  const inner = dynamoOAuthClientStore(dynamo, cryptoRandom, { ttlSeconds: 0, clock: testClock(), maxEntries: 0 });
  const reads: string[] = [];
  const store: OAuthClientStore = {
    create: (client) => inner.create(client),
    replaceSecretHash: (clientId, expected, next) => inner.replaceSecretHash(clientId, expected, next),
    find: async (clientId) => {
      reads.push(clientId);
      if (failNext.value) {
        failNext.value = false;
        throw new Error('the database is unreachable');
      }
      return inner.find(clientId);
    },
  };
  return { store, reads };
}

const newClient = (tenantId = 'cache-tenant'): OAuthClient => ({
  clientId: `cached-${randomBytes(6).toString('hex')}`,
  tenantId,
  secretHash: `hmac-sha256$${randomBytes(32).toString('base64url')}`,
  redirectUris: ['https://app.example.com/callback'],
  grantTypes: ['client_credentials'],
  scopes: ['orders:read'],
  createdAt: new Date(0).toISOString(),
  createdBy: 'admin',
  introspectAny: false,
  resources: [],
});

describe('OAuth client cache (per Lambda instance)', () => {
  let dynamo: Dynamo;

  beforeAll(() => {
    dynamo = localDynamo();
  });

  function cached(options: { ttlSeconds?: number; maxEntries?: number } = {}) {
    const failNext = { value: false };
    const { store, reads } = countedStore(dynamo, failNext);
    const clock = testClock();
    const cache = cachedOAuthClientStore(store, {
      ttlSeconds: options.ttlSeconds ?? CLIENT_CACHE_SECONDS,
      clock,
      maxEntries: options.maxEntries ?? 100,
    });
    return { cache, reads, clock, failNext };
  }

  it('is on by default in the DynamoDB store, for 60 s', () => {
    expect(CLIENT_CACHE_SECONDS).toBe(60);
  });

  it('reads a found client once within the TTL, and again after it', async () => {
    const { cache, reads, clock } = cached();
    const client = newClient();
    await cache.create(client);
    expect(await cache.find(client.clientId)).toEqual(client);
    clock.advance(CLIENT_CACHE_SECONDS - 1);
    expect(await cache.find(client.clientId)).toEqual(client);
    expect(reads).toEqual([client.clientId]);
    clock.advance(1);
    expect(await cache.find(client.clientId)).toEqual(client);
    expect(reads).toEqual([client.clientId, client.clientId]);
  });

  it('shares one read between concurrent lookups of a client', async () => {
    const { cache, reads } = cached();
    const client = newClient();
    await cache.create(client);
    const found = await Promise.all([cache.find(client.clientId), cache.find(client.clientId), cache.find(client.clientId)]);
    expect(found).toEqual([client, client, client]);
    expect(reads).toEqual([client.clientId]);
  });

  it('does not keep a lookup that found nothing: a client registered afterwards is found at once', async () => {
    const { cache, reads } = cached();
    const client = newClient();
    expect(await cache.find(client.clientId)).toBeUndefined();
    expect(await cache.find(client.clientId)).toBeUndefined();
    expect(reads).toHaveLength(2);
    // Registered by another instance (straight into the table), not through this cache.
    await countedStore(dynamo).store.create(client);
    expect(await cache.find(client.clientId)).toEqual(client);
  });

  it('does not keep a failed lookup: the next request reads again', async () => {
    const { cache, reads, failNext } = cached();
    const client = newClient();
    await cache.create(client);
    failNext.value = true;
    await expect(cache.find(client.clientId)).rejects.toThrow('the database is unreachable');
    expect(await cache.find(client.clientId)).toEqual(client);
    expect(reads).toEqual([client.clientId, client.clientId]);
  });

  it('hands out frozen records, so no request can change what the next one sees', async () => {
    const { cache } = cached();
    const client = newClient();
    await cache.create(client);
    const found = (await cache.find(client.clientId)) as OAuthClient;
    expect(Object.isFrozen(found)).toBe(true);
    expect(() => found.grantTypes.push('authorization_code')).toThrow(TypeError);
    expect(() => found.scopes.push('admin')).toThrow(TypeError);
    expect((await cache.find(client.clientId))?.scopes).toEqual(['orders:read']);
  });

  it('keeps at most maxEntries clients, dropping the oldest', async () => {
    const { cache, reads } = cached({ maxEntries: 2 });
    const [a, b, c] = [newClient(), newClient(), newClient()];
    for (const client of [a, b, c]) await cache.create(client);
    for (const client of [a, b, c]) await cache.find(client.clientId);
    reads.length = 0;
    await cache.find(c.clientId);
    await cache.find(b.clientId);
    expect(reads).toEqual([]);
    await cache.find(a.clientId);
    expect(reads).toEqual([a.clientId]);
  });

  it('with a TTL of 0, reads every time', async () => {
    const { cache, reads } = cached({ ttlSeconds: 0 });
    const client = newClient();
    await cache.create(client);
    await cache.find(client.clientId);
    await cache.find(client.clientId);
    expect(reads).toHaveLength(2);
  });
});
