import { BatchGetCommand } from './commands';
import type { Dynamo } from './dynamo';
import type { Key } from './keys';

/** DynamoDB's limit of keys per BatchGetItem. */
const KEYS_PER_BATCH = 100;

/** How often the keys DynamoDB leaves unprocessed (under load) are asked for again. */
const ROUNDS = 3;

const same = (item: Record<string, unknown>, key: Key) => item.pk === key.pk && item.sk === key.sk;

/**
 * The items of `wanted`, in order (undefined where there is none), each read strongly
 * consistent: one BatchGetItem per 100 keys, all at once, the keys left unprocessed asked
 * for again a few times (then a throttling error, which answers 503).
 */
export async function readMany(dynamo: Dynamo, wanted: Key[]): Promise<Array<Record<string, unknown> | undefined>> {
  const chunks: Key[][] = [];
  for (let i = 0; i < wanted.length; i += KEYS_PER_BATCH) chunks.push(wanted.slice(i, i + KEYS_PER_BATCH));
  const found = (await Promise.all(chunks.map((chunk) => readChunk(dynamo, chunk)))).flat();
  return wanted.map((key) => found.find((item) => same(item, key)));
}

async function readChunk({ doc, table }: Dynamo, chunk: Key[]): Promise<Array<Record<string, unknown>>> {
  const found: Array<Record<string, unknown>> = [];
  let pending = chunk;
  for (let round = 0; pending.length > 0 && round < ROUNDS; round++) {
    const { Responses, UnprocessedKeys } = await doc.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table] ?? []));
    pending = (UnprocessedKeys?.[table]?.Keys ?? []).map((key) => ({ pk: String(key.pk), sk: String(key.sk) }));
  }
  if (pending.length > 0) throw Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ThrottlingException' });
  return found;
}
