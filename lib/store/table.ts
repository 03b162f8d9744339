import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';

/** The TTL attribute: DynamoDB deletes an item some time after this epoch second. */
export const TTL_ATTRIBUTE = 'ttl';

/**
 * Creates the table (pk/sk strings, on demand, TTL) if it does not exist. Used by the
 * local stack and the tests; in AWS the table is a CloudFormation resource.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'exists';
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
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
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
