import { randomUUID } from 'node:crypto';
import type { Random } from '../crypto/random';
import { CODE_TTL_SECONDS, RESEND_INTERVAL_SECONDS } from '../mfa/codes';
import type { DeliveryMessage, MfaOutbox } from '../mfa/delivery';
import { enrollmentSchema, type MfaEnrollment, type MfaMethod, type SecondFactor } from '../mfa/methods';
import { outboxCodeSchema, outboxEmailSchema, outboxNotificationSchema } from '../mfa/outbox-records';
import { type RecoveryCodes, recoveryCodesSchema } from '../mfa/recovery-codes';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from './commands';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { readTogether } from './read-together';
import { parseRecord } from './records';
import { type SessionRevocation, sessionRevocationItems } from './session-revocation';
import { TTL_ATTRIBUTE } from './table';
import { methodEnrolled } from './user-activity';
import { type OnceWrite, transactOnce, writeOnce } from './write-once';

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
  /**
   * For each user, those of `methods` they hold, pending and active, in the order `list`
   * gives: all by key, strongly consistent, in one BatchGetItem per 100 methods, all at once.
   */
  listOf(tenantId: string, wanted: Array<{ userId: string; methods: readonly MfaMethod[] }>): Promise<MfaEnrollment[][]>;
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
   * `revoking`: the user's sessions and grants revoked in the same transaction, or
   * nothing written (false) when the user changed since it was read.
   */
  consumeCode(
    tenantId: string,
    userId: string,
    method: MfaMethod,
    digest: string,
    now: number,
    revoking?: SessionRevocation,
  ): Promise<boolean>;
  /**
   * Records `step` as the last accepted TOTP time step if it is later than the last
   * one (and the secret is still `sealedSecret`), and activates the method: of
   * concurrent uses of one code exactly one gets true (RFC 6238 5.2). `revoking` as for consumeCode.
   */
  acceptTimeStep(
    tenantId: string,
    userId: string,
    sealedSecret: string,
    step: number,
    now: number,
    revoking?: SessionRevocation,
  ): Promise<boolean>;
  /** Invalidates the outstanding code of a method (the lockout does). */
  dropCode(tenantId: string, userId: string, method: MfaMethod): Promise<void>;
  /** Counts one more wrong code of a method or of the recovery codes (a right one, used, clears the count); the count after it. */
  countFailedCode(tenantId: string, userId: string, method: SecondFactor): Promise<number>;
  /**
   * Removes an active method (docs/api.md 8.6) in one transaction with a check that each
   * of `othersActive` is still active; with none left, the recovery codes go too. False
   * (nothing written) when the method is no longer active or another is not.
   */
  disable(tenantId: string, userId: string, method: MfaMethod, othersActive: MfaMethod[]): Promise<boolean>;
  /** The user's recovery codes, if a set was generated. */
  recoveryCodes(tenantId: string, userId: string): Promise<RecoveryCodes | undefined>;
  /**
   * Stores a new set of recovery codes in place of any earlier one, in one transaction
   * with a check that `activeMethod` is still active: false (nothing written) if not.
   */
  replaceRecoveryCodes(
    tenantId: string,
    userId: string,
    codes: { digests: string[]; generatedAt: number },
    activeMethod: MfaMethod,
  ): Promise<boolean>;
  /** Uses the recovery code whose digest is `digest`: of concurrent uses of one code exactly one gets true. */
  useRecoveryCode(tenantId: string, userId: string, digest: string, now: number): Promise<boolean>;
}

const METHOD_PREFIX = 'METHOD#';

/** The conditional update of a one-time use (a code, a TOTP time step). */
interface UsedOnceUpdate {
  Key: { pk: string; sk: string };
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

const toEnrollment = (item: Record<string, unknown> | undefined) => parseRecord(enrollmentSchema, 'MFA method', item);

/** The record that counts a factor's wrong codes: the method's, or the recovery codes'. */
const factorKey = (tenantId: string, userId: string, factor: SecondFactor) =>
  factor === 'RECOVERY' ? keys.mfaRecoveryCodes(tenantId, userId) : keys.mfaMethod(tenantId, userId, factor);
/** The condition of a transaction item on a method that must be active. */
const isActive = {
  ConditionExpression: '#status = :active',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':active': 'active' },
};

export function dynamoMfaStore(dynamo: Dynamo, random: Random): MfaStore {
  const { doc, table } = dynamo;
  /**
   * A one-time use (a code, a time step) or issue (a code) in one conditional write:
   * false if its condition failed against another request's write (lib/store/write-once).
   */
  const once = async (write: OnceWrite) => (await writeOnce(dynamo, random, write)).written;
  /** A one-time use, alone or in one transaction with the revocation of the user's sessions. */
  const usedOnce = (update: UsedOnceUpdate, revoking?: SessionRevocation) =>
    revoking
      ? transactOnce(dynamo, random, [
          { Update: { ...update, TableName: table } },
          ...sessionRevocationItems(table, revoking.user, revoking),
        ])
      : once({ update });

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
      return (Items ?? []).flatMap((item) => toEnrollment(item) ?? []);
    },

    async listOf(tenantId, wanted) {
      // `list` queries the partition, which sorts by key: METHOD#EMAIL, METHOD#SMS, METHOD#TOTP.
      // Every read is asked in this turn, so they go as one BatchGetItem per 100 keys (lib/store/read-together.ts).
      const read = readTogether(dynamo);
      return Promise.all(
        wanted.map(async ({ userId, methods }) => {
          const items = await Promise.all(
            [...methods].sort().map((method) => read(keys.mfaMethod(tenantId, userId, method), { consistent: true })),
          );
          return items.flatMap((item) => toEnrollment(item) ?? []);
        }),
      );
    },

    async find(tenantId, userId, method) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.mfaMethod(tenantId, userId, method), ConsistentRead: true }),
      );
      return toEnrollment(Item);
    },

    async enroll(enrollment, now) {
      const { written, item } = await writeOnce(dynamo, random, {
        put: {
          Item: {
            ...keys.mfaMethod(enrollment.tenantId, enrollment.userId, enrollment.method),
            ...enrollment,
            [TTL_ATTRIBUTE]: now + PENDING_KEPT_SECONDS,
          },
          ConditionExpression:
            'attribute_not_exists(pk) OR (#status = :pending AND (attribute_not_exists(codeSentAt) OR codeSentAt <= :resendBefore))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending', ':resendBefore': now - RESEND_INTERVAL_SECONDS },
        },
        alongside: [methodEnrolled(table, enrollment)],
      });
      if (written) return { outcome: 'enrolled' };
      const old = toEnrollment(item);
      if (old?.status === 'active') return { outcome: 'already_active' };
      const sentAt = old && 'codeSentAt' in old ? (old.codeSentAt ?? now) : now;
      return { outcome: 'throttled', retryAfterSeconds: sentAt + RESEND_INTERVAL_SECONDS - now };
    },

    issueCode: (tenantId, userId, method, { digest, sentAt, expiresAt }) =>
      once({
        update: {
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
        },
      }),

    consumeCode: (tenantId, userId, method, digest, now, revoking) =>
      usedOnce(
        {
          Key: keys.mfaMethod(tenantId, userId, method),
          UpdateExpression:
            'SET #status = :active, activatedAt = if_not_exists(activatedAt, :now), lastUsedAt = :now REMOVE codeDigest, codeExpiresAt, codeSentAt, failedCodes, #ttl',
          ConditionExpression: 'codeDigest = :digest AND codeExpiresAt > :now',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':active': 'active', ':now': now, ':digest': digest },
        },
        revoking,
      ),

    acceptTimeStep: (tenantId, userId, sealedSecret, step, now, revoking) =>
      usedOnce(
        {
          Key: keys.mfaMethod(tenantId, userId, 'TOTP'),
          UpdateExpression:
            'SET lastTimeStep = :step, #status = :active, activatedAt = if_not_exists(activatedAt, :now), lastUsedAt = :now REMOVE failedCodes, #ttl',
          ConditionExpression: 'sealedSecret = :sealed AND (attribute_not_exists(lastTimeStep) OR lastTimeStep < :step)',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':step': step, ':active': 'active', ':now': now, ':sealed': sealedSecret },
        },
        revoking,
      ),

    async countFailedCode(tenantId, userId, method) {
      // Not write-once: an SDK retry after a lost answer counts one wrong code twice, which
      // only brings the lock (100 in a row) one code nearer.
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: factorKey(tenantId, userId, method),
          UpdateExpression: 'ADD failedCodes :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return typeof Attributes?.failedCodes === 'number' ? Attributes.failedCodes : 0;
    },

    async disable(tenantId, userId, method, othersActive) {
      const others = othersActive.map((other) => ({
        ConditionCheck: { TableName: table, Key: keys.mfaMethod(tenantId, userId, other), ...isActive },
      }));
      // The last active method takes the recovery codes with it: they would be a second
      // factor without a first to stand in for.
      const recovery = othersActive.length === 0 ? [{ Delete: { TableName: table, Key: keys.mfaRecoveryCodes(tenantId, userId) } }] : [];
      try {
        // The SDK retries a transaction whose answer was lost with the same client request
        // token, which DynamoDB answers as the first time (idempotent for 10 minutes).
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: table, Key: keys.mfaMethod(tenantId, userId, method), ...isActive } },
              ...others,
              ...recovery,
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

    async recoveryCodes(tenantId, userId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.mfaRecoveryCodes(tenantId, userId), ConsistentRead: true }),
      );
      return parseRecord(recoveryCodesSchema, 'recovery codes', Item);
    },

    replaceRecoveryCodes: (tenantId, userId, { digests, generatedAt }, activeMethod) =>
      transactOnce(dynamo, random, [
        {
          Update: {
            TableName: table,
            Key: keys.mfaRecoveryCodes(tenantId, userId),
            // Every field set anew: an earlier set, its use and its wrong codes are forgotten.
            UpdateExpression:
              'SET #method = :recovery, tenantId = :tenantId, userId = :userId, digests = :digests, generatedAt = :generatedAt REMOVE lastUsedAt, failedCodes',
            ExpressionAttributeNames: { '#method': 'method' },
            ExpressionAttributeValues: {
              ':recovery': 'RECOVERY',
              ':tenantId': tenantId,
              ':userId': userId,
              ':digests': new Set(digests),
              ':generatedAt': generatedAt,
            },
          },
        },
        {
          ConditionCheck: {
            TableName: table,
            Key: keys.mfaMethod(tenantId, userId, activeMethod),
            ...isActive,
          },
        },
      ]),

    useRecoveryCode: (tenantId, userId, digest, now) =>
      once({
        update: {
          Key: keys.mfaRecoveryCodes(tenantId, userId),
          UpdateExpression: 'SET lastUsedAt = :now REMOVE failedCodes DELETE digests :used',
          ConditionExpression: 'contains(digests, :digest)',
          ExpressionAttributeValues: { ':now': now, ':used': new Set([digest]), ':digest': digest },
        },
      }),

    async dropCode(tenantId, userId, method) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.mfaMethod(tenantId, userId, method),
            UpdateExpression: 'REMOVE codeDigest, codeExpiresAt',
            ConditionExpression: 'attribute_exists(pk)',
          }),
        );
      } catch (error) {
        // No such method: there is no code to drop.
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },
  };
}

/** Notifications stay in the local outbox for a day. */
const NOTICES_KEPT_SECONDS = 24 * 3600;
/** The notifications `npm run outbox` and tests read back. */
const NOTICES_LISTED = 20;

/**
 * The local outbox (lib/mfa/delivery): the last code per user, method and purpose, in
 * the clear, under the user's tenant, deleted by TTL when the code expires; and the
 * user's notifications of the last day. Local only.
 */
export function dynamoMfaOutbox({ doc, table }: Dynamo): MfaOutbox {
  /**
   * Every email by its address, as `npm run outbox -- --email` prints it: in the order
   * sent, also within one second (the real time of the write breaks ties; tests freeze the clock).
   */
  const putEmail = async (message: DeliveryMessage & { sentAt: number }) => {
    const { subject, text } =
      'notification' in message
        ? message.notification
        : { subject: `Code (${message.purpose ?? 'mfa'})`, text: `${message.code} is your code (${message.purpose ?? 'mfa'}).` };
    const item = { destination: message.destination, subject, text, sentAt: message.sentAt };
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: {
          ...keys.outboxAddress(message.destination, message.sentAt, `${String(Date.now()).padStart(15, '0')}#${randomUUID()}`),
          ...item,
          [TTL_ATTRIBUTE]: message.sentAt + NOTICES_KEPT_SECONDS,
        },
      }),
    );
  };
  return {
    async put(message) {
      if (message.method === 'EMAIL') await putEmail(message);
      // An invitation goes to someone without an account: kept by address only.
      if ('invitationId' in message) return;
      const notice = 'notification' in message;
      const key = notice
        ? keys.outboxNotification(message.tenantId, message.userId, message.sentAt, message.notification.event)
        : keys.mfaOutbox(message.tenantId, message.userId, message.purpose ? `${message.method}#${message.purpose}` : message.method);
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...key, ...message, [TTL_ATTRIBUTE]: message.sentAt + (notice ? NOTICES_KEPT_SECONDS : CODE_TTL_SECONDS) },
        }),
      );
    },

    async latest(tenantId, userId, method, purpose = 'mfa') {
      const key = keys.mfaOutbox(tenantId, userId, purpose === 'mfa' ? method : `${method}#${purpose}`);
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      return parseRecord(outboxCodeSchema, 'outbox message', Item);
    },

    async notifications(tenantId, userId) {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :notices)',
          ExpressionAttributeValues: { ':pk': keys.mfaPartition(tenantId, userId), ':notices': keys.outboxNotificationPrefix },
          ScanIndexForward: false,
          Limit: NOTICES_LISTED,
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).flatMap((item) => parseRecord(outboxNotificationSchema, 'outbox notification', item) ?? []);
    },

    async emails(address) {
      const { Items } = await doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.outboxAddressPartition(address) },
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).flatMap((item) => parseRecord(outboxEmailSchema, 'outbox email', item) ?? []);
    },
  };
}
