import * as z from 'zod';
import { GetCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';

/** A tenant record, written with the tenant's first user (UserStore.create). */
export const tenantSchema = z.object({
  tenantId: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The shop the tenant was created with; absent on tenants older than shops (docs/api.md 9.7). */
  defaultShopId: z.string().optional(),
});
export type Tenant = z.output<typeof tenantSchema>;

/** Tenants are created with their first user (UserStore.create); here they are only looked up. */
export interface TenantStore {
  exists(tenantId: string): Promise<boolean>;
  find(tenantId: string): Promise<Tenant | undefined>;
  /** When the tenant was created (epoch seconds), or undefined without a tenant record. */
  createdAt(tenantId: string): Promise<number | undefined>;
}

export function dynamoTenantStore({ doc, table }: Dynamo): TenantStore {
  return {
    async exists(tenantId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true, ProjectionExpression: 'pk' }),
      );
      return Item !== undefined;
    },

    async find(tenantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true }));
      return parseRecord(tenantSchema, 'tenant', Item);
    },
    async createdAt(tenantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ProjectionExpression: 'createdAt' }));
      const created = typeof Item?.createdAt === 'string' ? Date.parse(Item.createdAt) : Number.NaN;
      return Number.isFinite(created) ? Math.floor(created / 1000) : undefined;
    },
  };
}
