import { QueryCommand, type QueryCommandInput } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { OWNER_INDEX } from './table';

/** A query on the owner index: its expressions, with `#pk` and `#sk` naming the index keys. */
export type OwnerIndexQuery = Omit<QueryCommandInput, 'TableName' | 'IndexName' | 'ExclusiveStartKey'>;

/** The index keys' names a key condition uses (DynamoDB refuses names an expression does not use). */
const indexNames = (condition: string) => ({
  '#pk': OWNER_INDEX.partitionKey,
  ...(condition.includes('#sk') ? { '#sk': OWNER_INDEX.sortKey } : {}),
});

/**
 * The items of a query on the owner index, page after page until the index ends (the
 * caller may stop early). The index is eventually consistent: for listings, and for
 * finding candidates a transaction then checks, never for a decision on its own.
 */
export async function* ownerIndexItems({ doc, table }: Dynamo, query: OwnerIndexQuery): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        ...query,
        TableName: table,
        IndexName: OWNER_INDEX.name,
        ExpressionAttributeNames: { ...indexNames(query.KeyConditionExpression ?? ''), ...query.ExpressionAttributeNames },
        ExclusiveStartKey,
      }),
    );
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Everything of one kind a user owns (their sessions, grants or passkeys), newest first; an item `parse` refuses is left out. */
export async function listOwned<R>(
  dynamo: Dynamo,
  owner: { tenantId: string; userId: string; kind: 'SESSION' | 'GRANT' | 'PASSKEY' },
  parse: (item: Record<string, unknown>) => R | undefined,
): Promise<R[]> {
  const owned: R[] = [];
  const items = ownerIndexItems(dynamo, {
    KeyConditionExpression: '#pk = :owner AND begins_with(#sk, :kind)',
    ExpressionAttributeValues: { ':owner': keys.ownerPartition(owner.tenantId, owner.userId), ':kind': `${owner.kind}#` },
    ScanIndexForward: false,
  });
  for await (const item of items) {
    const record = parse(item);
    if (record !== undefined) owned.push(record);
  }
  return owned;
}
