import type { Random } from '../crypto/random';
import { MFA_METHODS } from '../mfa/methods';
import { epochOf, type Role, type User } from '../users/user';
import { userSchema } from '../users/user-record';
import * as z from '../zod';
import { QueryCommand, TransactWriteCommand } from './commands';
import { deleteKeys } from './delete-keys';
import { cancellationCodes, type Dynamo } from './dynamo';
import { readIndexPage } from './index-page';
import { type IndexPosition, keys } from './keys';
import { ownerIndexItems } from './owner-index';
import { parseRecord } from './records';
import { OWNER_INDEX } from './table';
import { activityFields, activityOf, type UserActivity } from './user-activity';
import { transactOnce } from './write-once';

/** A user as the tenant administration lists it: the stored user and what the account helper may add. */
export const listedUserSchema = z.extend(userSchema, { emailVerified: z.optional(z.boolean()), ...activityFields });
export type ListedUser = z.output<typeof listedUserSchema>;

/** Where a page of a tenant's users starts: after this user of the index (docs/api.md 9.1). */
export type UserPosition = IndexPosition;

export interface UserFilter {
  role?: Role | undefined;
  status?: User['status'] | undefined;
  /**
   * Part of the username or of the email address, in any case (after NFKC): the tenant
   * console's search (docs/api.md 15.3.1).
   */
  search?: string | undefined;
}

/** Text as the search compares it: NFKC, then lower case. */
const folded = (text: string) => text.normalize('NFKC').toLowerCase();

/** Whether the user's username or email holds the search (UserFilter.search). */
function matchesSearch(user: ListedUser, search: string | undefined): boolean {
  if (search === undefined) return true;
  const needle = folded(search);
  return folded(user.username).includes(needle) || (user.email !== undefined && folded(user.email).includes(needle));
}

/** What an ADMIN may change of a user (docs/api.md 9.3). */
export type UserChange = Partial<Pick<User, 'role' | 'shopId' | 'status'>>;

/**
 * What a SCIM client changes besides (docs/api.md 13.3): its attributes as sent, null to
 * remove one. Written only if the user's `version` is still the one read, and moves it on.
 */
export type ProfileChange = {
  [K in 'externalId' | 'displayName' | 'name' | 'emails' | 'email' | 'emailVerified' | 'scimGroups']?: User[K] | null;
} & { updatedAt: string };

/**
 * The tenant-level view of users that the administration needs, on the tenant index
 * (`gsi1`, partition `keys.tenantUsersPartition`). Users written before the index
 * attributes existed are not in it (docs/guides/tenant-admins.md).
 */
export interface TenantUserStore {
  /** Up to `limit` users matching `filter`, oldest first, after `after`; `next` when there may be more. */
  list(
    tenantId: string,
    options: UserFilter & { limit: number; after?: UserPosition | undefined },
  ): Promise<{ users: ListedUser[]; next?: UserPosition }>;
  /** How many users the tenant index holds (docs/api.md 13.3: a SCIM list's `totalResults`). */
  count(tenantId: string): Promise<number>;
  /** Up to 3 ids of active ADMINs of the tenant other than `exceptId`, from the index (eventually consistent: candidates only). */
  otherActiveAdmins(tenantId: string, exceptId: string): Promise<string[]>;
  /** Epoch seconds of the user's newest session (the last sign-in), if any. */
  lastSessionAt(tenantId: string, userId: string): Promise<number | undefined>;
  /**
   * The activity of each of `users` as listed (lib/store/user-activity.ts); a user written
   * before activity was kept may hold any method, and their newest session is found by a query.
   */
  activities(tenantId: string, users: ListedUser[]): Promise<UserActivity[]>;
  /**
   * Applies `set` to the user as read (same session generation), with `revoke` also ending
   * every session and grant, and with `guardAdminId` in the same transaction the check that
   * this user is still an active ADMIN. False when any of that no longer holds: read again.
   */
  change(
    user: User,
    set: UserChange,
    options: { revoke: boolean; guardAdminId?: string | undefined; profile?: ProfileChange | undefined },
  ): Promise<boolean>;
  /**
   * Deletes the profile and username record of the user as read, in one transaction with the
   * check that `guardAdminId` is an active ADMIN. False when that no longer holds.
   */
  erase(user: User, guardAdminId?: string): Promise<boolean>;
  /** Deletes every MFA record, session and grant of the user (idempotent). */
  eraseOwned(tenantId: string, userId: string): Promise<void>;
  /** Deletes every MFA record of the user (methods, codes, counters; idempotent). */
  eraseMfa(tenantId: string, userId: string): Promise<void>;
}

export function dynamoTenantUserStore(dynamo: Dynamo, random: Random): TenantUserStore {
  const { doc, table } = dynamo;

  const guard = (tenantId: string, adminId: string) => ({
    ConditionCheck: {
      TableName: table,
      Key: keys.user(tenantId, adminId),
      ConditionExpression: '#role = :admin AND #status = :active',
      ExpressionAttributeNames: { '#role': 'role', '#status': 'status' },
      ExpressionAttributeValues: { ':admin': 'ADMIN', ':active': 'active' },
    },
  });

  /** Deletes a user's externalId record, if it is still theirs. */
  const dropExternalId = (tenantId: string, externalId: string, userId: string) => ({
    Delete: {
      TableName: table,
      Key: keys.externalId(tenantId, externalId),
      ConditionExpression: 'attribute_not_exists(pk) OR userId = :owner',
      ExpressionAttributeValues: { ':owner': userId },
    },
  });

  const sameGeneration = (user: User) => ({
    ConditionExpression:
      epochOf(user) === 0
        ? 'attribute_exists(pk) AND (attribute_not_exists(sessionEpoch) OR sessionEpoch = :current)'
        : 'sessionEpoch = :current',
    current: epochOf(user),
  });

  async function keysOf(query: { pk: string; index?: boolean; prefix?: string }): Promise<Array<Record<string, unknown>>> {
    const found: Array<Record<string, unknown>> = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: table,
          ...(query.index ? { IndexName: OWNER_INDEX.name } : {}),
          KeyConditionExpression: query.prefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
          ExpressionAttributeNames: query.index
            ? { '#pk': OWNER_INDEX.partitionKey, ...(query.prefix ? { '#sk': OWNER_INDEX.sortKey } : {}) }
            : { '#pk': 'pk', ...(query.prefix ? { '#sk': 'sk' } : {}) },
          ExpressionAttributeValues: { ':pk': query.pk, ...(query.prefix ? { ':prefix': query.prefix } : {}) },
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) found.push({ pk: item.pk, sk: item.sk });
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return found;
  }

  async function lastSessionAt(tenantId: string, userId: string): Promise<number | undefined> {
    const { Items } = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :kind)',
        ExpressionAttributeNames: { '#pk': OWNER_INDEX.partitionKey, '#sk': OWNER_INDEX.sortKey },
        ExpressionAttributeValues: { ':pk': keys.ownerPartition(tenantId, userId), ':kind': 'SESSION#' },
        ScanIndexForward: false,
        Limit: 1,
        ProjectionExpression: 'createdAt',
      }),
    );
    const createdAt = Items?.[0]?.createdAt;
    return typeof createdAt === 'number' ? createdAt : undefined;
  }

  const eraseMfa = async (tenantId: string, userId: string) =>
    deleteKeys(dynamo, await keysOf({ pk: keys.mfaPartition(tenantId, userId) }));

  return {
    async list(tenantId, { limit, after, role, status, search }) {
      const filters = [...(role ? ['#role = :role'] : []), ...(status ? ['#status = :status'] : [])];
      // A search is matched here (DynamoDB's `contains` knows no case), after any filter.
      const { entries, next } = await readIndexPage(dynamo, {
        kind: 'USER',
        partition: keys.tenantUsersPartition(tenantId),
        start: after && { ...keys.user(tenantId, after.id), ...keys.tenantUser(tenantId, after.createdAt, after.id) },
        limit,
        filter:
          filters.length === 0
            ? undefined
            : {
                FilterExpression: filters.join(' AND '),
                ExpressionAttributeNames: { ...(role ? { '#role': 'role' } : {}), ...(status ? { '#status': 'status' } : {}) },
                ExpressionAttributeValues: { ...(role ? { ':role': role } : {}), ...(status ? { ':status': status } : {}) },
              },
        entryOf: (item) => {
          const user = parseRecord(listedUserSchema, 'user', item);
          return user && matchesSearch(user, search) ? user : undefined;
        },
        filtersItself: search !== undefined,
      });
      return next ? { users: entries, next } : { users: entries };
    },

    async count(tenantId) {
      let total = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            IndexName: OWNER_INDEX.name,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': OWNER_INDEX.partitionKey },
            ExpressionAttributeValues: { ':pk': keys.tenantUsersPartition(tenantId) },
            Select: 'COUNT',
            ExclusiveStartKey,
          }),
        );
        total += page.Count ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return total;
    },

    async otherActiveAdmins(tenantId, exceptId) {
      const found: string[] = [];
      const admins = ownerIndexItems(dynamo, {
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: '#role = :admin AND #status = :active AND id <> :except',
        ExpressionAttributeNames: { '#role': 'role', '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': keys.tenantUsersPartition(tenantId),
          ':admin': 'ADMIN',
          ':active': 'active',
          ':except': exceptId,
        },
        ProjectionExpression: 'id',
      });
      for await (const item of admins) {
        if (typeof item.id === 'string') found.push(item.id);
        // A few candidates are enough: the transaction that needs one checks it.
        if (found.length >= 3) break;
      }
      return found;
    },

    lastSessionAt,

    activities: (tenantId, users) =>
      Promise.all(
        users.map(
          async (user) => activityOf(user) ?? { mfaMethods: [...MFA_METHODS], lastSessionAt: await lastSessionAt(tenantId, user.id) },
        ),
      ),

    async change(user, set, { revoke, guardAdminId, profile }) {
      const generation = sameGeneration(user);
      const version = user.version ?? 0;
      // A SCIM change applies to the user as read, attributes and all: one at a time (docs/api.md 13.3).
      // What it sets is still as read: its events tell of the change from that (a previous role), once.
      const asRead = Object.keys(set).map((name, i) => ({ name, value: user[name as keyof UserChange], i }));
      const unchanged = asRead.map(({ i }) => ` AND #w${i} = :w${i}`).join('');
      const ConditionExpression = profile
        ? `${generation.ConditionExpression}${unchanged} AND ${version === 0 ? '(attribute_not_exists(version) OR version = :version)' : 'version = :version'}`
        : `${generation.ConditionExpression}${unchanged}`;
      const { current } = generation;
      // The email index entry follows the email (docs/api.md 13).
      const emailIndex =
        profile?.email === undefined ? {} : { gsi2pk: profile.email === null ? null : keys.userEmail(user.tenantId, profile.email).gsi2pk };
      const all = {
        ...set,
        ...(revoke ? { sessionEpoch: current + 1 } : {}),
        ...(profile ? { ...profile, ...emailIndex, version: version + 1 } : {}),
      };
      const removed = Object.entries(all).flatMap(([name, value]) => (value === null ? [name] : []));
      const changes = Object.entries(all).filter(([, value]) => value !== undefined && value !== null);
      // Users created before the tenant index get its attributes with their first change.
      const index = keys.tenantUser(user.tenantId, user.createdAt, user.id);
      changes.push(['gsi1pk', index.gsi1pk], ['gsi1sk', index.gsi1sk]);
      const items: Parameters<typeof transactOnce>[2] = [
        {
          Update: {
            TableName: table,
            Key: keys.user(user.tenantId, user.id),
            UpdateExpression: `SET ${changes.map((_, i) => `#f${i} = :f${i}`).join(', ')}${
              removed.length > 0 ? ` REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}` : ''
            }`,
            ConditionExpression,
            ExpressionAttributeNames: {
              ...Object.fromEntries(changes.map(([name], i) => [`#f${i}`, name])),
              ...Object.fromEntries(removed.map((name, i) => [`#r${i}`, name])),
              ...Object.fromEntries(asRead.map(({ name, i }) => [`#w${i}`, name])),
            },
            ExpressionAttributeValues: {
              ...Object.fromEntries(changes.map(([, value], i) => [`:f${i}`, value])),
              ...Object.fromEntries(asRead.map(({ value, i }) => [`:w${i}`, value])),
              ':current': current,
              ...(profile ? { ':version': version } : {}),
            },
          },
        },
      ];
      if (guardAdminId !== undefined) items.push(guard(user.tenantId, guardAdminId));
      // The externalId's uniqueness record moves with it (docs/api.md 13.3).
      if (profile?.externalId !== undefined && profile.externalId !== user.externalId) {
        if (user.externalId !== undefined) items.push(dropExternalId(user.tenantId, user.externalId, user.id));
        if (profile.externalId !== null) {
          items.push({
            Put: {
              TableName: table,
              Item: { ...keys.externalId(user.tenantId, profile.externalId), userId: user.id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          });
        }
      }
      return transactOnce(dynamo, random, items);
    },

    async erase(user, guardAdminId) {
      const { ConditionExpression, current } = sameGeneration(user);
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: table,
                  Key: keys.user(user.tenantId, user.id),
                  ConditionExpression,
                  ExpressionAttributeValues: { ':current': current },
                },
              },
              {
                Delete: {
                  TableName: table,
                  Key: keys.username(user.tenantId, user.username),
                  ConditionExpression: 'attribute_not_exists(pk) OR userId = :id',
                  ExpressionAttributeValues: { ':id': user.id },
                },
              },
              ...(guardAdminId !== undefined ? [guard(user.tenantId, guardAdminId)] : []),
              ...(user.externalId !== undefined ? [dropExternalId(user.tenantId, user.externalId, user.id)] : []),
            ],
          }),
        );
        return true;
      } catch (error) {
        const reasons = cancellationCodes(error);
        if (reasons?.includes('ConditionalCheckFailed') || reasons?.includes('TransactionConflict')) return false;
        throw error;
      }
    },

    async eraseOwned(tenantId, userId) {
      await eraseMfa(tenantId, userId);
      const owned = await keysOf({ pk: keys.ownerPartition(tenantId, userId), index: true });
      await deleteKeys(dynamo, owned);
    },

    eraseMfa,
  };
}
