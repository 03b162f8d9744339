import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Dynamo, isConditionalCheckFailed } from './dynamo';
import { keys } from './keys';

export interface TenantStore {
  exists(tenantId: string): Promise<boolean>;
  /** Creates the tenant record if missing (operators' bootstrap of the default tenant). */
  ensure(tenantId: string, createdAt: string): Promise<void>;
}

export function dynamoTenantStore({ doc, table }: Dynamo): TenantStore {
  return {
    async exists(tenantId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: keys.tenant(tenantId), ConsistentRead: true, ProjectionExpression: 'pk' }),
      );
      return Item !== undefined;
    },
    async ensure(tenantId, createdAt) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...keys.tenant(tenantId), tenantId, createdAt },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },
  };
}
