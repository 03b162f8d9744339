import { BatchGetCommand, GetCommand, type Item } from './commands';
import type { Dynamo } from './dynamo';
import type { Key } from './keys';

/** Reads one item by its key; `consistent` for a strongly consistent read. */
export type ItemReader = (key: Key, options: { consistent: boolean }) => Promise<Item | undefined>;

interface Wanted {
  key: Key;
  consistent: boolean;
  resolve: (item: Item | undefined) => void;
  reject: (error: unknown) => void;
}

/** BatchGetItem's limit of keys per call. */
const MOST_KEYS = 100;
const idOf = (key: { pk?: unknown; sk?: unknown }) => `${String(key.pk)}\n${String(key.sk)}`;

/** One reader per client and table, so that the stores built on them read together. */
const readers = new WeakMap<object, Map<string, ItemReader>>();

/**
 * Single-item reads asked for in the same turn of the event loop go to DynamoDB as one
 * `BatchGetItem` (strongly consistent if any of them is): a token request's client and
 * its source's count of failed authentications are one round trip, not two
 * (docs/performance.md, "Token endpoint and its peers"). A read asked alone is the
 * `GetItem` it always was. Every reader of a batch gets its item, or the batch's error.
 */
export function readTogether(dynamo: Dynamo): ItemReader {
  const byTable = readers.get(dynamo.doc) ?? new Map<string, ItemReader>();
  readers.set(dynamo.doc, byTable);
  const reader = byTable.get(dynamo.table) ?? batchingReader(dynamo);
  byTable.set(dynamo.table, reader);
  return reader;
}

function batchingReader({ doc, table }: Dynamo): ItemReader {
  let waiting: Wanted[] | undefined;

  async function read(batch: Wanted[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const [only] = batch;
    if (batch.length === 1 && only) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: only.key, ConsistentRead: only.consistent }));
      if (Item) found.set(idOf(only.key), Item);
      return found;
    }
    const consistent = batch.some((wanted) => wanted.consistent);
    let pending = [...new Map(batch.map((wanted) => [idOf(wanted.key), wanted.key])).values()];
    // BatchGetItem may leave keys unprocessed under load: asked again, a few times.
    for (let round = 0; pending.length > 0 && round < 3; round++) {
      const { Responses, UnprocessedKeys } = await doc.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      for (const item of Responses?.[table] ?? []) found.set(idOf(item), item);
      pending = (UnprocessedKeys?.[table]?.Keys ?? []).map((key) => ({ pk: String(key.pk), sk: String(key.sk) }));
    }
    if (pending.length > 0) throw Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ThrottlingException' });
    return found;
  }

  return (key, { consistent }) =>
    new Promise((resolve, reject) => {
      if (!waiting || waiting.length >= MOST_KEYS) {
        const batch: Wanted[] = [];
        waiting = batch;
        queueMicrotask(() => {
          if (waiting === batch) waiting = undefined;
          read(batch).then(
            (found) => {
              for (const wanted of batch) wanted.resolve(found.get(idOf(wanted.key)));
            },
            (error: unknown) => {
              for (const wanted of batch) wanted.reject(error);
            },
          );
        });
      }
      waiting.push({ key, consistent, resolve, reject });
    });
}
