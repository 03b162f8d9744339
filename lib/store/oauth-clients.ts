import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Random } from '../crypto/random';
import { type OAuthClient, oauthClientSchema } from '../oauth/client';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { writeOnce } from './write-once';

export interface OAuthClientStore {
  /** Stores a new client in one conditional write: `exists` if its id is taken, in any tenant. */
  create(client: OAuthClient): Promise<'created' | 'exists'>;
  /** The client, or undefined; the record is frozen (it may be shared by concurrent requests). */
  find(clientId: string): Promise<OAuthClient | undefined>;
  /**
   * Replaces the secret hash with `next` (the same secret under the current pepper) in one
   * conditional write, only while it is `expected`: false if it changed meanwhile (or the
   * client is gone), so a concurrent secret change is never overwritten.
   */
  replaceSecretHash(clientId: string, expected: string, next: string): Promise<boolean>;
}

/** How long a Lambda instance reuses a client record it has read (README, performance). */
export const CLIENT_CACHE_SECONDS = 60;

export interface ClientCacheOptions {
  /** How long a found client is reused; 0 turns the cache off. */
  ttlSeconds: number;
  clock: Clock;
  /** The most clients one instance keeps; the oldest entry makes room. */
  maxEntries: number;
}

/** The cache of every instance; the clock comes with the deps. */
export const CLIENT_CACHE: Omit<ClientCacheOptions, 'clock'> = { ttlSeconds: CLIENT_CACHE_SECONDS, maxEntries: 1000 };

function toClient(item: Record<string, unknown> | undefined): OAuthClient | undefined {
  const client = parseRecord(oauthClientSchema, 'OAuth client', item);
  if (!client) return undefined;
  for (const list of [client.redirectUris, client.grantTypes, client.scopes, client.resources]) Object.freeze(list);
  return Object.freeze(client);
}

/**
 * Client records kept per Lambda instance for `ttlSeconds`, so the token endpoint
 * (client_credentials on every service-to-service call) does not read the table for
 * each request. This is safe because a client record never changes: there is no
 * route that updates or deletes a client (docs/api.md 4.8 only creates them), so the
 * TTL bounds only how long an operator's direct edit of the table takes to be seen.
 * - The cache holds the stored record with its secret *hash*: the presented secret is
 *   still checked against it on every request (client-auth.ts), so a cached client
 *   never accepts a wrong secret.
 * - A lookup that finds nothing, or fails, is not kept: a client registered a moment
 *   later (here or on another instance) is found on the next request. Concurrent
 *   lookups of one id share the read in flight.
 * - A known client answered from memory is faster than an unknown one read from the
 *   table; client ids are not secrets (RFC 6749 2.2), the secrets are compared in
 *   constant time either way.
 */
export function cachedOAuthClientStore(store: OAuthClientStore, options: ClientCacheOptions): OAuthClientStore {
  if (options.ttlSeconds <= 0) return store;
  const entries = new Map<string, { client: Promise<OAuthClient | undefined>; until: number }>();
  return {
    async create(client) {
      entries.delete(client.clientId);
      return store.create(client);
    },
    find(clientId) {
      const now = options.clock.now();
      const hit = entries.get(clientId);
      if (hit && hit.until > now) return hit.client;
      entries.delete(clientId);
      if (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      const entry = { client: store.find(clientId), until: now + options.ttlSeconds * 1000 };
      entries.set(clientId, entry);
      const forget = () => {
        if (entries.get(clientId) === entry) entries.delete(clientId);
      };
      entry.client.then((found) => found || forget(), forget);
      return entry.client;
    },
    async replaceSecretHash(clientId, expected, next) {
      entries.delete(clientId);
      return store.replaceSecretHash(clientId, expected, next);
    },
  };
}

/** The DynamoDB client store, with the per-instance cache of `cachedOAuthClientStore` (pass `ttlSeconds: 0` for none). */
export function dynamoOAuthClientStore(dynamo: Dynamo, random: Random, cache: ClientCacheOptions): OAuthClientStore {
  const { doc, table } = dynamo;
  return cachedOAuthClientStore(
    {
      async create(client) {
        const { written } = await writeOnce(dynamo, random, {
          put: { Item: { ...keys.oauthClient(client.clientId), ...client }, ConditionExpression: 'attribute_not_exists(pk)' },
        });
        return written ? 'created' : 'exists';
      },

      async find(clientId) {
        const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.oauthClient(clientId), ConsistentRead: true }));
        return toClient(Item);
      },

      async replaceSecretHash(clientId, expected, next) {
        try {
          await doc.send(
            new UpdateCommand({
              TableName: table,
              Key: keys.oauthClient(clientId),
              UpdateExpression: 'SET secretHash = :next',
              ConditionExpression: 'secretHash = :expected',
              ExpressionAttributeValues: { ':next': next, ':expected': expected },
            }),
          );
          return true;
        } catch (error) {
          if (isConditionalCheckFailed(error)) return false;
          throw error;
        }
      },
    },
    cache,
  );
}
