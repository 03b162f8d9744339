import { BatchWriteCommand, type Item } from './commands';
import type { Dynamo } from './dynamo';

/** The most deletes one BatchWriteItem takes. */
const BATCH = 25;
/** Sends of what DynamoDB left unprocessed before giving up. */
const ROUNDS = 5;

/**
 * Deletes the items of these keys, 25 to a BatchWriteItem (one round trip for up to 25),
 * sending again what DynamoDB left unprocessed; still unprocessed after five sends, a
 * ThrottlingException (worth a retry: deleting is idempotent). No conditions, no events.
 */
export async function deleteKeys({ doc, table }: Dynamo, keys: readonly Item[]): Promise<void> {
  for (let i = 0; i < keys.length; i += BATCH) {
    let pending = keys.slice(i, i + BATCH).map((Key) => ({ DeleteRequest: { Key } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round === ROUNDS) throw Object.assign(new Error('BatchWriteItem left items unprocessed'), { name: 'ThrottlingException' });
      const { UnprocessedItems } = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (UnprocessedItems?.[table] ?? []).flatMap((request) =>
        request.DeleteRequest?.Key ? [{ DeleteRequest: { Key: request.DeleteRequest.Key } }] : [],
      );
    }
  }
}
