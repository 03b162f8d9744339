import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { EMAIL_INDEX, OWNER_INDEX, TTL_ATTRIBUTE } from './table';

// Table creation keeps the SDK's DynamoDB client: only the local stack, the scripts and
// the tests use it, never a function (test/lib/lean-dynamo.test.ts checks the bundles).

const indexes: Array<{ index: GlobalSecondaryIndex; attributes: AttributeDefinition[] }> = [
  {
    index: {
      IndexName: OWNER_INDEX.name,
      KeySchema: [
        { AttributeName: OWNER_INDEX.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: OWNER_INDEX.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    },
    attributes: [
      { AttributeName: OWNER_INDEX.partitionKey, AttributeType: 'S' as const },
      { AttributeName: OWNER_INDEX.sortKey, AttributeType: 'S' as const },
    ],
  },
  {
    index: {
      IndexName: EMAIL_INDEX.name,
      KeySchema: [{ AttributeName: EMAIL_INDEX.partitionKey, KeyType: 'HASH' as const }],
      Projection: { ProjectionType: 'ALL' as const },
    },
    attributes: [{ AttributeName: EMAIL_INDEX.partitionKey, AttributeType: 'S' as const }],
  },
];

/** The table's stream, which carries the events out of their outboxes (docs/api.md 17.1), as in serverless.yml. */
const STREAM = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const };

/** Waits (up to two minutes) until no index of the table is still being built: DynamoDB builds one at a time. */
async function untilIndexesActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let round = 0; round < 1200; round++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if ((Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The indexes of table ${tableName} are still being built`);
}

/**
 * Creates the table (pk/sk strings, the owner and email indexes, on demand, TTL, the stream
 * unless `stream` is false) if it
 * does not exist, and adds the indexes missing from a table made before them, one at a
 * time as DynamoDB requires. Used by the local stack and the tests; in AWS the table is a
 * CloudFormation resource (serverless.yml).
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  { stream = true }: { stream?: boolean } = {},
): Promise<'created' | 'exists' | 'indexed'> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // The event stream (docs/api.md 17.1) on a table made before it.
    if (stream && !Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
    }
    const present = new Set(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName));
    const missing = indexes.filter(({ index }) => !present.has(index.IndexName));
    for (const [position, { index, attributes }] of missing.entries()) {
      // The one before must be built first; the last may finish building while the table serves.
      if (position > 0) await untilIndexesActive(client, tableName);
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributes,
          GlobalSecondaryIndexUpdates: [{ Create: index }],
        }),
      );
    }
    return missing.length === 0 ? 'exists' : 'indexed';
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        ...indexes.flatMap(({ attributes }) => attributes),
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map(({ index }) => index),
      ...(stream ? { StreamSpecification: STREAM } : {}),
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
