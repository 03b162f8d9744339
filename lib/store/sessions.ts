import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Random } from '../crypto/random';
import { type Session, sessionSchema } from '../sessions/session';
import type { TokenFamilyStore } from '../token-families/refresh-family';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { dynamoFamilyRotation } from './token-families';
import { writeOnce } from './write-once';

/** Login sessions: refresh-token families of users (lib/token-families). */
export interface SessionStore extends TokenFamilyStore<Session> {
  create(session: Session): Promise<void>;
  /** Marks the session revoked (idempotent); false if there is no such session. */
  revoke(family: { tenantId: string; id: string }, now: number, reason: string): Promise<boolean>;
  /**
   * Whether the session exists, is not revoked and has not expired (read by the
   * authorizer); with `userId`, also that it is that user's session.
   */
  isActive(tenantId: string, sessionId: string, now: number, userId?: string): Promise<boolean>;
}

const toSession = (item: Record<string, unknown> | undefined) => parseRecord(sessionSchema, 'session', item);

export function dynamoSessionStore(dynamo: Dynamo, random: Random): SessionStore {
  const { doc, table } = dynamo;
  return {
    async create(session) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: { ...keys.session(session.tenantId, session.id), ...session, [TTL_ATTRIBUTE]: session.expiresAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      if (!written) throw new Error('Session id collision');
    },

    rotate: dynamoFamilyRotation(dynamo, random, { key: (ref) => keys.session(ref.tenantId, ref.id), parse: toSession }),

    async revoke({ tenantId, id }, now, reason) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.session(tenantId, id),
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
