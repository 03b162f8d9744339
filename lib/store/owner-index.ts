import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { OWNER_INDEX } from './table';

/**
 * Everything of one kind a user owns (their sessions or grants), newest first, from the
 * owner index: every page, each item parsed (an item `parse` refuses is left out). The
 * index is eventually consistent: for listings, never for a decision.
 */
export async function listOwned<R>(
  { doc, table }: Dynamo,
  owner: { tenantId: string; userId: string; kind: 'SESSION' | 'GRANT' },
  parse: (item: Record<string, unknown>) => R | undefined,
): Promise<R[]> {
  const owned: R[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#pk = :owner AND begins_with(#sk, :kind)',
        ExpressionAttributeNames: { '#pk': OWNER_INDEX.partitionKey, '#sk': OWNER_INDEX.sortKey },
        ExpressionAttributeValues: { ':owner': keys.ownerPartition(owner.tenantId, owner.userId), ':kind': `${owner.kind}#` },
        ScanIndexForward: false,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const record = parse(item);
      if (record !== undefined) owned.push(record);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return owned;
}
