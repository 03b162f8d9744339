import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { OWNER_INDEX, TTL_ATTRIBUTE } from './table';

// Table creation keeps the SDK's DynamoDB client: only the local stack, the scripts and
// the tests use it, never a function (test/lib/lean-dynamo.test.ts checks the bundles).

const ownerIndex = {
  IndexName: OWNER_INDEX.name,
  KeySchema: [
    { AttributeName: OWNER_INDEX.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: OWNER_INDEX.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
};

const indexAttributes = [
  { AttributeName: OWNER_INDEX.partitionKey, AttributeType: 'S' as const },
  { AttributeName: OWNER_INDEX.sortKey, AttributeType: 'S' as const },
];

/**
 * Creates the table (pk/sk strings, the owner index, on demand, TTL) if it does not
 * exist, and adds the owner index to a table made before it. Used by the local stack
 * and the tests; in AWS the table is a CloudFormation resource (serverless.yml).
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists' | 'indexed'> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.GlobalSecondaryIndexes?.some((index) => index.IndexName === OWNER_INDEX.name)) return 'exists';
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: indexAttributes,
        GlobalSecondaryIndexUpdates: [{ Create: ownerIndex }],
      }),
    );
    return 'indexed';
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }, ...indexAttributes],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [ownerIndex],
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
  return 'created';
}
