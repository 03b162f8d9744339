import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CODE_TTL_SECONDS, RESEND_INTERVAL_SECONDS } from '../mfa/codes';
import type { MfaOutbox, OutboxMessage } from '../mfa/delivery';
import type { MfaEnrollment, MfaMethod } from '../mfa/methods';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';

/** A method never verified is forgotten after a day. */
export const PENDING_KEPT_SECONDS = 24 * 3600;

export type EnrollResult =
  | { outcome: 'enrolled' }
  | { outcome: 'already_active' }
  /** The last code of this method went out less than RESEND_INTERVAL_SECONDS ago. */
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface IssuedCode {
  digest: string;
  /** Epoch seconds. */
  sentAt: number;
  expiresAt: number;
}

/** The MFA methods of users. Every "exactly once" is one conditional write. */
export interface MfaStore {
  /** Every method of a user, pending and active. */
  list(tenantId: string, userId: string): Promise<MfaEnrollment[]>;
  find(tenantId: string, userId: string, method: MfaMethod): Promise<MfaEnrollment | undefined>;
  /**
   * Stores a method as pending. It replaces a pending enrollment of the same method,
   * never an active one, and not one whose code went out less than 30 s ago.
   */
  enroll(enrollment: MfaEnrollment, now: number): Promise<EnrollResult>;
  /** Gives a method a fresh one-time code unless one went out less than 30 s ago and was not used (then false). */
  issueCode(tenantId: string, userId: string, method: MfaMethod, code: IssuedCode): Promise<boolean>;
  /**
   * Consumes the outstanding code if its digest is `digest` and it has not expired,
   * and activates the method: of concurrent uses of one code exactly one gets true.
   */
  consumeCode(tenantId: string, userId: string, method: MfaMethod, digest: string, now: number): Promise<boolean>;
  /**
   * Records `step` as the last accepted TOTP time step if it is later than the last
   * one (and the secret is still `sealedSecret`), and activates the method: of
   * concurrent uses of one code exactly one gets true (RFC 6238 5.2).
   */
  acceptTimeStep(tenantId: string, userId: string, sealedSecret: string, step: number, now: number): Promise<boolean>;
  /** Invalidates the outstanding code of a method (the lockout does). */
  dropCode(tenantId: string, userId: string, method: MfaMethod): Promise<void>;
}

const METHOD_PREFIX = 'METHOD#';

function toEnrollment(item: Record<string, unknown> | undefined): MfaEnrollment | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, lastUseId: _use, ...enrollment } = item;
  return enrollment as unknown as MfaEnrollment;
}

export function dynamoMfaStore({ doc, table }: Dynamo): MfaStore {
  /** A conditional write: false if its condition failed, unless `ours` recognises the item it met as its own result. */
  const conditional = async (write: () => Promise<unknown>, ours?: (old: Record<string, unknown> | undefined) => boolean): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return ours?.(oldItemOf(error)) ?? false;
      throw error;
    }
  };
  /**
   * A one-time use (a code, a time step) in one conditional write that marks it with
   * an id random per call. When the SDK retries the write because its answer was lost
   * after DynamoDB applied it, the retry fails its condition against its own result:
   * the id tells that apart from a use by another request, which stays refused.
   */
  const usedOnce = async (write: (useId: string) => Promise<unknown>): Promise<boolean> => {
    const useId = randomUUID();
    try {
      await write(useId);
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return oldItemOf(error)?.lastUseId === useId;
      throw error;
    }
  };

  return {
    async list(tenantId, userId) {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :methods)',
          ExpressionAttributeValues: { ':pk': keys.mfaPartition(tenantId, userId), ':methods': METHOD_PREFIX },
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).map((item) => toEnrollment(item) as MfaEnrollment);
    },

    async find(tenantId, userId, method) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.mfaMethod(tenantId, userId, method), ConsistentRead: true }),
      );
      return toEnrollment(Item);
    },

    async enroll(enrollment, now) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...keys.mfaMethod(enrollment.tenantId, enrollment.userId, enrollment.method),
              ...enrollment,
              [TTL_ATTRIBUTE]: now + PENDING_KEPT_SECONDS,
            },
            ConditionExpression:
              'attribute_not_exists(pk) OR (#status = :pending AND (attribute_not_exists(codeSentAt) OR codeSentAt <= :resendBefore))',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pending': 'pending', ':resendBefore': now - RESEND_INTERVAL_SECONDS },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { outcome: 'enrolled' };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        const item = oldItemOf(error);
        // This write, applied on an attempt whose answer was lost (the SDK retried it): a
        // sealed secret (random IV) or a code digest (random code) no other call stores.
        const sealed = 'sealedSecret' in enrollment ? enrollment.sealedSecret : undefined;
        const digest = 'codeDigest' in enrollment ? enrollment.codeDigest : undefined;
        if (item && ((sealed && item.sealedSecret === sealed) || (digest && item.codeDigest === digest))) return { outcome: 'enrolled' };
        const old = toEnrollment(item);
        if (old?.status === 'active') return { outcome: 'already_active' };
        const sentAt = old && 'codeSentAt' in old ? (old.codeSentAt ?? now) : now;
        return { outcome: 'throttled', retryAfterSeconds: sentAt + RESEND_INTERVAL_SECONDS - now };
      }
    },

    issueCode: (tenantId, userId, method, { digest, sentAt, expiresAt }) =>
      // A retried write that meets its own result (the digest of a random code) issued it.
      conditional(
        () =>
          doc.send(
            new UpdateCommand({
              TableName: table,
              Key: keys.mfaMethod(tenantId, userId, method),
              UpdateExpression: 'SET codeDigest = :digest, codeExpiresAt = :expiresAt, codeSentAt = :sentAt',
              // At most one code per 30 s. Using a code (consumeCode) forgets when it was
              // sent, so the next may go at once; a code dropped by the lockout does not.
              ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(codeSentAt) OR codeSentAt <= :resendBefore)',
              ExpressionAttributeValues: {
                ':digest': digest,
                ':expiresAt': expiresAt,
                ':sentAt': sentAt,
                ':resendBefore': sentAt - RESEND_INTERVAL_SECONDS,
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          ),
        (old) => old?.codeDigest === digest,
      ),

    consumeCode: (tenantId, userId, method, digest, now) =>
      usedOnce((useId) =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.mfaMethod(tenantId, userId, method),
            UpdateExpression:
              'SET #status = :active, activatedAt = if_not_exists(activatedAt, :now), lastUseId = :use REMOVE codeDigest, codeExpiresAt, codeSentAt, #ttl',
            ConditionExpression: 'codeDigest = :digest AND codeExpiresAt > :now',
            ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':active': 'active', ':now': now, ':digest': digest, ':use': useId },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      ),

    acceptTimeStep: (tenantId, userId, sealedSecret, step, now) =>
      usedOnce((useId) =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.mfaMethod(tenantId, userId, 'TOTP'),
            UpdateExpression: 'SET lastTimeStep = :step, #status = :active, activatedAt = if_not_exists(activatedAt, :now), lastUseId = :use REMOVE #ttl',
            ConditionExpression: 'sealedSecret = :sealed AND (attribute_not_exists(lastTimeStep) OR lastTimeStep < :step)',
            ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':step': step, ':active': 'active', ':now': now, ':sealed': sealedSecret, ':use': useId },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      ),

    async dropCode(tenantId, userId, method) {
      await conditional(() =>
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.mfaMethod(tenantId, userId, method),
            UpdateExpression: 'REMOVE codeDigest, codeExpiresAt',
            ConditionExpression: 'attribute_exists(pk)',
          }),
        ),
      );
    },
  };
}

/**
 * The local outbox (lib/mfa/delivery): the last code per user and method, in the
 * clear, under the user's tenant, deleted by TTL when the code expires. Local only.
 */
export function dynamoMfaOutbox({ doc, table }: Dynamo): MfaOutbox {
  return {
    async put(message) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            ...keys.mfaOutbox(message.tenantId, message.userId, message.method),
            ...message,
            [TTL_ATTRIBUTE]: message.sentAt + CODE_TTL_SECONDS,
          },
        }),
      );
    },

    async latest(tenantId, userId, method) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.mfaOutbox(tenantId, userId, method), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...message } = Item;
      return message as OutboxMessage;
    },
  };
}
