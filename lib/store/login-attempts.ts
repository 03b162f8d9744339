import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';
import type { Key } from './keys';
import { TTL_ATTRIBUTE } from './table';

export interface AttemptPolicy {
  /** Attempts allowed in one window. */
  max: number;
  windowSeconds: number;
}

export type ReserveResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A fixed-window counter of attempts, shared by every Lambda instance. An attempt is
 * reserved before the credential is checked, so concurrent guesses cannot exceed the
 * limit; a success clears the counter.
 */
export interface AttemptCounter {
  reserve(key: Key, now: number, policy: AttemptPolicy): Promise<ReserveResult>;
  clear(key: Key): Promise<void>;
}

export function dynamoAttemptCounter({ doc, table }: Dynamo): AttemptCounter {
  return {
    async reserve(key, now, { max, windowSeconds }) {
      const windowOpenSince = now - windowSeconds;
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          // One write in the common cases: no counter yet (open a window), or a window
          // that is still open and below the limit (count this attempt).
          await doc.send(
            new UpdateCommand({
              TableName: table,
              Key: key,
              UpdateExpression: 'SET windowStart = if_not_exists(windowStart, :now), #ttl = if_not_exists(#ttl, :expiry) ADD attempts :one',
              ConditionExpression: 'attribute_not_exists(pk) OR (windowStart > :windowOpenSince AND attempts < :max)',
              ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
              ExpressionAttributeValues: { ':one': 1, ':now': now, ':expiry': now + windowSeconds, ':windowOpenSince': windowOpenSince, ':max': max },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          );
          return { allowed: true };
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
          const old = oldItemOf(error);
          const windowStart = typeof old?.windowStart === 'number' ? old.windowStart : undefined;
          if (windowStart !== undefined && windowStart > windowOpenSince) {
            return { allowed: false, retryAfterSeconds: windowStart + windowSeconds - now };
          }
        }
        // The counter's window has passed: start a new one with this attempt, unless a
        // concurrent request did so first (then count against that one on the next turn).
        try {
          await doc.send(
            new PutCommand({
              TableName: table,
              Item: { ...key, attempts: 1, windowStart: now, [TTL_ATTRIBUTE]: now + windowSeconds },
              ConditionExpression: 'attribute_not_exists(pk) OR windowStart <= :windowOpenSince',
              ExpressionAttributeValues: { ':windowOpenSince': windowOpenSince },
            }),
          );
          return { allowed: true };
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
        }
      }
      throw new Error('Attempt counter kept changing under concurrent updates');
    },

    async clear(key) {
      await doc.send(new DeleteCommand({ TableName: table, Key: key }));
    },
  };
}
