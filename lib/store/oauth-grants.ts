import type { Random } from '../crypto/random';
import { grantSchema, type OAuthGrant } from '../oauth/grant';
import type { TokenFamilyStore } from '../token-families/refresh-family';
import * as z from '../zod';
import { GetCommand, PutCommand, UpdateCommand } from './commands';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { listOwned } from './owner-index';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';
import { dynamoFamilyRotation } from './token-families';

/** OAuth grants: refresh-token families of clients (lib/token-families), and the deny records of stateless tokens. */
export interface OAuthGrantStore extends TokenFamilyStore<OAuthGrant> {
  /**
   * Stores a new grant. Written as an update, not a put, so that a revocation that
   * got there first (a code redeemed twice at once) is kept.
   */
  save(grant: OAuthGrant): Promise<void>;
  find(tenantId: string, grantId: string): Promise<OAuthGrant | undefined>;
  /** A user's grants, newest first, from the owner index (eventually consistent: for listings, not decisions). */
  listBySubject(tenantId: string, userId: string): Promise<OAuthGrant[]>;
  /** Marks the grant revoked (idempotent), even before `save` has written it. */
  revoke(family: { tenantId: string; id: string }, now: number, reason: string): Promise<void>;
  /**
   * Revokes a grant the user gave (docs/api.md 8.4) in one conditional write; false when
   * there is no such grant of that user (unknown, another user's, a client's own).
   * Idempotent: a grant already revoked stays revoked as it was, and counts as found.
   */
  revokeOfSubject(family: { tenantId: string; id: string }, userId: string, now: number, reason: string): Promise<boolean>;
  /**
   * Records that a stateless access token (one without a grant: client_credentials) is
   * revoked: a deny record under its `jti`, which DynamoDB deletes after the token's
   * `exp` (TTL), when the token is dead anyway. Idempotent: the first revocation stays.
   */
  denyAccessToken(token: DeniedAccessToken): Promise<void>;
  /** Whether a stateless access token has been revoked (consistent read; any record denies: `jti`s are unique). */
  isAccessTokenDenied(tenantId: string, jti: string): Promise<boolean>;
  /**
   * Keeps, for a day, which apps held sessions of a user about to be erased (docs/api.md
   * 17.3): each grant's id, client, kind and session, nothing else, so that back-channel
   * logout reaches them after the grants are gone. The first call of a deletion stays (a
   * DELETE tried again after a partial erasure lists fewer grants).
   */
  keepForLogout(tenantId: string, userId: string, grants: LogoutTarget[], now: number): Promise<void>;
  /** What keepForLogout kept for the user, if anything. */
  keptForLogout(tenantId: string, userId: string): Promise<LogoutTarget[]>;
}

/** What back-channel logout needs of a grant: who holds it, and from which session. */
export type LogoutTarget = Pick<OAuthGrant, 'id' | 'clientId' | 'kind' | 'sessionId'>;

/** How long the apps of an erased user are kept for their logouts: the stream holds an event as long. */
const LOGOUT_TARGETS_KEPT_SECONDS = 24 * 3600;

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

const logoutTargetsSchema = z.object({
  targets: z.array(z.object({ id: z.string(), clientId: z.string(), kind: grantSchema.shape.kind, sessionId: z.optional(z.string()) })),
});

function toGrant(item: Record<string, unknown> | undefined): OAuthGrant | undefined {
  // A revocation written ahead of its grant has no client: there is no grant to use.
  if (!item || item.clientId === undefined) return undefined;
  return parseRecord(grantSchema, 'grant', item);
}

/**
 * The write that stores a grant: an update, so that a revocation written ahead of the
 * grant (its `revokedAt`) stays. Also one item of the code-redemption transaction.
 */
export function grantWrite(table: string, grant: OAuthGrant) {
  // A user's grant is listed with the user's sessions (the owner index); a client's own is not.
  const owner = grant.kind === 'authorization_code' ? keys.ownedBy(grant.tenantId, grant.subject, 'GRANT', grant.createdAt, grant.id) : {};
  const fields = Object.entries({ ...grant, ...owner, [TTL_ATTRIBUTE]: grant.expiresAt }).filter(
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

export function dynamoOAuthGrantStore(dynamo: Dynamo, random: Random): OAuthGrantStore {
  const { doc, table } = dynamo;
  return {
    async save(grant) {
      await doc.send(new UpdateCommand(grantWrite(table, grant)));
    },

    async find(tenantId, grantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.oauthGrant(tenantId, grantId), ConsistentRead: true }));
      return toGrant(Item);
    },

    listBySubject: (tenantId, userId) => listOwned(dynamo, { tenantId, userId, kind: 'GRANT' }, toGrant),

    async keepForLogout(tenantId, userId, grants, now) {
      if (grants.length === 0) return;
      const targets = grants.map(({ id, clientId, kind, sessionId }) => ({ id, clientId, kind, ...(sessionId ? { sessionId } : {}) }));
      try {
        await dynamo.doc.send(
          new PutCommand({
            TableName: dynamo.table,
            Item: { ...keys.logoutTargets(tenantId, userId), targets, [TTL_ATTRIBUTE]: now + LOGOUT_TARGETS_KEPT_SECONDS },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    async keptForLogout(tenantId, userId) {
      const { Item } = await dynamo.doc.send(
        new GetCommand({ TableName: dynamo.table, Key: keys.logoutTargets(tenantId, userId), ConsistentRead: true }),
      );
      return parseRecord(logoutTargetsSchema, 'logout targets', Item)?.targets ?? [];
    },

    rotate: dynamoFamilyRotation(dynamo, random, { key: (ref) => keys.oauthGrant(ref.tenantId, ref.id), parse: toGrant }),

    async revoke({ tenantId, id: grantId }, now, reason) {
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

    async revokeOfSubject({ tenantId, id: grantId }, userId, now, reason) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.oauthGrant(tenantId, grantId),
            UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason)',
            ConditionExpression: 'attribute_exists(clientId) AND #kind = :kind AND subject = :user',
            ExpressionAttributeNames: { '#kind': 'kind' },
            ExpressionAttributeValues: { ':now': now, ':reason': reason, ':kind': 'authorization_code', ':user': userId },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
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
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.revokedAccessToken(tenantId, jti), ConsistentRead: true }),
      );
      return Item !== undefined;
    },
  };
}
