import type { Random } from '../crypto/random';
import * as z from '../zod';
import { GetCommand, QueryCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { writeOnce } from './write-once';

/** A shop of a tenant (docs/api.md 9.7). */
export const shopSchema = z.object({
  tenantId: z.string(),
  shopId: z.string(),
  name: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The ADMIN who created it, or the tenant's first user for its default shop. */
  createdBy: z.string(),
});
export type Shop = z.output<typeof shopSchema>;

/** The item of a shop: also written by the transaction that creates a tenant (UserStore.create). */
export const shopItem = (shop: Shop) => ({ ...keys.shop(shop.tenantId, shop.shopId), ...shop });

export interface ShopStore {
  /** Stores a new shop; `exists` with the stored one when the tenant has a shop of that id. */
  create(shop: Shop): Promise<{ outcome: 'created'; shop: Shop } | { outcome: 'exists'; shop: Shop | undefined }>;
  find(tenantId: string, shopId: string): Promise<Shop | undefined>;
  /** Every shop of the tenant, by id. */
  list(tenantId: string): Promise<Shop[]>;
}

export function dynamoShopStore(dynamo: Dynamo, random: Random): ShopStore {
  const { doc, table } = dynamo;
  const parse = (item: Record<string, unknown> | undefined) => parseRecord(shopSchema, 'shop', item);
  return {
    async create(shop) {
      // Once: the SDK's retry after a lost answer meets its own shop, not a taken id.
      const result = await writeOnce(dynamo, random, { put: { Item: shopItem(shop), ConditionExpression: 'attribute_not_exists(pk)' } });
      return result.written ? { outcome: 'created', shop } : { outcome: 'exists', shop: parse(result.item) };
    },

    async find(tenantId, shopId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.shop(tenantId, shopId), ConsistentRead: true }));
      return parse(Item);
    },

    async list(tenantId) {
      const shops: Shop[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.shopsPartition(tenantId) },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const shop = parse(item);
          if (shop) shops.push(shop);
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return shops;
    },
  };
}
