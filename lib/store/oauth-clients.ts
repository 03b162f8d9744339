import { type Clock, epochSeconds } from '../clock';
import type { Random } from '../crypto/random';
import { type OAuthClient, oauthClientSchema } from '../oauth/client';
import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from './commands';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { ownerIndexItems } from './owner-index';
import { readTogether } from './read-together';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { transactOnceOrReasons, writeOnce } from './write-once';

/** What an ADMIN may change of a client (docs/api.md 9.11). */
export type ClientChange = Partial<
  Pick<
    OAuthClient,
    | 'redirectUris'
    | 'grantTypes'
    | 'scopes'
    | 'clientName'
    | 'firstParty'
    | 'postLogoutRedirectUris'
    | 'idTokenSignedResponseAlg'
    | 'dpopBoundAccessTokens'
    | 'allowedOrigins'
    | 'backchannelLogoutSessionRequired'
  >
> & {
  /** docs/api.md 17.3: null removes it. */
  backchannelLogoutUri?: string | null | undefined;
};

/** A new secret (docs/api.md 9.13): its hash, and the old hash with the end of its life, or none to retire it at once. */
export interface SecretRotation {
  secretHash: string;
  previous?: { secretHash: string; expiresAt: number } | undefined;
  updatedAt: string;
}

/** Which of a client's two secrets a hash belongs to. */
export type SecretSlot = 'current' | 'previous';

export interface OAuthClientStore {
  /**
   * Stores a new client in one conditional write: `exists` if its id is taken, in any
   * tenant, also by a deleted client whose id is still reserved.
   */
  create(client: OAuthClient): Promise<'created' | 'exists'>;
  /** The client, or undefined (also once deleted); one strongly consistent read, never a cached copy. */
  find(clientId: string): Promise<OAuthClient | undefined>;
  /**
   * Replaces the hash of a secret with `next` (the same secret under the current pepper)
   * in one conditional write, only while that slot still holds `expected`: false if it
   * changed meanwhile (a rotation, a deletion), so a rotation is never overwritten and a
   * retired secret never comes back.
   */
  replaceSecretHash(clientId: string, expected: string, next: string, slot?: SecretSlot): Promise<boolean>;
  /** The tenant's clients, oldest first, from the owner index (eventually consistent: a listing). */
  listByTenant(tenantId: string): Promise<OAuthClient[]>;
  /**
   * Whether a live client of any tenant lists `origin` among its allowed origins
   * (docs/api.md 16.2): the origin index names the candidates, the clients decide.
   */
  listsOrigin(origin: string): Promise<boolean>;
  /**
   * Applies `change` to the tenant's client; undefined when it is not (or no longer)
   * there. `client.allowedOrigins` is the list as read, which a change of the origins replaces.
   */
  update(
    client: Pick<OAuthClient, 'clientId' | 'tenantId' | 'createdAt' | 'allowedOrigins'>,
    change: ClientChange,
    updatedAt: string,
  ): Promise<OAuthClient | undefined>;
  /**
   * Replaces the secret of the client as read, in one conditional write that recognises
   * itself after a lost answer: the client after it; `changed` when its secret changed
   * meanwhile (read again); `gone` when it is not (or no longer) there.
   */
  rotateSecret(client: OAuthClient, rotation: SecretRotation): Promise<OAuthClient | 'changed' | 'gone'>;
  /**
   * Deletes the tenant's client, leaving a record that keeps its id taken until
   * `reservedUntil` (epoch seconds) and that no lookup finds: false when it is not (or no
   * longer) there.
   */
  delete(
    client: Pick<OAuthClient, 'clientId' | 'tenantId' | 'allowedOrigins'>,
    at: { deletedAt: string; reservedUntil: number },
  ): Promise<boolean>;
}

/** A deleted client's record: no lookup finds it; it keeps the id taken until its TTL. */
const isDeleted = (item: Record<string, unknown> | undefined) => item?.deletedAt !== undefined;

function toClient(item: Record<string, unknown> | undefined): OAuthClient | undefined {
  if (isDeleted(item)) return undefined;
  const client = parseRecord(oauthClientSchema, 'OAuth client', item);
  if (!client) return undefined;
  for (const list of [client.redirectUris, client.grantTypes, client.scopes, client.resources]) Object.freeze(list);
  return Object.freeze(client);
}

/** The SET clauses, names and values of an update of the attributes in `set`; those set to null are removed (`removals`). */
function setting(set: Record<string, unknown>) {
  const entries = Object.entries(set).filter(([, value]) => value !== undefined && value !== null);
  const removed = Object.entries(set).flatMap(([name, value]) => (value === null ? [name] : []));
  return {
    clauses: entries.map((_, i) => `#f${i} = :f${i}`),
    removals: removed.map((_, i) => `#r${i}`),
    names: Object.fromEntries([...entries.map(([name], i) => [`#f${i}`, name]), ...removed.map((name, i) => [`#r${i}`, name])]),
    values: Object.fromEntries(entries.map(([, value], i) => [`:f${i}`, value])),
  };
}

/** Still the tenant's, and not deleted. */
const OF_TENANT = 'attribute_exists(pk) AND tenantId = :tenant AND attribute_not_exists(deletedAt)';

/** How many clients listing one origin a CORS check reads at most (one BatchGetItem). */
const ORIGIN_CANDIDATES = 100;

/**
 * The DynamoDB client store. The origin index (docs/api.md 16.2, `keys.corsOrigin`) gains a
 * client in the transaction that makes the client list the origin, and loses it only in
 * a transaction conditioned on the client not listing it: so the index names at least
 * every client that lists an origin, never fewer, and a check reads the clients it names. There is no per-instance cache: a deletion or a retired
 * secret must count on the next request in every instance (docs/api.md 9.12, 9.13), and
 * checking that a cached copy is still current costs the same one read as the record
 * itself (docs/decisions/004-no-client-cache.md).
 */
export function dynamoOAuthClientStore(dynamo: Dynamo, random: Random, clock: Clock): OAuthClientStore {
  const { doc, table } = dynamo;
  const index = (client: Pick<OAuthClient, 'clientId' | 'tenantId' | 'createdAt'>) =>
    keys.tenantClient(client.tenantId, client.createdAt, client.clientId);
  /** Takes the client out of each origin's entry, each only while the client (live) does not list it. */
  const unindexOrigins = (clientId: string, origins: readonly string[]) =>
    Promise.all(
      origins.map(async (origin) => {
        try {
          await doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  ConditionCheck: {
                    TableName: table,
                    Key: keys.oauthClient(clientId),
                    ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(deletedAt) OR NOT contains(allowedOrigins, :origin)',
                    ExpressionAttributeValues: { ':origin': origin },
                  },
                },
                {
                  Update: {
                    TableName: table,
                    Key: keys.corsOrigin(origin),
                    UpdateExpression: 'DELETE clientIds :id',
                    ExpressionAttributeValues: { ':id': new Set([clientId]) },
                  },
                },
              ],
            }),
          );
        } catch (error) {
          // Listed again meanwhile (or a concurrent write): the entry stays, as it must.
          if (!cancellationCodes(error)) throw error;
        }
      }),
    );

  /** The client's record changed (one conditional write), or undefined when it is not (or no longer) the tenant's. */
  const read = readTogether(dynamo);
  const findClient = async (clientId: string) => toClient(await read(keys.oauthClient(clientId), { consistent: true }));
  /** The update of a client's record for `change`, only while it is the tenant's. */
  const recordUpdate = (client: Pick<OAuthClient, 'clientId' | 'tenantId' | 'createdAt'>, change: ClientChange, updatedAt: string) => {
    // Clients registered before the tenant index get its attributes with their first change.
    const { clauses, removals, names, values } = setting({ ...change, updatedAt, ...index(client) });
    return {
      TableName: table,
      Key: keys.oauthClient(client.clientId),
      UpdateExpression: `SET ${clauses.join(', ')}${removals.length ? ` REMOVE ${removals.join(', ')}` : ''}`,
      ConditionExpression: OF_TENANT,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':tenant': client.tenantId },
    };
  };
  /** The index entry of `origin` gains the client: one item of the transaction that makes the client list it. */
  const originEntry = (clientId: string, origin: string) => ({
    Update: {
      TableName: table,
      Key: keys.corsOrigin(origin),
      UpdateExpression: 'ADD clientIds :id',
      ExpressionAttributeValues: { ':id': new Set([clientId]) },
    },
  });

  return {
    async create(client) {
      // A deleted client's id is free again once its reservation ended, also before DynamoDB removed the record.
      const free = 'attribute_not_exists(pk) OR (attribute_exists(deletedAt) AND #ttl < :now)';
      if (client.allowedOrigins.length === 0) {
        const { written } = await writeOnce(dynamo, random, {
          put: {
            Item: { ...keys.oauthClient(client.clientId), ...index(client), ...client },
            ConditionExpression: free,
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':now': epochSeconds(clock) },
          },
        });
        return written ? 'created' : 'exists';
      }
      // With origins: the client and its index entries in one transaction (docs/api.md 16.2), so
      // a refused registration (a taken id) writes nothing. The record is written whole by an
      // update, which also clears what a deleted client's reservation left.
      const { clauses, names, values } = setting({ ...index(client), ...client });
      const outcome = await transactOnceOrReasons(dynamo, random, [
        {
          Update: {
            TableName: table,
            Key: keys.oauthClient(client.clientId),
            UpdateExpression: `SET ${clauses.join(', ')} REMOVE deletedAt, #ttl`,
            ConditionExpression: free,
            ExpressionAttributeNames: { ...names, '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ...values, ':now': epochSeconds(clock) },
          },
        },
        ...client.allowedOrigins.map((origin) => originEntry(client.clientId, origin)),
      ]);
      if (outcome === true) return 'created';
      if (outcome[0] === 'ConditionalCheckFailed') return 'exists';
      throw Object.assign(new Error('client registration conflicted'), { name: 'TransactionConflictException' });
    },

    find: findClient,

    async replaceSecretHash(clientId, expected, next, slot = 'current') {
      const attribute = slot === 'current' ? 'secretHash' : 'previousSecretHash';
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.oauthClient(clientId),
            UpdateExpression: 'SET #hash = :next',
            ConditionExpression: '#hash = :expected',
            ExpressionAttributeNames: { '#hash': attribute },
            ExpressionAttributeValues: { ':next': next, ':expected': expected },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async listByTenant(tenantId) {
      const clients: OAuthClient[] = [];
      const items = ownerIndexItems(dynamo, {
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.tenantClientsPartition(tenantId) },
      });
      for await (const item of items) {
        const client = toClient(item);
        if (client) clients.push(client);
      }
      return clients;
    },

    async listsOrigin(origin) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.corsOrigin(origin), ConsistentRead: true }));
      const candidates = Item?.clientIds instanceof Set ? [...(Item.clientIds as Set<string>)].slice(0, ORIGIN_CANDIDATES) : [];
      if (candidates.length === 0) return false;
      const { Responses, UnprocessedKeys } = await doc.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: candidates.map((clientId) => keys.oauthClient(clientId)),
              ProjectionExpression: 'allowedOrigins, deletedAt',
            },
          },
        }),
      );
      const lists = (Responses?.[table] ?? []).some(
        (item) => !isDeleted(item) && Array.isArray(item.allowedOrigins) && item.allowedOrigins.includes(origin),
      );
      if (!lists && Object.keys(UnprocessedKeys ?? {}).length > 0)
        throw Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ThrottlingException' });
      return lists;
    },

    async update(client, change, updatedAt) {
      const update = recordUpdate(client, change, updatedAt);
      const origins = change.allowedOrigins;
      if (origins === undefined) {
        try {
          return toClient((await doc.send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }))).Attributes);
        } catch (error) {
          if (isConditionalCheckFailed(error)) return undefined;
          throw error;
        }
      }
      // The client lists its new origins in the same transaction that puts it in their index
      // entries: a concurrent change's clean-up can never take out an origin listed meanwhile.
      const items = [{ Update: update }, ...origins.map((origin) => originEntry(client.clientId, origin))];
      let outcome = await transactOnceOrReasons(dynamo, random, items);
      // Another change of the client or of an origin's entry at the same moment: try again, a few times.
      for (let attempt = 1; outcome !== true && outcome.includes('TransactionConflict') && attempt < 5; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
        outcome = await transactOnceOrReasons(dynamo, random, items);
      }
      if (outcome !== true) {
        if (outcome[0] === 'ConditionalCheckFailed') return undefined;
        throw Object.assign(new Error('origin change kept conflicting'), { name: 'TransactionConflictException' });
      }
      await unindexOrigins(
        client.clientId,
        client.allowedOrigins.filter((origin) => !origins.includes(origin)),
      );
      return findClient(client.clientId);
    },

    async rotateSecret(client, rotation) {
      const { previous } = rotation;
      const { clauses, names, values } = setting({
        secretHash: rotation.secretHash,
        previousSecretHash: previous?.secretHash,
        previousSecretExpiresAt: previous?.expiresAt,
        updatedAt: rotation.updatedAt,
        ...index(client),
      });
      const { written, item } = await writeOnce(dynamo, random, {
        update: {
          Key: keys.oauthClient(client.clientId),
          UpdateExpression: `SET ${clauses.join(', ')}${previous ? '' : ' REMOVE previousSecretHash, previousSecretExpiresAt'}`,
          ConditionExpression: `${OF_TENANT} AND secretHash = :expected`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':tenant': client.tenantId, ':expected': client.secretHash },
          ReturnValues: 'ALL_NEW',
        },
      });
      if (written) return toClient(item) ?? 'gone';
      return item === undefined || isDeleted(item) || item.tenantId !== client.tenantId ? 'gone' : 'changed';
    },

    async delete(client, { deletedAt, reservedUntil }) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          // Replaces the whole record: no secret hash stays, and the index entry goes with it.
          Item: {
            ...keys.oauthClient(client.clientId),
            clientId: client.clientId,
            tenantId: client.tenantId,
            deletedAt,
            [TTL_ATTRIBUTE]: reservedUntil,
          },
          ConditionExpression: OF_TENANT,
          ExpressionAttributeValues: { ':tenant': client.tenantId },
        },
      });
      // The record (deleted) lists no origin any more: its index entries go after it.
      if (written) await unindexOrigins(client.clientId, client.allowedOrigins);
      return written;
    },
  };
}
