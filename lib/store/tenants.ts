import { GetCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';

/** Tenants are created with their first user (UserStore.create); here they are only looked up. */
export interface TenantStore {
  exists(tenantId: string): Promise<boolean>;
}

export function dynamoTenantStore({ doc, table }: Dynamo): TenantStore {
  return {
    async exists(tenantId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true, ProjectionExpression: 'pk' }),
      );
      return Item !== undefined;
    },
  };
}
