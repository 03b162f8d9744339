import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PutCommand } from '../../lib/store/commands';
import { readTogether } from '../../lib/store/read-together';
import { localDynamo } from '../helpers/local-dynamo';

/** The commands a client sends, by name, with their consistency. */
function counted() {
  const dynamo = localDynamo();
  const sent: Array<{ command: string; consistent: unknown }> = [];
  dynamo.doc.middlewareStack.add(
    (next, { commandName }) =>
      async (args) => {
        const input = args.input as { ConsistentRead?: unknown; RequestItems?: Record<string, { ConsistentRead?: unknown }> };
        sent.push({ command: commandName, consistent: input.ConsistentRead ?? input.RequestItems?.[dynamo.table]?.ConsistentRead });
        return next(args);
      },
    { step: 'initialize', name: 'countReads' },
  );
  return { dynamo, sent };
}

describe('readTogether', () => {
  const key = () => ({ pk: `READ#${randomBytes(6).toString('hex')}`, sk: 'ITEM' });

  it('reads the items asked for in one turn with one BatchGetItem, consistent if any read is', async () => {
    const { dynamo, sent } = counted();
    const [a, b, absent] = [key(), key(), key()];
    for (const [item, n] of [
      [a, 1],
      [b, 2],
    ] as const)
      await dynamo.doc.send(new PutCommand({ TableName: dynamo.table, Item: { ...item, n } }));
    sent.length = 0;
    const read = readTogether(dynamo);
    const found = await Promise.all([
      read(a, { consistent: false }),
      read(b, { consistent: true }),
      read(absent, { consistent: false }),
      read(a, { consistent: false }),
    ]);
    expect(found).toEqual([{ ...a, n: 1 }, { ...b, n: 2 }, undefined, { ...a, n: 1 }]);
    expect(sent).toEqual([{ command: 'BatchGetItemCommand', consistent: true }]);
  });

  it('reads an item asked for alone with the GetItem it asks for', async () => {
    const { dynamo, sent } = counted();
    const read = readTogether(dynamo);
    expect(await read(key(), { consistent: false })).toBeUndefined();
    expect(await read(key(), { consistent: true })).toBeUndefined();
    expect(sent).toEqual([
      { command: 'GetItemCommand', consistent: false },
      { command: 'GetItemCommand', consistent: true },
    ]);
  });

  it("gives every read of a batch the batch's error", async () => {
    const { dynamo } = counted();
    dynamo.doc.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('refused'), { name: 'InternalServerError' });
      },
      { step: 'initialize', name: 'refuse' },
    );
    const read = readTogether(dynamo);
    const results = await Promise.allSettled([read(key(), { consistent: true }), read(key(), { consistent: false })]);
    expect(results).toEqual([
      { status: 'rejected', reason: expect.objectContaining({ name: 'InternalServerError' }) },
      { status: 'rejected', reason: expect.objectContaining({ name: 'InternalServerError' }) },
    ]);
  });
});
