import type { Random } from '../crypto/random';
import { hashToken } from '../crypto/token-hash';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';
import { writeOnce } from './write-once';

/** The DPoP replay cache (RFC 9449 11.1, docs/api.md 16.3). */
export interface DpopProofStore {
  /**
   * Records the proof `jti` of the key `jkt` in the tenant until `expiresAt` (epoch
   * seconds), in one conditional write: true the first time (or once an earlier record
   * has expired at `now`, before DynamoDB removed it), false for a replay. A write whose
   * answer was lost and that the SDK retried finds its own record: true.
   */
  accept(tenantId: string, jkt: string, jti: string, at: { now: number; expiresAt: number }): Promise<boolean>;
}

export function dynamoDpopProofStore(dynamo: Dynamo, random: Random): DpopProofStore {
  return {
    async accept(tenantId, jkt, jti, { now, expiresAt }) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          // The jti is the client's choice: hashed, so that its length and characters never reach a key.
          Item: { ...keys.dpopProof(tenantId, jkt, hashToken(jti)), tenantId, [TTL_ATTRIBUTE]: expiresAt },
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': now },
        },
      });
      return written;
    },
  };
}
