import type { Random } from '../crypto/random';
import { type Ceremony, type Challenge, challengeSchema, type Passkey, passkeySchema, REMOVED_KEPT_SECONDS } from '../passkeys/passkey';
import { DeleteCommand, GetCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { listOwned, ownerIndexItems } from './owner-index';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { writeOnce } from './write-once';

/** Passkeys and their challenges (docs/api.md 12). Every "exactly once" is one conditional write. */
export interface PasskeyStore {
  /** Stores a fresh challenge (256 random bits: never taken). */
  createChallenge(challenge: Challenge): Promise<void>;
  /**
   * Uses a challenge of `ceremony` in the tenant if it is unused and not expired: of
   * concurrent uses exactly one gets it, every other (and every replay) undefined.
   */
  consumeChallenge(tenantId: string, challenge: string, ceremony: Ceremony, now: number): Promise<Challenge | undefined>;
  /** Registers a passkey unless its credential is registered in the tenant already (then false). */
  register(passkey: Passkey): Promise<boolean>;
  /** The passkey (consistent read), undefined if there is none or it was removed. */
  find(tenantId: string, id: string): Promise<Passkey | undefined>;
  /** A user's passkeys, newest first (the owner index: eventually consistent, for listings). */
  listByUser(tenantId: string, userId: string): Promise<Passkey[]>;
  /**
   * Records a sign-in: the new counter and `lastUsedAt`, only while the passkey is still
   * the user's, not removed, and its counter still the one read (false otherwise).
   */
  recordUse(passkey: Passkey, counter: number, now: number): Promise<boolean>;
  /** Removes the user's passkey: the passkey as it was, undefined if the user has no such passkey. */
  remove(tenantId: string, userId: string, id: string, now: number): Promise<Passkey | undefined>;
  /** Deletes every passkey of the user (the admin MFA reset; idempotent). */
  eraseAll(tenantId: string, userId: string): Promise<void>;
}

const toPasskey = (item: Record<string, unknown> | undefined) => parseRecord(passkeySchema, 'passkey', item);
const live = (passkey: Passkey | undefined) => (passkey?.removedAt === undefined ? passkey : undefined);

/**
 * The update that removes a user's passkey: out of the owner index at once; the record
 * itself goes with its TTL. Only a live passkey of the user, unless `alreadyRemoved` is
 * allowed (then a removed one keeps its first removal): the password reset removes the
 * passkeys it listed in its transaction (lib/store/account-codes.ts), and a passkey the
 * user removed meanwhile must not fail it.
 */
export function passkeyRemoval(
  table: string,
  passkey: { tenantId: string; userId: string; id: string },
  now: number,
  alreadyRemoved = false,
) {
  return {
    TableName: table,
    Key: keys.passkey(passkey.tenantId, passkey.id),
    UpdateExpression: alreadyRemoved
      ? 'SET removedAt = if_not_exists(removedAt, :now), #ttl = if_not_exists(#ttl, :ttl) REMOVE gsi1pk, gsi1sk'
      : 'SET removedAt = :now, #ttl = :ttl REMOVE gsi1pk, gsi1sk',
    ConditionExpression: alreadyRemoved ? 'userId = :user' : 'userId = :user AND attribute_not_exists(removedAt)',
    ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
    ExpressionAttributeValues: { ':now': now, ':ttl': now + REMOVED_KEPT_SECONDS, ':user': passkey.userId },
  };
}

export function dynamoPasskeyStore(dynamo: Dynamo, random: Random): PasskeyStore {
  const { doc, table } = dynamo;
  return {
    async createChallenge(challenge) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: { ...keys.webauthnChallenge(challenge.tenantId, challenge.challenge), ...challenge, [TTL_ATTRIBUTE]: challenge.expiresAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      if (!written) throw new Error('WebAuthn challenge collision');
    },

    async consumeChallenge(tenantId, challenge, ceremony, now) {
      const { written, item } = await writeOnce(dynamo, random, {
        update: {
          Key: keys.webauthnChallenge(tenantId, challenge),
          UpdateExpression: 'SET usedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND ceremony = :ceremony AND expiresAt > :now AND attribute_not_exists(usedAt)',
          ExpressionAttributeValues: { ':now': now, ':ceremony': ceremony },
          ReturnValues: 'ALL_NEW',
        },
      });
      return written ? parseRecord(challengeSchema, 'WebAuthn challenge', item) : undefined;
    },

    async register(passkey) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: {
            ...keys.passkey(passkey.tenantId, passkey.id),
            ...keys.ownedBy(passkey.tenantId, passkey.userId, 'PASSKEY', passkey.createdAt, passkey.id),
            ...passkey,
          },
          // A removed passkey's record waits for its TTL: its credential may come back meanwhile.
          ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(removedAt)',
        },
      });
      return written;
    },

    async find(tenantId, id) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.passkey(tenantId, id), ConsistentRead: true }));
      return live(toPasskey(Item));
    },

    async listByUser(tenantId, userId) {
      return listOwned(dynamo, { tenantId, userId, kind: 'PASSKEY' }, (item) => live(toPasskey(item)));
    },

    async recordUse(passkey, counter, now) {
      const { written } = await writeOnce(dynamo, random, {
        update: {
          Key: keys.passkey(passkey.tenantId, passkey.id),
          UpdateExpression: 'SET #counter = :counter, lastUsedAt = :now',
          ConditionExpression: 'userId = :user AND #counter = :read AND attribute_not_exists(removedAt)',
          ExpressionAttributeNames: { '#counter': 'counter' },
          ExpressionAttributeValues: { ':counter': counter, ':now': now, ':user': passkey.userId, ':read': passkey.counter },
        },
      });
      return written;
    },

    async remove(tenantId, userId, id, now) {
      const { written, item } = await writeOnce(dynamo, random, {
        update: { ...passkeyRemoval(table, { tenantId, userId, id }, now), ReturnValues: 'ALL_NEW' },
      });
      return written ? toPasskey(item) : undefined;
    },

    async eraseAll(tenantId, userId) {
      const items = ownerIndexItems(dynamo, {
        KeyConditionExpression: '#pk = :owner AND begins_with(#sk, :kind)',
        ExpressionAttributeValues: { ':owner': keys.ownerPartition(tenantId, userId), ':kind': 'PASSKEY#' },
      });
      for await (const item of items) {
        const passkey = toPasskey(item);
        if (passkey) await doc.send(new DeleteCommand({ TableName: table, Key: keys.passkey(tenantId, passkey.id) }));
      }
    },
  };
}
