import type { Random } from '../crypto/random';
import type { User } from '../users/user';
import { userSchema } from '../users/user-record';
import { GetCommand, QueryCommand, TransactWriteCommand, type TransactWriteItem, UpdateCommand } from './commands';
import { type Dynamo, failedConditions, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { type RevokeSessionsOptions, sessionRevocationItems } from './session-revocation';
import { shopItem } from './shops';
import { EMAIL_INDEX } from './table';
import { ACTIVITY_KEPT } from './user-activity';
import { transactOnce, transactOnceOrReasons } from './write-once';

export type CreateUserResult = 'created' | 'username_taken' | 'tenant_exists' | 'external_id_taken' | 'refused' | 'conflict';

/**
 * What is written in the transaction that creates a user (an invitation consumed, docs/api.md
 * 13.1): its first item a conditional update, written once; the others alongside.
 */
export type ConsumedWith = [{ Update: NonNullable<TransactWriteItem['Update']> }, ...TransactWriteItem[]];

export interface UserStore {
  findById(tenantId: string, userId: string): Promise<User | undefined>;
  findByUsername(tenantId: string, username: string): Promise<User | undefined>;
  /**
   * The tenant's users whose email is `email` (regardless of case), from the email index
   * (lib/store/table.ts): eventually consistent, so for lookups, never a decision alone.
   * Addresses are not unique: several users may share one.
   */
  findByEmail(tenantId: string, email: string): Promise<User[]>;
  /** The user of a SCIM `externalId` in the tenant (docs/api.md 13.3), by its uniqueness record. */
  findByExternalId(tenantId: string, externalId: string): Promise<User | undefined>;
  /**
   * Stores a user and its username record in one transaction. With `createTenant`
   * the tenant record and its default shop (the user's) are created in the same
   * transaction and must not exist yet. A user with an `externalId` (SCIM, docs/api.md
   * 13.3) gets its uniqueness record in the same transaction. With `consuming`, its items
   * are written in the same transaction, the first once (lib/store/write-once.ts): `refused`
   * when its condition fails, `conflict` when a concurrent transaction touched one of the
   * items (the caller may try again).
   */
  create(user: User, options: { createTenant: boolean; consuming?: ConsumedWith }): Promise<CreateUserResult>;
  /** Replaces the password hash only if it is still `expected` (used to rehash on login). */
  replacePasswordHash(user: User, expected: string, next: string): Promise<boolean>;
  /**
   * Revokes every session and grant of the user in one step: moves the user's session
   * generation on (lib/users/user.ts), in one transaction with `set` (a new password
   * hash, a status) and, with `keepSessionId`, the move of that session (the caller's
   * own) to the new generation. False when the user is not as read (its generation or
   * existence changed meanwhile): the caller reads it again.
   */
  revokeSessions(user: Pick<User, 'tenantId' | 'id' | 'sessionEpoch'>, options?: RevokeSessionsOptions): Promise<boolean>;
}

export type { RevokeSessionsOptions } from './session-revocation';

/** A user id no user has (ids are UUIDs). */
const NO_USER = 'none';

const toUser = (item: Record<string, unknown> | undefined): User | undefined => parseRecord(userSchema, 'user', item);

export function dynamoUserStore(dynamo: Dynamo, random: Random): UserStore {
  const { doc, table } = dynamo;
  const findById = async (tenantId: string, userId: string) => {
    const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.user(tenantId, userId), ConsistentRead: true }));
    return toUser(Item);
  };

  return {
    findById,

    async findByUsername(tenantId, username) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.username(tenantId, username), ConsistentRead: true }));
      // An unknown username costs the same two reads as a known one, so that login
      // time does not tell whether a username exists.
      const found = await findById(tenantId, typeof Item?.userId === 'string' ? Item.userId : NO_USER);
      return Item ? found : undefined;
    },

    async findByExternalId(tenantId, externalId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.externalId(tenantId, externalId), ConsistentRead: true }),
      );
      if (typeof Item?.userId !== 'string') return undefined;
      const user = await findById(tenantId, Item.userId);
      return user?.externalId === externalId ? user : undefined;
    },

    async findByEmail(tenantId, email) {
      const users: User[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            IndexName: EMAIL_INDEX.name,
            KeyConditionExpression: '#pk = :email',
            ExpressionAttributeNames: { '#pk': EMAIL_INDEX.partitionKey },
            ExpressionAttributeValues: { ':email': keys.userEmail(tenantId, email).gsi2pk },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const user = toUser(item);
          if (user) users.push(user);
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return users;
    },

    async create(user, { createTenant, consuming }) {
      const items: Array<{ Put: { TableName: string; Item: Record<string, unknown>; ConditionExpression: string } }> = [
        {
          Put: {
            TableName: table,
            Item: { ...keys.username(user.tenantId, user.username), userId: user.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: table,
            Item: {
              ...keys.user(user.tenantId, user.id),
              ...keys.tenantUser(user.tenantId, user.createdAt, user.id),
              ...(user.email === undefined ? {} : keys.userEmail(user.tenantId, user.email)),
              ...user,
              [ACTIVITY_KEPT]: true,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ];
      if (createTenant) {
        items.push({
          Put: {
            TableName: table,
            Item: {
              ...keys.tenant(user.tenantId),
              tenantId: user.tenantId,
              createdAt: user.createdAt,
              createdBy: user.id,
              defaultShopId: user.shopId,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
        // The tenant's default shop (docs/api.md 9.7), the first user's; a new tenant has no shop yet.
        const shop = { tenantId: user.tenantId, shopId: user.shopId, name: user.shopId, createdAt: user.createdAt, createdBy: user.id };
        items.push({ Put: { TableName: table, Item: shopItem(shop), ConditionExpression: 'attribute_not_exists(pk)' } });
      }
      const externalIdAt = items.length;
      if (user.externalId !== undefined) {
        items.push({
          Put: {
            TableName: table,
            Item: { ...keys.externalId(user.tenantId, user.externalId), userId: user.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
      }
      if (consuming) {
        const [consumed, ...alongside] = consuming;
        const outcome = await transactOnceOrReasons(dynamo, random, [consumed, ...items, ...alongside]);
        if (outcome === true) return 'created';
        if (outcome.includes('TransactionConflict')) return 'conflict';
        if (outcome[0] === 'ConditionalCheckFailed') return 'refused';
        if (outcome[1] === 'ConditionalCheckFailed') return 'username_taken';
        if (user.externalId !== undefined && outcome[externalIdAt + 1] === 'ConditionalCheckFailed') return 'external_id_taken';
        throw new Error('user creation refused without a reason');
      }
      try {
        await doc.send(new TransactWriteCommand({ TransactItems: items }));
        return 'created';
      } catch (error) {
        const failed = failedConditions(error);
        if (failed?.[externalIdAt]) return 'external_id_taken';
        if (failed?.[2]) return 'tenant_exists';
        if (failed?.[0]) return 'username_taken';
        throw error;
      }
    },

    async replacePasswordHash(user, expected, next) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.user(user.tenantId, user.id),
            UpdateExpression: 'SET passwordHash = :next',
            ConditionExpression: 'passwordHash = :expected',
            ExpressionAttributeValues: { ':next': next, ':expected': expected },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    revokeSessions: (user, options) => transactOnce(dynamo, random, sessionRevocationItems(table, user, options)),
  };
}
