import { type Clock, epochSeconds } from '../clock';
import type { Random } from '../crypto/random';
import { type OAuthClient, oauthClientSchema } from '../oauth/client';
import { GetCommand, UpdateCommand } from './commands';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { ownerIndexItems } from './owner-index';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { writeOnce } from './write-once';

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
  >
>;

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
  /** Applies `change` to the tenant's client; undefined when it is not (or no longer) there. */
  update(
    client: Pick<OAuthClient, 'clientId' | 'tenantId' | 'createdAt'>,
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
  delete(client: Pick<OAuthClient, 'clientId' | 'tenantId'>, at: { deletedAt: string; reservedUntil: number }): Promise<boolean>;
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

/** The SET clauses, names and values of an update of the attributes in `set`. */
function setting(set: Record<string, unknown>) {
  const entries = Object.entries(set).filter(([, value]) => value !== undefined);
  return {
    clauses: entries.map((_, i) => `#f${i} = :f${i}`),
    names: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
    values: Object.fromEntries(entries.map(([, value], i) => [`:f${i}`, value])),
  };
}

/** Still the tenant's, and not deleted. */
const OF_TENANT = 'attribute_exists(pk) AND tenantId = :tenant AND attribute_not_exists(deletedAt)';

/**
 * The DynamoDB client store. There is no per-instance cache: a deletion or a retired
 * secret must count on the next request in every instance (docs/api.md 9.12, 9.13), and
 * checking that a cached copy is still current costs the same one read as the record
 * itself (docs/decisions/004-no-client-cache.md).
 */
export function dynamoOAuthClientStore(dynamo: Dynamo, random: Random, clock: Clock): OAuthClientStore {
  const { doc, table } = dynamo;
  const index = (client: Pick<OAuthClient, 'clientId' | 'tenantId' | 'createdAt'>) =>
    keys.tenantClient(client.tenantId, client.createdAt, client.clientId);
  return {
    async create(client) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: { ...keys.oauthClient(client.clientId), ...index(client), ...client },
          // A deleted client's id is free again once its reservation ended, also before DynamoDB removed the record.
          ConditionExpression: 'attribute_not_exists(pk) OR (attribute_exists(deletedAt) AND #ttl < :now)',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': epochSeconds(clock) },
        },
      });
      return written ? 'created' : 'exists';
    },

    async find(clientId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.oauthClient(clientId), ConsistentRead: true }));
      return toClient(Item);
    },

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

    async update(client, change, updatedAt) {
      // Clients registered before the tenant index get its attributes with their first change.
      const { clauses, names, values } = setting({ ...change, updatedAt, ...index(client) });
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.oauthClient(client.clientId),
            UpdateExpression: `SET ${clauses.join(', ')}`,
            ConditionExpression: OF_TENANT,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values, ':tenant': client.tenantId },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toClient(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
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
      return written;
    },
  };
}
