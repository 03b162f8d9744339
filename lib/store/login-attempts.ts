import { PutCommand, UpdateCommand } from './commands';
import { deleteKeys } from './delete-keys';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';
import { type Key, keys, type SendScope } from './keys';
import { readTogether } from './read-together';

import { TTL_ATTRIBUTE } from './table';

export interface AttemptPolicy {
  /** Attempts allowed in one window. */
  max: number;
  windowSeconds: number;
}

/**
 * Whose attempts are counted: the logins of a username from unknown sources (one window
 * of an escalating budget per `tier`, lib/abuse/attempt-budget.ts), those of one known
 * device, the failed logins of one source address, the wrong codes of a user (every
 * method, per `tier`).
 */
export type AttemptSubject =
  | { kind: 'login'; tenantId: string; username: string; tier?: number }
  | { kind: 'device'; tenantId: string; username: string; deviceId: string }
  | { kind: 'source'; address: string }
  /** Failed OAuth client authentications of one source address (docs/api.md 10.1). */
  | { kind: 'client-source'; address: string }
  | { kind: 'mfa'; tenantId: string; userId: string; tier: number }
  /** Wrong password reset codes for a username, whichever code (docs/api.md 8.7). */
  | { kind: 'reset'; tenantId: string; username: string }
  /** Reset codes sent for a username at the request of unknown sources (docs/api.md 8.7). */
  | { kind: 'reset-request'; tenantId: string; username: string }
  /** Messages sent, per scope (lib/abuse/send-quota.ts); `global` counts the whole service. */
  | { kind: 'send'; tenantId: string; scope: SendScope; id: string }
  /** Requests made with one SCIM token (docs/api.md 13.3). */
  | { kind: 'scim'; tenantId: string; tokenId: string }
  /** User codes one signed-in user entered on the device page (docs/api.md 16.4); right ones are released. */
  | { kind: 'user-code'; tenantId: string; userId: string };

function keyOf(subject: AttemptSubject): Key {
  switch (subject.kind) {
    case 'login':
      return keys.loginAttempts(subject.tenantId, subject.username, subject.tier);
    case 'device':
      return keys.deviceAttempts(subject.tenantId, subject.username, subject.deviceId);
    case 'source':
      return keys.sourceAttempts(subject.address);
    case 'client-source':
      return keys.clientSourceAttempts(subject.address);
    case 'mfa':
      return keys.mfaAttempts(subject.tenantId, subject.userId, subject.tier);
    case 'send':
      return keys.sendQuota(subject.tenantId, subject.scope, subject.id);
    case 'reset':
      return keys.resetAttempts(subject.tenantId, subject.username);
    case 'reset-request':
      return keys.resetRequests(subject.tenantId, subject.username);
    case 'scim':
      return keys.scimRequests(subject.tenantId, subject.tokenId);
    case 'user-code':
      return keys.userCodeAttempts(subject.tenantId, subject.userId);
  }
}

/**
 * `remaining`: attempts left in the window after this one (0: this attempt filled it);
 * a peek, which counts nothing, tells the attempts left before this one.
 */
export type ReserveResult = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

/**
 * A fixed-window counter of attempts, shared by every Lambda instance. An attempt is
 * reserved before the credential is checked, so concurrent guesses cannot exceed the
 * limit; a success clears the counter.
 */
export interface AttemptCounter {
  reserve(subject: AttemptSubject, now: number, policy: AttemptPolicy): Promise<ReserveResult>;
  /** Whether the window is full, without counting (one eventually consistent read). */
  peek(subject: AttemptSubject, now: number, policy: AttemptPolicy): Promise<ReserveResult>;
  /** Deletes these counters: one round trip for all of them (a budget's windows). */
  clear(...subjects: AttemptSubject[]): Promise<void>;
  /**
   * Gives back one reserved attempt that turned out not to count (a right code, where
   * only wrong ones do: docs/api.md 16.4), in one conditional write; never below zero.
   * Unlike `clear`, the attempts before it still count.
   */
  release(subject: AttemptSubject): Promise<void>;
}

/** A full window refuses until it ends; an absent, passed or open one allows. */
function verdictOf(old: Record<string, unknown> | undefined, now: number, { max, windowSeconds }: AttemptPolicy): ReserveResult {
  const windowStart = typeof old?.windowStart === 'number' ? old.windowStart : undefined;
  const open = windowStart !== undefined && windowStart > now - windowSeconds;
  const attempts = open && typeof old?.attempts === 'number' ? old.attempts : 0;
  return open && attempts >= max
    ? { allowed: false, retryAfterSeconds: windowStart + windowSeconds - now }
    : { allowed: true, remaining: max - attempts };
}

export function dynamoAttemptCounter(dynamo: Dynamo): AttemptCounter {
  const { doc, table } = dynamo;
  const read = readTogether(dynamo);
  return {
    async reserve(subject, now, { max, windowSeconds }) {
      const key = keyOf(subject);
      const windowOpenSince = now - windowSeconds;
      const refusal = (old: Record<string, unknown> | undefined): ReserveResult | undefined => {
        const verdict = verdictOf(old, now, { max, windowSeconds });
        return verdict.allowed ? undefined : verdict;
      };
      /** Allowed if the write applies; refused if it met a full window; undefined to go round again. */
      const attempt = async (write: () => Promise<number>): Promise<ReserveResult | undefined> => {
        try {
          return { allowed: true, remaining: Math.max(0, max - (await write())) };
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
          return refusal(oldItemOf(error));
        }
      };
      for (let turn = 0; turn < 5; turn++) {
        // One write whether there is no counter or its window has passed (a new window
        // with this attempt), and for a full window (refused from the item the failed
        // write returns); two for an open window below the limit. The cost depends on
        // earlier attempts at this username, never on whether the user exists.
        const opened = await attempt(async () => {
          await doc.send(
            new PutCommand({
              TableName: table,
              Item: { ...key, attempts: 1, windowStart: now, [TTL_ATTRIBUTE]: now + windowSeconds },
              ConditionExpression: 'attribute_not_exists(pk) OR windowStart <= :windowOpenSince',
              ExpressionAttributeValues: { ':windowOpenSince': windowOpenSince },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          );
          return 1;
        });
        if (opened) return opened;
        // An open window below the limit: count this attempt in it, unless concurrent
        // attempts filled it (refused) or it passed or was cleared meanwhile (next turn).
        const counted = await attempt(async () => {
          const { Attributes } = await doc.send(
            new UpdateCommand({
              TableName: table,
              Key: key,
              UpdateExpression: 'ADD attempts :one',
              ConditionExpression: 'windowStart > :windowOpenSince AND attempts < :max',
              ExpressionAttributeValues: { ':one': 1, ':windowOpenSince': windowOpenSince, ':max': max },
              ReturnValues: 'UPDATED_NEW',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          );
          return typeof Attributes?.attempts === 'number' ? Attributes.attempts : max;
        });
        if (counted) return counted;
      }
      // Concurrent attempts kept changing the counter under us: busy, worth a retry (503).
      throw Object.assign(new Error('Attempt counter kept changing under concurrent updates'), { name: 'TransactionConflictException' });
    },

    async peek(subject, now, policy) {
      // Read together with what else is read in the same turn (a token request's client).
      return verdictOf(await read(keyOf(subject), { consistent: false }), now, policy);
    },

    async clear(...subjects) {
      await deleteKeys(dynamo, subjects.map(keyOf));
    },

    async release(subject) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keyOf(subject),
            UpdateExpression: 'ADD attempts :less',
            ConditionExpression: 'attempts > :none',
            ExpressionAttributeValues: { ':less': -1, ':none': 0 },
          }),
        );
      } catch (error) {
        // No counter (it expired, or was cleared) or nothing to give back: nothing to do.
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },
  };
}
