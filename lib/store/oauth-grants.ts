import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type GrantRotateResult, type OAuthGrant, RETIRED_REFRESH_KEPT } from '../oauth/grant';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';
import { keys } from './keys';
import { TTL_ATTRIBUTE } from './table';

export interface GrantRotateRequest {
  tenantId: string;
  grantId: string;
  /** The authenticated client: a grant only rotates for its own client. */
  clientId: string;
  generation: number;
  presentedHash: string;
  nextHash: string;
  /** Epoch seconds. */
  now: number;
}

export interface OAuthGrantStore {
  /**
   * Stores a new grant. Written as an update, not a put, so that a revocation that
   * got there first (a code redeemed twice at once) is kept.
   */
  save(grant: OAuthGrant): Promise<void>;
  find(tenantId: string, grantId: string): Promise<OAuthGrant | undefined>;
  /**
   * Replaces the current refresh token by its successor in one conditional write:
   * of two concurrent rotations with the same token exactly one succeeds.
   */
  rotate(request: GrantRotateRequest): Promise<GrantRotateResult>;
  /** Marks the grant revoked (idempotent), even before `save` has written it. */
  revoke(tenantId: string, grantId: string, now: number, reason: string): Promise<void>;
  /**
   * Records that a stateless access token (one without a grant: client_credentials) is
   * revoked: a deny record under its `jti`, which DynamoDB deletes after the token's
   * `exp` (TTL), when the token is dead anyway. Idempotent: the first revocation stays.
   */
  denyAccessToken(token: DeniedAccessToken): Promise<void>;
  /** Whether a stateless access token has been revoked (consistent read; any record denies: `jti`s are unique). */
  isAccessTokenDenied(tenantId: string, jti: string): Promise<boolean>;
}

export interface DeniedAccessToken {
  tenantId: string;
  clientId: string;
  jti: string;
  /** Epoch seconds: the token's `exp`, the record's TTL. */
  expiresAt: number;
  /** Epoch seconds. */
  now: number;
  reason: string;
}

/** How long a revocation written ahead of its grant is kept: as long as any grant lives. */
const REVOCATION_KEPT_SECONDS = 31 * 24 * 3600;

function toGrant(item: Record<string, unknown> | undefined): OAuthGrant | undefined {
  // A revocation written ahead of its grant has no client: there is no grant to use.
  if (!item || typeof item.clientId !== 'string') return undefined;
  const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...grant } = item;
  return grant as unknown as OAuthGrant;
}

/**
 * The write that stores a grant: an update, so that a revocation written ahead of the
 * grant (its `revokedAt`) stays. Also one item of the code-redemption transaction.
 */
export function grantWrite(table: string, grant: OAuthGrant) {
  const fields = Object.entries({ ...grant, [TTL_ATTRIBUTE]: grant.expiresAt }).filter(
    ([name, value]) => value !== undefined && name !== 'revokedAt' && name !== 'revokedReason',
  );
  return {
    TableName: table,
    Key: keys.oauthGrant(grant.tenantId, grant.id),
    UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
  };
}

export function dynamoOAuthGrantStore({ doc, table }: Dynamo): OAuthGrantStore {
  return {
    async save(grant) {
      await doc.send(new UpdateCommand(grantWrite(table, grant)));
    },

    async find(tenantId, grantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.oauthGrant(tenantId, grantId), ConsistentRead: true }));
      return toGrant(Item);
    },

    async rotate({ tenantId, grantId, clientId, generation, presentedHash, nextHash, now }) {
      const forgotten = generation - RETIRED_REFRESH_KEPT;
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.oauthGrant(tenantId, grantId),
            UpdateExpression:
              'SET refreshHash = :next, refreshGeneration = :nextGeneration, refreshedAt = :now, retired.#retiring = :presented' +
              (forgotten >= 0 ? ' REMOVE retired.#forgotten' : ''),
            ConditionExpression:
              'clientId = :client AND refreshHash = :presented AND refreshGeneration = :generation AND attribute_not_exists(revokedAt) AND expiresAt > :now',
            ExpressionAttributeNames: {
              '#retiring': `g${generation}`,
              ...(forgotten >= 0 ? { '#forgotten': `g${forgotten}` } : {}),
            },
            ExpressionAttributeValues: {
              ':next': nextHash,
              ':nextGeneration': generation + 1,
              ':generation': generation,
              ':presented': presentedHash,
              ':client': clientId,
              ':now': now,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        const grant = toGrant(Attributes);
        return grant ? { outcome: 'rotated', grant } : { outcome: 'invalid' };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        const grant = toGrant(oldItemOf(error));
        if (!grant || grant.clientId !== clientId) return { outcome: 'invalid' };
        // Our own write, applied on an earlier attempt whose answer was lost (the SDK
        // retried it): `nextHash` is random per request, so no one else stored it.
        if (grant.refreshHash === nextHash && grant.refreshGeneration === generation + 1 && grant.revokedAt === undefined) {
          return { outcome: 'rotated', grant };
        }
        const wasIssued = Object.values(grant.retired ?? {}).includes(presentedHash);
        // A retired token of a live grant is reuse; of a revoked or expired one, just invalid.
        if (wasIssued && grant.revokedAt === undefined && grant.expiresAt > now) return { outcome: 'reused', grant };
        return { outcome: 'invalid' };
      }
    },

    async revoke(tenantId, grantId, now, reason) {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.oauthGrant(tenantId, grantId),
          UpdateExpression:
            'SET revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason), #ttl = if_not_exists(#ttl, :ttl)',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': now, ':reason': reason, ':ttl': now + REVOCATION_KEPT_SECONDS },
        }),
      );
    },

    async denyAccessToken({ tenantId, clientId, jti, expiresAt, now, reason }) {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.revokedAccessToken(tenantId, jti),
          UpdateExpression:
            'SET clientId = if_not_exists(clientId, :client), revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason), #ttl = if_not_exists(#ttl, :ttl)',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':client': clientId, ':now': now, ':reason': reason, ':ttl': expiresAt },
        }),
      );
    },

    async isAccessTokenDenied(tenantId, jti) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.revokedAccessToken(tenantId, jti), ConsistentRead: true }));
      return Item !== undefined;
    },
  };
}
