import type { Random } from '../crypto/random';
import { hashToken } from '../crypto/token-hash';
import { type Connection, federationRecords, type TenantDomain } from '../federation/connection';
import type { User } from '../users/user';
import * as z from '../zod';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from './commands';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { ownerIndexItems } from './owner-index';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import type { CreateUserResult, UserStore } from './users';
import { transactOnceOrReasons, writeOnce } from './write-once';

/*
 * What federation stores (docs/api.md 14): the tenants' connections and domains, the
 * identities linked to users, the sign-ins waiting for an identity provider, and the SAML
 * assertion ids already accepted.
 */

type Item = Record<string, unknown>;

/**
 * What an ADMIN may change of a connection (docs/api.md 14.1): everything but its id, type
 * and tenant, the fields of its type included (distributed over the union: `Omit` of a
 * union keeps only the keys both kinds share).
 */
export type ConnectionChange = (Connection extends infer C
  ? C extends Connection
    ? Partial<Omit<C, 'id' | 'type' | 'tenantId' | 'createdAt' | 'createdBy'>>
    : never
  : never) & { updatedAt: string };

export interface ConnectionStore {
  /** Stores a new connection: false if its id is taken (ids are random: not expected). */
  create(connection: Connection): Promise<boolean>;
  /** The connection (consistent read), of whatever tenant: the caller checks the tenant. */
  find(connectionId: string): Promise<Connection | undefined>;
  /** The tenant's connections, oldest first (the owner index: eventually consistent). */
  listByTenant(tenantId: string): Promise<Connection[]>;
  /** Applies `change` to the tenant's connection: the connection after it, undefined if it is not (or no longer) there. */
  update(connection: Pick<Connection, 'id' | 'tenantId'>, change: ConnectionChange): Promise<Connection | undefined>;
  /** Deletes the tenant's connection: false if it is not (or no longer) there. */
  delete(connection: Pick<Connection, 'id' | 'tenantId'>): Promise<boolean>;
}

/** Who holds a verified domain (docs/api.md 14.2). */
export interface DomainClaim {
  tenantId: string;
  verifiedAt: string;
}

export interface DomainStore {
  /** Adds a pending domain to its tenant: `exists` if the tenant has it already. */
  create(domain: TenantDomain): Promise<'created' | 'exists'>;
  find(tenantId: string, domain: string): Promise<TenantDomain | undefined>;
  /** The tenant's domains (consistent), in order of name. */
  listByTenant(tenantId: string): Promise<TenantDomain[]>;
  /**
   * Verifies the tenant's domain in one transaction: its record marked verified and the
   * domain's claim taken for the tenant (or kept, if it is the tenant's already).
   * `claimed`: another tenant holds it; `gone`: the tenant's domain was deleted meanwhile.
   */
  verify(domain: Pick<TenantDomain, 'tenantId' | 'domain'>, verifiedAt: string): Promise<'verified' | 'claimed' | 'gone'>;
  /**
   * Deletes the tenant's domain: its record and, in the same transaction, its claim if the
   * claim is the tenant's. False if the tenant has no such domain.
   */
  delete(tenantId: string, domain: string): Promise<boolean>;
  /** The tenant the domain is verified for (consistent), if any. */
  claimOf(domain: string): Promise<DomainClaim | undefined>;
}

/** A federated identity's link to a user (docs/api.md 14.3). */
export interface FederatedIdentityStore {
  /** The user the identity is linked to, if any. */
  find(tenantId: string, connectionId: string, subject: string): Promise<{ userId: string } | undefined>;
  /** Links the identity to the user: false if it is linked already (to whoever). */
  link(tenantId: string, connectionId: string, subject: string, userId: string, createdAt: string): Promise<boolean>;
  /**
   * Creates the user (UserStore.create) with the identity linked to it, in one transaction:
   * `refused` when the identity is linked already (a concurrent first sign-in).
   */
  createLinked(user: User, connectionId: string, subject: string): Promise<CreateUserResult>;
  /** Removes the link if it still names `userId` (a link to a deleted user). */
  unlink(tenantId: string, connectionId: string, subject: string, userId: string): Promise<void>;
}

/** A sign-in sent to an identity provider (docs/api.md 14.3), as stored; built on first use, as federationRecords. */
const buildRequestSchema = () =>
  z.object({
    /** The OIDC `state`, or the SAML AuthnRequest ID (and RelayState). Stored as its digest in the key only. */
    key: z.string(),
    tenantId: z.string(),
    connectionId: z.string(),
    /** The hosted interaction (docs/api.md 11.5) the sign-in continues. */
    interactionId: z.string(),
    /** The digest of the federation cookie's secret: the browser that set off is the one that comes back. */
    browserHash: z.string(),
    /** OIDC: the PKCE verifier and the nonce. */
    codeVerifier: z.optional(z.string()),
    nonce: z.optional(z.string()),
    /** Epoch seconds. */
    createdAt: z.number(),
    expiresAt: z.number(),
  });
let requestSchema: ReturnType<typeof buildRequestSchema> | undefined;
const federationRequestSchema = () => (requestSchema ??= buildRequestSchema());
export type FederationRequest = z.output<ReturnType<typeof buildRequestSchema>>;

export interface FederationRequestStore {
  create(request: FederationRequest): Promise<void>;
  /**
   * Takes the request for its one answer, in one conditional write: undefined when there
   * is none, it expired, or it was taken already (a replayed callback).
   */
  consume(key: string, now: number): Promise<FederationRequest | undefined>;
}

export interface SamlAssertionStore {
  /** Records the assertion id of the connection until `expiresAt`: true the first time, false for a replay. */
  accept(connectionId: string, assertionId: string, expiresAt: number): Promise<boolean>;
}

const toConnection = (item: Item | undefined) => parseRecord(federationRecords().connection, 'connection', item);
const toDomain = (item: Item | undefined) => parseRecord(federationRecords().tenantDomain, 'domain', item);
const toRequest = (item: Item | undefined) => parseRecord(federationRequestSchema(), 'federation request', item);

/** The SET clauses, names and values of an update of the attributes in `set`. */
function setting(set: Item) {
  const entries = Object.entries(set).filter(([, value]) => value !== undefined);
  return {
    clauses: entries.map((_, i) => `#f${i} = :f${i}`),
    names: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
    values: Object.fromEntries(entries.map(([, value], i) => [`:f${i}`, value])),
  };
}

export function dynamoConnectionStore(dynamo: Dynamo, random: Random): ConnectionStore {
  const { doc, table } = dynamo;
  return {
    async create(connection) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: {
            ...keys.connection(connection.id),
            ...keys.tenantConnection(connection.tenantId, connection.createdAt, connection.id),
            ...connection,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      return written;
    },

    async find(connectionId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.connection(connectionId), ConsistentRead: true }));
      return toConnection(Item);
    },

    async listByTenant(tenantId) {
      const connections: Connection[] = [];
      const items = ownerIndexItems(dynamo, {
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.tenantConnectionsPartition(tenantId) },
      });
      for await (const item of items) {
        const connection = toConnection(item);
        if (connection) connections.push(connection);
      }
      return connections;
    },

    async update(connection, change) {
      // An optional field set to undefined is removed (a role mapping dropped, say).
      const removed = Object.entries(change)
        .filter(([, value]) => value === undefined)
        .map(([name]) => name);
      const { clauses, names, values } = setting(change);
      const removals = removed.map((name, i) => [`#r${i}`, name] as const);
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.connection(connection.id),
            UpdateExpression: `SET ${clauses.join(', ')}${removals.length ? ` REMOVE ${removals.map(([alias]) => alias).join(', ')}` : ''}`,
            ConditionExpression: 'attribute_exists(pk) AND tenantId = :tenant',
            ExpressionAttributeNames: { ...names, ...Object.fromEntries(removals) },
            ExpressionAttributeValues: { ...values, ':tenant': connection.tenantId },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toConnection(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    async delete(connection) {
      try {
        await doc.send(
          new DeleteCommand({
            TableName: table,
            Key: keys.connection(connection.id),
            ConditionExpression: 'attribute_exists(pk) AND tenantId = :tenant',
            ExpressionAttributeValues: { ':tenant': connection.tenantId },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}

export function dynamoDomainStore(dynamo: Dynamo, random: Random): DomainStore {
  const { doc, table } = dynamo;
  const verifyOnce = async (tenantId: string, domain: string, verifiedAt: string) => {
    const outcome = await transactOnceOrReasons(dynamo, random, [
      {
        Update: {
          TableName: table,
          Key: keys.tenantDomain(tenantId, domain),
          UpdateExpression: 'SET #status = :verified, verifiedAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':verified': 'verified', ':at': verifiedAt },
        },
      },
      {
        Put: {
          TableName: table,
          Item: { ...keys.domainClaim(domain), domain, tenantId, verifiedAt },
          ConditionExpression: 'attribute_not_exists(pk) OR tenantId = :tenant',
          ExpressionAttributeValues: { ':tenant': tenantId },
        },
      },
    ]);
    if (outcome === true) return 'verified' as const;
    if (outcome[0] === 'ConditionalCheckFailed') return 'gone' as const;
    if (outcome[1] === 'ConditionalCheckFailed') return 'claimed' as const;
    return 'conflict' as const;
  };

  return {
    async create(domain) {
      const { written } = await writeOnce(dynamo, random, {
        put: { Item: { ...keys.tenantDomain(domain.tenantId, domain.domain), ...domain }, ConditionExpression: 'attribute_not_exists(pk)' },
      });
      return written ? 'created' : 'exists';
    },

    async find(tenantId, domain) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.tenantDomain(tenantId, domain), ConsistentRead: true }));
      return toDomain(Item);
    },

    async listByTenant(tenantId) {
      const domains: TenantDomain[] = [];
      let ExclusiveStartKey: Item | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.tenantDomainsPartition(tenantId) },
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const domain = toDomain(item);
          if (domain) domains.push(domain);
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return domains;
    },

    async verify({ tenantId, domain }, verifiedAt) {
      // A concurrent verification of the same domain (by this tenant or another) cancels
      // both transactions: try again, and the claim decides.
      for (let attempt = 1; ; attempt++) {
        const outcome = await verifyOnce(tenantId, domain, verifiedAt);
        if (outcome !== 'conflict') return outcome;
        if (attempt === 3) throw new Error('domain verification conflicted with concurrent writes');
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 30));
      }
    },

    async delete(tenantId, domain) {
      // One transaction (it may carry events, lib/events/outbox.ts): the record, and the claim if it is the tenant's.
      const { Item: claim } = await doc.send(new GetCommand({ TableName: table, Key: keys.domainClaim(domain), ConsistentRead: true }));
      const freeClaim = {
        Delete: {
          TableName: table,
          Key: keys.domainClaim(domain),
          ConditionExpression: 'tenantId = :tenant',
          ExpressionAttributeValues: { ':tenant': tenantId },
        },
      };
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: table, Key: keys.tenantDomain(tenantId, domain), ConditionExpression: 'attribute_exists(pk)' } },
              ...(claim?.tenantId === tenantId ? [freeClaim] : []),
            ],
          }),
        );
        return true;
      } catch (error) {
        // The record gone: deleted already. Only the claim changed since it was read: a concurrent change, 503.
        if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },

    async claimOf(domain) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.domainClaim(domain), ConsistentRead: true }));
      if (typeof Item?.tenantId !== 'string' || typeof Item.verifiedAt !== 'string') return undefined;
      return { tenantId: Item.tenantId, verifiedAt: Item.verifiedAt };
    },
  };
}

export function dynamoFederatedIdentityStore(dynamo: Dynamo, random: Random, users: UserStore): FederatedIdentityStore {
  const { doc, table } = dynamo;
  const keyOf = (tenantId: string, connectionId: string, subject: string) =>
    keys.federatedIdentity(tenantId, connectionId, hashToken(subject));
  // In the user's owner partition, so that deleting the user erases its links (TenantUserStore.eraseOwned).
  const ownerOf = (tenantId: string, connectionId: string, subject: string, userId: string, createdAt: string) =>
    keys.ownedBy(tenantId, userId, 'FEDID', Math.floor(Date.parse(createdAt) / 1000) || 0, `${connectionId}#${hashToken(subject)}`);
  return {
    async find(tenantId, connectionId, subject) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keyOf(tenantId, connectionId, subject), ConsistentRead: true }),
      );
      return typeof Item?.userId === 'string' ? { userId: Item.userId } : undefined;
    },

    async link(tenantId, connectionId, subject, userId, createdAt) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: {
            ...keyOf(tenantId, connectionId, subject),
            ...ownerOf(tenantId, connectionId, subject, userId, createdAt),
            tenantId,
            connectionId,
            userId,
            createdAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      return written;
    },

    createLinked(user, connectionId, subject) {
      const { tenantId, id: userId, createdAt } = user;
      const owner = ownerOf(tenantId, connectionId, subject, userId, createdAt);
      const link = {
        Update: {
          TableName: table,
          Key: keyOf(tenantId, connectionId, subject),
          UpdateExpression:
            'SET tenantId = :tenant, connectionId = :connection, userId = :user, createdAt = :at, gsi1pk = :owner, gsi1sk = :owned',
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeValues: {
            ':tenant': tenantId,
            ':connection': connectionId,
            ':user': userId,
            ':at': createdAt,
            ':owner': owner.gsi1pk,
            ':owned': owner.gsi1sk,
          },
        },
      };
      return users.create(user, { createTenant: false, consuming: [link] });
    },

    async unlink(tenantId, connectionId, subject, userId) {
      try {
        await doc.send(
          new DeleteCommand({
            TableName: table,
            Key: keyOf(tenantId, connectionId, subject),
            ConditionExpression: 'userId = :user',
            ExpressionAttributeValues: { ':user': userId },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },
  };
}

export function dynamoFederationRequestStore(dynamo: Dynamo, random: Random): FederationRequestStore {
  return {
    async create(request) {
      // The key itself is not stored: only its digest names the record, so a reader of the
      // table cannot answer for a pending sign-in (the caller of consume brings the key).
      const { key, ...stored } = request;
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: { ...keys.federationRequest(hashToken(key)), ...stored, [TTL_ATTRIBUTE]: request.expiresAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      // The key holds 256 random bits: another record under it is not possible.
      if (!written) throw new Error('Federation request key collision');
    },

    async consume(key, now) {
      const { written, item } = await writeOnce(dynamo, random, {
        update: {
          Key: keys.federationRequest(hashToken(key)),
          UpdateExpression: 'SET usedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now AND attribute_not_exists(usedAt)',
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'ALL_NEW',
        },
      });
      return written && item ? toRequest({ ...item, key }) : undefined;
    },
  };
}

export function dynamoSamlAssertionStore(dynamo: Dynamo, random: Random): SamlAssertionStore {
  return {
    async accept(connectionId, assertionId, expiresAt) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: { ...keys.samlAssertion(connectionId, hashToken(assertionId)), connectionId, [TTL_ATTRIBUTE]: expiresAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      return written;
    },
  };
}
