import { DeleteCommand, PutCommand, UpdateCommand } from './commands';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';
import { type Key, keys } from './keys';
import { TTL_ATTRIBUTE } from './table';

export interface AttemptPolicy {
  /** Attempts allowed in one window. */
  max: number;
  windowSeconds: number;
}

/** Whose attempts are counted: the logins of a username, or the codes of one MFA method of a user. */
export type AttemptSubject =
  | { kind: 'login'; tenantId: string; username: string }
  | { kind: 'mfa'; tenantId: string; userId: string; method: string }
  /** Messages sent, per scope (lib/abuse/send-quota.ts); `global` counts the whole service. */
  | { kind: 'send'; tenantId: string; scope: SendScope; id: string };

export type SendScope = 'destination' | 'user' | 'tenant' | 'global';

function keyOf(subject: AttemptSubject): Key {
  switch (subject.kind) {
    case 'login':
      return keys.loginAttempts(subject.tenantId, subject.username);
    case 'mfa':
      return keys.mfaAttempts(subject.tenantId, subject.userId, subject.method);
    case 'send':
      return keys.sendQuota(subject.tenantId, subject.scope, subject.id);
  }
}

export type ReserveResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A fixed-window counter of attempts, shared by every Lambda instance. An attempt is
 * reserved before the credential is checked, so concurrent guesses cannot exceed the
 * limit; a success clears the counter.
 */
export interface AttemptCounter {
  reserve(subject: AttemptSubject, now: number, policy: AttemptPolicy): Promise<ReserveResult>;
  clear(subject: AttemptSubject): Promise<void>;
}

export function dynamoAttemptCounter({ doc, table }: Dynamo): AttemptCounter {
  return {
    async reserve(subject, now, { max, windowSeconds }) {
      const key = keyOf(subject);
      const windowOpenSince = now - windowSeconds;
      const refusal = (old: Record<string, unknown> | undefined): ReserveResult | undefined => {
        const windowStart = typeof old?.windowStart === 'number' ? old.windowStart : undefined;
        const attempts = typeof old?.attempts === 'number' ? old.attempts : 0;
        return windowStart !== undefined && windowStart > windowOpenSince && attempts >= max
          ? { allowed: false, retryAfterSeconds: windowStart + windowSeconds - now }
          : undefined;
      };
      /** Allowed if the write applies; refused if it met a full window; undefined to go round again. */
      const attempt = async (write: () => Promise<unknown>): Promise<ReserveResult | undefined> => {
        try {
          await write();
          return { allowed: true };
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
        const opened = await attempt(() =>
          doc.send(
            new PutCommand({
              TableName: table,
              Item: { ...key, attempts: 1, windowStart: now, [TTL_ATTRIBUTE]: now + windowSeconds },
              ConditionExpression: 'attribute_not_exists(pk) OR windowStart <= :windowOpenSince',
              ExpressionAttributeValues: { ':windowOpenSince': windowOpenSince },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          ),
        );
        if (opened) return opened;
        // An open window below the limit: count this attempt in it, unless concurrent
        // attempts filled it (refused) or it passed or was cleared meanwhile (next turn).
        const counted = await attempt(() =>
          doc.send(
            new UpdateCommand({
              TableName: table,
              Key: key,
              UpdateExpression: 'ADD attempts :one',
              ConditionExpression: 'windowStart > :windowOpenSince AND attempts < :max',
              ExpressionAttributeValues: { ':one': 1, ':windowOpenSince': windowOpenSince, ':max': max },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          ),
        );
        if (counted) return counted;
      }
      // Concurrent attempts kept changing the counter under us: busy, worth a retry (503).
      throw Object.assign(new Error('Attempt counter kept changing under concurrent updates'), { name: 'TransactionConflictException' });
    },

    async clear(subject) {
      await doc.send(new DeleteCommand({ TableName: table, Key: keyOf(subject) }));
    },
  };
}
