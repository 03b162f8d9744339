import { type AttributeValue, BatchWriteItemCommand, ScanCommand as ScanItemsCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../lib/store/table-setup';
import { localClient } from './local-dynamo';

/**
 * One client per DynamoDB Local for these helpers, kept for the worker's life: a client
 * made per scan cost a connection and about 1.7 ms of CPU more per call, and the fault
 * suite scans thousands of times a run. Its idle connections do not keep a worker alive.
 */
const clients = new Map<string, { raw: ReturnType<typeof localClient>; doc: DynamoDBDocumentClient }>();
function clientsOf(endpoint: string) {
  let made = clients.get(endpoint);
  if (!made) {
    const raw = localClient(endpoint);
    made = { raw, doc: DynamoDBDocumentClient.from(raw) };
    clients.set(endpoint, made);
  }
  return made;
}

/**
 * Creates a table of its own for a test that compares or scans the whole table; without
 * the stream unless asked (`stream`): each stream costs DynamoDB Local on every write, and
 * only the run's tables are followed (test/helpers/published-events.ts).
 */
export async function createTable(endpoint: string, tableName: string, { stream = false }: { stream?: boolean } = {}): Promise<void> {
  await ensureTable(clientsOf(endpoint).raw, tableName, { stream });
}

/** Every item of a table, sorted by key: a snapshot to compare before and after. */
export async function scanTable(endpoint: string, tableName: string): Promise<Array<Record<string, unknown>>> {
  const { doc } = clientsOf(endpoint);
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

/**
 * Every item under one partition key, read consistently: what a scan of the table filtered
 * on `pk` finds, without reading the run's whole shared table.
 */
export async function itemsUnder(endpoint: string, tableName: string, pk: string): Promise<Array<Record<string, unknown>>> {
  const { doc } = clientsOf(endpoint);
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
  return items;
}

/** Puts one item into a table, as it is (what the stores do not write: a marker of the test set-up). */
export async function putItem(endpoint: string, tableName: string, item: Record<string, unknown>): Promise<void> {
  const { doc } = clientsOf(endpoint);
  await doc.send(new PutCommand({ TableName: tableName, Item: item }));
}

type StoredItem = Record<string, AttributeValue>;
/** A table's items as DynamoDB holds them (attribute values, by key): what `restoreTable` brings it back to. */
export type TableSnapshot = Map<string, { item: StoredItem; text: string }>;

/** Every item of a table, as stored: to restore it later (`restoreTable`). */
export async function tableSnapshot(endpoint: string, tableName: string): Promise<TableSnapshot> {
  const client = clientsOf(endpoint).raw;
  const items: TableSnapshot = new Map();
  let start: StoredItem | undefined;
  do {
    const page = await client.send(new ScanItemsCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) items.set(JSON.stringify([item.pk, item.sk]), { item, text: JSON.stringify(item) });
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Brings a table back to a snapshot: deletes the items written since, and puts back those
 * changed or deleted since, as they were (25 to a BatchWriteItem).
 */
export async function restoreTable(endpoint: string, tableName: string, snapshot: TableSnapshot): Promise<void> {
  const now = await tableSnapshot(endpoint, tableName);
  const writes: WriteRequest[] = [];
  for (const [key, { item }] of now)
    if (!snapshot.has(key)) writes.push({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } as StoredItem } });
  for (const [key, { item, text }] of snapshot) if (now.get(key)?.text !== text) writes.push({ PutRequest: { Item: item } });
  const client = clientsOf(endpoint).raw;
  for (let i = 0; i < writes.length; i += 25) {
    let pending = writes.slice(i, i + 25);
    for (let round = 0; pending.length > 0; round++) {
      if (round === 5) throw new Error(`DynamoDB Local left ${pending.length} writes of a restore unprocessed`);
      const { UnprocessedItems } = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
      pending = UnprocessedItems?.[tableName] ?? [];
    }
  }
}
