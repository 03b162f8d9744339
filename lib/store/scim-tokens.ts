import type { Random } from '../crypto/random';
import * as z from '../zod';
import { DeleteCommand, GetCommand, QueryCommand } from './commands';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { writeOnce } from './write-once';

/** A SCIM token of a tenant (docs/api.md 13.3): its hash only, never the token. */
export const scimTokenSchema = z.object({
  tenantId: z.string(),
  id: z.string(),
  name: z.string(),
  /** SHA-256 of the token (lib/crypto/token-hash.ts). */
  tokenHash: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The ADMIN who created it. */
  createdBy: z.string(),
});
export type ScimToken = z.output<typeof scimTokenSchema>;

export interface ScimTokenStore {
  /** Stores a new token (once, also after a lost answer). */
  create(token: ScimToken): Promise<void>;
  /** The token of that id in the tenant, read consistently: a deleted token is gone on the next request. */
  find(tenantId: string, tokenId: string): Promise<ScimToken | undefined>;
  /** Every token of the tenant. */
  list(tenantId: string): Promise<ScimToken[]>;
  /** Deletes the token; false when the tenant has none of that id. */
  remove(tenantId: string, tokenId: string): Promise<boolean>;
}

export function dynamoScimTokenStore(dynamo: Dynamo, random: Random): ScimTokenStore {
  const { doc, table } = dynamo;
  const parse = (item: Record<string, unknown> | undefined) => parseRecord(scimTokenSchema, 'SCIM token', item);
  return {
    async create(token) {
      await writeOnce(dynamo, random, {
        put: { Item: { ...keys.scimToken(token.tenantId, token.id), ...token }, ConditionExpression: 'attribute_not_exists(pk)' },
      });
    },

    async find(tenantId, tokenId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.scimToken(tenantId, tokenId), ConsistentRead: true }));
      return parse(Item);
    },

    async list(tenantId) {
      const tokens: ScimToken[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :token)',
            ExpressionAttributeValues: { ':pk': keys.scimTokensPartition(tenantId), ':token': 'TOKEN#' },
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const token = parse(item);
          if (token) tokens.push(token);
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return tokens.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },

    async remove(tenantId, tokenId) {
      // A condition, not ALL_OLD, tells whether there was one: the deletion may carry events (lib/events/outbox.ts).
      try {
        await doc.send(
          new DeleteCommand({ TableName: table, Key: keys.scimToken(tenantId, tokenId), ConditionExpression: 'attribute_exists(pk)' }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}
