import type { Random } from '../crypto/random';
import {
  GetCommand,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  type TransactWriteItem,
  UpdateCommand,
  type UpdateCommandInput,
} from './commands';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed, oldItemOf } from './dynamo';

/** The attribute that carries the marker of the last write-once write of an item. */
export const WRITE_MARKER = 'writeId';

type Item = Record<string, unknown>;

/** A conditional write; the table and the marker are added by `writeOnce`. */
export type OnceWrite =
  | {
      put: Omit<PutCommandInput, 'TableName' | 'ReturnValuesOnConditionCheckFailure'>;
      /**
       * Updates written in one transaction with the put (a record that follows it,
       * lib/store/user-activity.ts). One whose condition fails is not needed: the put goes without it.
       */
      alongside?: TransactWriteItem[];
    }
  | { update: Omit<UpdateCommandInput, 'TableName' | 'ReturnValuesOnConditionCheckFailure'> };

/**
 * What became of a write-once write. `written`: it took effect, on this attempt or on
 * an earlier one whose answer was lost; `item` is the item after it (for an update
 * with `ReturnValues: 'ALL_NEW'`, or as the retry found it). `refused`: its condition
 * failed against someone else's item, which `item` is (undefined if there is none).
 */
export type OnceResult = { written: true; item: Item | undefined } | { written: false; item: Item | undefined };

const withMarker = (expression: string) =>
  /\bSET\s/i.test(expression)
    ? expression.replace(/\bSET\s/i, `SET #${WRITE_MARKER} = :${WRITE_MARKER}, `)
    : `SET #${WRITE_MARKER} = :${WRITE_MARKER} ${expression}`;

/**
 * A conditional write that must take effect once. The SDK retries a write whose answer
 * was lost (a timeout, a dropped connection) after DynamoDB applied it; the retry then
 * fails its condition against its own result, which must not pass for a refusal (a
 * second use, a taken name). Every write carries a marker drawn from `random` for this
 * call alone: a refused write that finds its own marker on the item was applied.
 */
export function writeOnce(dynamo: Dynamo, random: Random, write: OnceWrite): Promise<OnceResult> {
  const marker = random.id();
  const ours = (item: Item | undefined) => item?.[WRITE_MARKER] === marker;
  if ('put' in write) {
    if (write.alongside)
      return putTogether(dynamo, { ...write.put, Item: { ...write.put.Item, [WRITE_MARKER]: marker } }, write.alongside, ours);
    const command = new PutCommand({
      ...write.put,
      TableName: dynamo.table,
      Item: { ...write.put.Item, [WRITE_MARKER]: marker },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return attempt(async () => {
      await dynamo.doc.send(command);
      return write.put.Item;
    }, ours);
  }
  const { UpdateExpression = '', ExpressionAttributeNames, ExpressionAttributeValues } = write.update;
  const command = new UpdateCommand({
    ...write.update,
    TableName: dynamo.table,
    UpdateExpression: withMarker(UpdateExpression),
    ExpressionAttributeNames: { ...ExpressionAttributeNames, [`#${WRITE_MARKER}`]: WRITE_MARKER },
    ExpressionAttributeValues: { ...ExpressionAttributeValues, [`:${WRITE_MARKER}`]: marker },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  return attempt(async () => (await dynamo.doc.send(command)).Attributes, ours);
}

/** A transaction that meets a concurrent one on an item it updates alongside is tried again, this often. */
const CONFLICT_ATTEMPTS = 4;

/**
 * The put of writeOnce in one transaction with `alongside`: it answers as the put alone
 * would (refused with the item found, or recognised as our own after a lost answer). A
 * concurrent transaction on one of the items cancels it unwritten: tried again.
 */
async function putTogether(
  dynamo: Dynamo,
  put: Omit<PutCommandInput, 'TableName' | 'ReturnValuesOnConditionCheckFailure'>,
  alongside: TransactWriteItem[],
  ours: (item: Item | undefined) => boolean,
): Promise<OnceResult> {
  const first = { Put: { ...put, TableName: dynamo.table, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } };
  let needed = alongside;
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo.doc.send(new TransactWriteCommand({ TransactItems: [first, ...needed] }));
      return { written: true, item: put.Item };
    } catch (error) {
      const reasons = cancellationCodes(error);
      if (reasons?.[0] === 'ConditionalCheckFailed') {
        const [reason] = (error as Error & { CancellationReasons?: Array<{ Item?: Item }> }).CancellationReasons ?? [];
        const item = reason ? oldItemOf(reason) : undefined;
        return { written: ours(item), item };
      }
      const refused = needed.filter((_, i) => reasons?.[i + 1] === 'ConditionalCheckFailed');
      if (refused.length > 0) {
        needed = needed.filter((item) => !refused.includes(item));
        continue;
      }
      if (!reasons?.includes('TransactionConflict') || attempt >= CONFLICT_ATTEMPTS) throw error;
      await new Promise((done) => setTimeout(done, 10 * attempt + Math.random() * 20 * attempt));
    }
  }
}

async function attempt(send: () => Promise<Item | undefined>, ours: (item: Item | undefined) => boolean): Promise<OnceResult> {
  try {
    return { written: true, item: await send() };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const item = oldItemOf(error);
    return { written: ours(item), item };
  }
}

/**
 * A transaction whose first item must be written once (a code marked used together
 * with what it grants). A transaction the SDK retries is idempotent by its client
 * request token; should a retry still meet its own result, the marker on the first
 * item tells it from another request's. A condition that fails, or a concurrent
 * transaction on one of its items (`TransactionConflict`), refuses it: false.
 */
export async function transactOnce(
  dynamo: Dynamo,
  random: Random,
  items: NonNullable<TransactWriteCommandInput['TransactItems']>,
): Promise<boolean> {
  return (await transactOnceOrReasons(dynamo, random, items)) === true;
}

/**
 * transactOnce, telling why a refused transaction was refused: true when it was written
 * (on this attempt or an earlier one whose answer was lost), else the cancellation code
 * of each item by position (`ConditionalCheckFailed`, `TransactionConflict`, `None`).
 */
export async function transactOnceOrReasons(
  dynamo: Dynamo,
  random: Random,
  items: NonNullable<TransactWriteCommandInput['TransactItems']>,
): Promise<true | Array<string | undefined>> {
  const [first, ...rest] = items;
  const update = first?.Update;
  if (!update) throw new Error('transactOnce: the first item must be an update');
  const marker = random.id();
  const marked = {
    Update: {
      ...update,
      UpdateExpression: withMarker(update.UpdateExpression ?? ''),
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, [`#${WRITE_MARKER}`]: WRITE_MARKER },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, [`:${WRITE_MARKER}`]: marker },
    },
  };
  try {
    await dynamo.doc.send(new TransactWriteCommand({ TransactItems: [marked, ...rest] }));
    return true;
  } catch (error) {
    const reasons = cancellationCodes(error);
    if (!reasons?.includes('ConditionalCheckFailed') && !reasons?.includes('TransactionConflict')) throw error;
    // A retry after a lost answer may meet its own transaction, applied or still settling.
    const { Item } = await dynamo.doc.send(new GetCommand({ TableName: update.TableName, Key: update.Key, ConsistentRead: true }));
    return Item?.[WRITE_MARKER] === marker ? true : reasons;
  }
}
