import { QueryCommand, type QueryCommandInput } from './commands';
import type { Dynamo } from './dynamo';
import { type IndexPosition, indexPositionOf } from './keys';
import { OWNER_INDEX } from './table';

type Item = Record<string, unknown>;

/** How many queries one page reads at most while a filter leaves it short; `next` then carries on. */
export const MAX_QUERIES_A_PAGE = 10;

/** How many entries a query of a filtered page reads at least, so that a selective filter does not read them one by one. */
export const FILTERED_BATCH = 100;

/** One partition of the owner index, sorted by time and id, and how to filter it. */
export interface IndexPageQuery<T> {
  /** What the index entries' sort keys begin with (keys.tenantUser, keys.tenantInvitation). */
  kind: 'USER' | 'INVITATION';
  partition: string;
  /** The start key of the position after which the page begins (table and index keys), or none for the first page. */
  start: Item | undefined;
  limit: number;
  /** Newest first; oldest first unless set. */
  newestFirst?: boolean;
  /** A filter DynamoDB applies as it reads, after its `Limit` (its names and values beside it). */
  filter?: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> | undefined;
  /** The entry of an item, or undefined to leave it out (a record that does not parse, or one a filter of ours drops). */
  entryOf: (item: Item) => T | undefined;
  /** Whether `entryOf` drops items that DynamoDB's filter kept: its page then reads in batches too. */
  filtersItself?: boolean;
}

/**
 * A page of a tenant's list on the owner index (its users, docs/api.md 9.1; its
 * invitations, 13.1). A filter is applied after DynamoDB's `Limit`, so a filtered page
 * reads on in batches until it is full or the index ends, at most MAX_QUERIES_A_PAGE
 * queries. `next` is the position of the last entry listed when the page filled before
 * the index ended, else where the reading stopped; none when the index ended.
 * An unfiltered page asks for exactly what it lacks, so it reads nothing it does not list.
 */
export async function readIndexPage<T>(dynamo: Dynamo, query: IndexPageQuery<T>): Promise<{ entries: T[]; next?: IndexPosition }> {
  const { kind, partition, limit, filter, entryOf } = query;
  const batched = filter?.FilterExpression !== undefined || query.filtersItself === true;
  const entries: T[] = [];
  let start = query.start;
  for (let round = 0; round < MAX_QUERIES_A_PAGE && entries.length < limit; round++) {
    const page = await dynamo.doc.send(
      new QueryCommand({
        TableName: dynamo.table,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#pk = :pk',
        ...(filter?.FilterExpression ? { FilterExpression: filter.FilterExpression } : {}),
        ExpressionAttributeNames: { '#pk': OWNER_INDEX.partitionKey, ...filter?.ExpressionAttributeNames },
        ExpressionAttributeValues: { ':pk': partition, ...filter?.ExpressionAttributeValues },
        ...(query.newestFirst ? { ScanIndexForward: false } : {}),
        Limit: batched ? Math.max(limit - entries.length, FILTERED_BATCH) : limit - entries.length,
        ExclusiveStartKey: start,
      }),
    );
    const items = page.Items ?? [];
    for (const [index, item] of items.entries()) {
      const entry = entryOf(item);
      if (entry === undefined) continue;
      entries.push(entry);
      if (entries.length === limit) {
        // Full midway through what was read: the next page starts after this entry (none if it was the index's last).
        const more = index < items.length - 1 || page.LastEvaluatedKey !== undefined;
        const next = more ? indexPositionOf(kind, item) : undefined;
        return next ? { entries, next } : { entries };
      }
    }
    start = page.LastEvaluatedKey;
    if (!start) break;
  }
  const next = start && indexPositionOf(kind, start);
  return next ? { entries, next } : { entries };
}
