import type { Random } from '../crypto/random';
import type { User } from '../users/user';
import * as z from '../zod';
import { GetCommand, UpdateCommand } from './commands';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { type Key, keys } from './keys';
import { passkeyRemoval } from './passkeys';
import { parseRecord } from './records';
import { sessionRevocationItems } from './session-revocation';
import { TTL_ATTRIBUTE } from './table';
import { transactOnce, writeOnce } from './write-once';

/**
 * A one-time code of the account itself (docs/api.md 8.7, 8.8): a password reset code
 * or the code that verifies an email address. Only its keyed digest is stored.
 */
export const accountCodeSchema = z.object({
  tenantId: z.string(),
  /** The user the code is for; a reset asked for an unknown username names nobody. */
  userId: z.string(),
  /** Keyed digest of the code (lib/mfa/secret-box); removed when the code is used. */
  digest: z.optional(z.string()),
  /** Epoch seconds. */
  sentAt: z.number(),
  expiresAt: z.number(),
  /** Tries spent on this code, right or wrong. */
  tries: z.number().check(z.int(), z.nonnegative()),
  /** Where the code went (a reset), or the address it verifies (email verification). */
  destination: z.optional(z.string()),
});

export type AccountCode = z.output<typeof accountCodeSchema>;

/** Whose code: a reset is kept per username asked for, an email verification per user. */
export type AccountCodeKey =
  | { purpose: 'reset'; tenantId: string; username: string }
  | { purpose: 'verify-email'; tenantId: string; userId: string };

/** A code to store: its digest, when it was sent and expires, and where it went. */
export interface NewAccountCode {
  userId: string;
  digest: string;
  sentAt: number;
  expiresAt: number;
  destination?: string | undefined;
}

type UserRef = Pick<User, 'tenantId' | 'id' | 'sessionEpoch'>;

/** The account's one-time codes. Every "exactly once" is one conditional write or transaction. */
export interface AccountCodeStore {
  find(key: AccountCodeKey): Promise<AccountCode | undefined>;
  /**
   * Stores a new code in place of the last one (its tries start again), unless the last
   * one went out less than `resendSeconds` ago, or, with `keepOutstanding`, the last one
   * is still outstanding (not used, not expired, fewer than `maxTries` tries spent):
   * then false and nothing is written.
   */
  issue(key: AccountCodeKey, code: NewAccountCode, resendSeconds: number, keepOutstanding?: { maxTries: number }): Promise<boolean>;
  /**
   * Spends one try on the live code before it is checked, so concurrent guesses cannot
   * pass `maxTries`: the code as it is after the try, or undefined when there is no
   * live code (none, used, expired, or its tries spent).
   */
  spendTry(key: AccountCodeKey, now: number, maxTries: number): Promise<AccountCode | undefined>;
  /**
   * Uses a reset code (if its digest is still `digest`) and, in the same transaction,
   * sets the new password hash, revokes every session and grant of the user (as read)
   * and clears the login and reset attempts of `username`; with `removedPasskeyIds`, those
   * passkeys of the user are removed in it too (docs/api.md 8.7). False, with nothing
   * written, when the code was used meanwhile, the user changed since it was read, or one
   * of those passkeys is no longer the user's.
   */
  resetPassword(
    key: AccountCodeKey & { purpose: 'reset' },
    digest: string,
    now: number,
    user: UserRef,
    passwordHash: string,
    removedPasskeyIds?: readonly string[],
  ): Promise<boolean>;
  /**
   * Stores `email` on the user, unverified, and its verification code, in one
   * transaction; false (nothing written) when the last code went out less than
   * `resendSeconds` ago or the user is gone.
   */
  setEmail(user: UserRef, email: string, code: NewAccountCode, resendSeconds: number): Promise<boolean>;
  /**
   * Uses a verification code (if its digest is still `digest`) and marks the user's
   * email verified if it is still `email`, in one transaction; false otherwise.
   */
  verifyEmail(user: UserRef, digest: string, now: number, email: string): Promise<boolean>;
}

const keyOf = (key: AccountCodeKey): Key =>
  key.purpose === 'reset' ? keys.passwordReset(key.tenantId, key.username) : keys.emailVerification(key.tenantId, key.userId);

const toCode = (item: Record<string, unknown> | undefined) => parseRecord(accountCodeSchema, 'account code', item);

/** The write that stores a new code (an update: a transaction's first item must be one, lib/store/write-once). */
function issueUpdate(key: AccountCodeKey, code: NewAccountCode, resendSeconds: number, keepOutstanding?: { maxTries: number }) {
  const destination = code.destination === undefined ? '' : ', destination = :destination';
  // A used code has no digest left; an outstanding one has its digest, time and tries.
  const spent = keepOutstanding ? ' AND (attribute_not_exists(digest) OR expiresAt <= :sentAt OR tries >= :maxTries)' : '';
  return {
    Key: keyOf(key),
    UpdateExpression: `SET tenantId = :tenant, userId = :user, digest = :digest, sentAt = :sentAt, expiresAt = :expiresAt, tries = :zero, #ttl = :expiresAt${destination} REMOVE usedAt${destination ? '' : ', destination'}`,
    ConditionExpression: `attribute_not_exists(sentAt) OR (sentAt <= :resendBefore${spent})`,
    ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
    ExpressionAttributeValues: {
      ':tenant': key.tenantId,
      ':user': code.userId,
      ':digest': code.digest,
      ':sentAt': code.sentAt,
      ':expiresAt': code.expiresAt,
      ':zero': 0,
      ...(code.destination === undefined ? {} : { ':destination': code.destination }),
      ':resendBefore': code.sentAt - resendSeconds,
      ...(keepOutstanding ? { ':maxTries': keepOutstanding.maxTries } : {}),
    },
  };
}

/** The update that uses a code once. */
const useUpdate = (key: AccountCodeKey, digest: string, now: number) => ({
  Key: keyOf(key),
  UpdateExpression: 'SET usedAt = :now REMOVE digest',
  ConditionExpression: 'digest = :digest AND expiresAt > :now',
  ExpressionAttributeValues: { ':digest': digest, ':now': now },
});

export function dynamoAccountCodeStore(dynamo: Dynamo, random: Random): AccountCodeStore {
  const { doc, table } = dynamo;
  return {
    async find(key) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keyOf(key), ConsistentRead: true }));
      return toCode(Item);
    },

    issue: async (key, code, resendSeconds, keepOutstanding) =>
      (await writeOnce(dynamo, random, { update: issueUpdate(key, code, resendSeconds, keepOutstanding) })).written,

    async spendTry(key, now, maxTries) {
      // Not write-once: an SDK retry after a lost answer spends one try twice, which only
      // brings the end of the code one try nearer.
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keyOf(key),
            UpdateExpression: 'SET tries = tries + :one',
            ConditionExpression: 'attribute_exists(digest) AND expiresAt > :now AND tries < :max',
            ExpressionAttributeValues: { ':one': 1, ':now': now, ':max': maxTries },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toCode(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    resetPassword: (key, digest, now, user, passwordHash, removedPasskeyIds = []) =>
      transactOnce(dynamo, random, [
        { Update: { ...useUpdate(key, digest, now), TableName: table } },
        ...sessionRevocationItems(table, user, { set: { passwordHash } }),
        { Delete: { TableName: table, Key: keys.loginAttempts(key.tenantId, key.username) } },
        { Delete: { TableName: table, Key: keys.resetAttempts(key.tenantId, key.username) } },
        ...removedPasskeyIds.map((id) => ({ Update: passkeyRemoval(table, { tenantId: key.tenantId, userId: user.id, id }, now, true) })),
      ]),

    setEmail: (user, email, code, resendSeconds) =>
      transactOnce(dynamo, random, [
        {
          Update: {
            ...issueUpdate({ purpose: 'verify-email', tenantId: user.tenantId, userId: user.id }, code, resendSeconds),
            TableName: table,
          },
        },
        {
          Update: {
            TableName: table,
            Key: keys.user(user.tenantId, user.id),
            // The email index entry moves with the address (lib/store/table.ts).
            UpdateExpression: 'SET email = :email, emailVerified = :false, gsi2pk = :emailKey',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':email': email, ':false': false, ':emailKey': keys.userEmail(user.tenantId, email).gsi2pk },
          },
        },
      ]),

    verifyEmail: (user, digest, now, email) =>
      transactOnce(dynamo, random, [
        { Update: { ...useUpdate({ purpose: 'verify-email', tenantId: user.tenantId, userId: user.id }, digest, now), TableName: table } },
        {
          Update: {
            TableName: table,
            Key: keys.user(user.tenantId, user.id),
            UpdateExpression: 'SET emailVerified = :true',
            ConditionExpression: 'email = :email',
            ExpressionAttributeValues: { ':email': email, ':true': true },
          },
        },
      ]),
  };
}
