import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
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
  };
}
