import { DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../lib/store/table-setup';
import { localClient } from './local-dynamo';

/**
 * Creates a table of its own for a test that compares or scans the whole table; without
 * the stream unless asked (`stream`): each stream costs DynamoDB Local on every write, and
 * only the run's tables are followed (test/helpers/published-events.ts).
 */
export async function createTable(endpoint: string, tableName: string, { stream = false }: { stream?: boolean } = {}): Promise<void> {
  const client = localClient(endpoint);
  await ensureTable(client, tableName, { stream });
  client.destroy();
}

/** Every item of a table, sorted by key: a snapshot to compare before and after. */
export async function scanTable(endpoint: string, tableName: string): Promise<Array<Record<string, unknown>>> {
  const doc = DynamoDBDocumentClient.from(localClient(endpoint));
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  doc.destroy();
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

/**
 * Every item under one partition key, read consistently: what a scan of the table filtered
 * on `pk` finds, without reading the run's whole shared table.
 */
export async function itemsUnder(endpoint: string, tableName: string, pk: string): Promise<Array<Record<string, unknown>>> {
  const doc = DynamoDBDocumentClient.from(localClient(endpoint));
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  doc.destroy();
  return items;
}

/** Puts one item into a table, as it is (what the stores do not write: a marker of the test set-up). */
export async function putItem(endpoint: string, tableName: string, item: Record<string, unknown>): Promise<void> {
  const doc = DynamoDBDocumentClient.from(localClient(endpoint));
  await doc.send(new PutCommand({ TableName: tableName, Item: item }));
  doc.destroy();
}
