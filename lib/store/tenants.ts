import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Dynamo } from './dynamo';
import { keys } from './keys';

/** Tenants are created with their first user (UserStore.create); here they are only looked up. */
export interface TenantStore {
  exists(tenantId: string): Promise<boolean>;
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

    async createdAt(tenantId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ProjectionExpression: 'createdAt' }));
      const created = typeof Item?.createdAt === 'string' ? Date.parse(Item.createdAt) : Number.NaN;
      return Number.isFinite(created) ? Math.floor(created / 1000) : undefined;
    },
  };
}
