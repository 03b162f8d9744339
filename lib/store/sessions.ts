import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RETIRED_KEPT, type RotateResult, type Session } from '../sessions/session';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';

export interface RotateRequest {
  tenantId: string;
  sessionId: string;
  generation: number;
  presentedHash: string;
  nextHash: string;
  /** Epoch seconds. */
  now: number;
}

export interface SessionStore {
  create(session: Session): Promise<void>;
  /**
   * Replaces the current refresh token by its successor in one conditional write:
   * of two concurrent rotations with the same token exactly one succeeds.
   */
  rotate(request: RotateRequest): Promise<RotateResult>;
  /** Marks the session revoked (idempotent); false if there is no such session. */
  revoke(tenantId: string, sessionId: string, now: number, reason: string): Promise<boolean>;
  /**
   * Whether the session exists, is not revoked and has not expired (read by the
   * authorizer); with `userId`, also that it is that user's session.
   */
  isActive(tenantId: string, sessionId: string, now: number, userId?: string): Promise<boolean>;
}

function toSession(item: Record<string, unknown>): Session {
  const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...session } = item;
  return session as unknown as Session;
}

export function dynamoSessionStore({ doc, table }: Dynamo): SessionStore {
  return {
    async create(session) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...keys.session(session.tenantId, session.id), ...session, [TTL_ATTRIBUTE]: session.expiresAt },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
      } catch (error) {
        // Our own write, applied on an earlier attempt whose answer was lost (the SDK
        // retried it): the refresh token, hence its hash, is random per session.
        if (isConditionalCheckFailed(error) && oldItemOf(error)?.refreshHash === session.refreshHash) return;
        throw error;
      }
    },

    async rotate({ tenantId, sessionId, generation, presentedHash, nextHash, now }) {
      const forgotten = generation - RETIRED_KEPT;
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.session(tenantId, sessionId),
            UpdateExpression:
              'SET refreshHash = :next, refreshGeneration = :nextGeneration, refreshedAt = :now, retired.#retiring = :presented' +
              (forgotten >= 0 ? ' REMOVE retired.#forgotten' : ''),
            ConditionExpression:
              'refreshHash = :presented AND refreshGeneration = :generation AND attribute_not_exists(revokedAt) AND expiresAt > :now',
            ExpressionAttributeNames: {
              '#retiring': `g${generation}`,
              ...(forgotten >= 0 ? { '#forgotten': `g${forgotten}` } : {}),
            },
            ExpressionAttributeValues: {
              ':next': nextHash,
              ':nextGeneration': generation + 1,
              ':generation': generation,
              ':presented': presentedHash,
              ':now': now,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { outcome: 'rotated', session: toSession(Attributes ?? {}) };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        const old = oldItemOf(error);
        if (!old) return { outcome: 'invalid' };
        const session = toSession(old);
        // Our own write, applied on an earlier attempt whose answer was lost (the SDK
        // retried it): `nextHash` is random per request, so no one else stored it.
        if (session.refreshHash === nextHash && session.refreshGeneration === generation + 1 && session.revokedAt === undefined && session.expiresAt > now) {
          return { outcome: 'rotated', session };
        }
        const wasIssued = Object.values(session.retired ?? {}).includes(presentedHash);
        // A retired token of a live session is reuse; of a revoked or expired one, just invalid.
        if (wasIssued && session.revokedAt === undefined && session.expiresAt > now) return { outcome: 'reused', session };
        return { outcome: 'invalid' };
      }
    },

    async revoke(tenantId, sessionId, now, reason) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.session(tenantId, sessionId),
            UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason)',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':now': now, ':reason': reason },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async isActive(tenantId, sessionId, now, userId) {
      const { Item } = await doc.send(
        new GetCommand({
          TableName: table,
          Key: keys.session(tenantId, sessionId),
          ConsistentRead: true,
          ProjectionExpression: 'revokedAt, expiresAt, userId',
        }),
      );
      if (Item === undefined || (userId !== undefined && Item.userId !== userId)) return false;
      return Item.revokedAt === undefined && typeof Item.expiresAt === 'number' && Item.expiresAt > now;
    },
  };
}
