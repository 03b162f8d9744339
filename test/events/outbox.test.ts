import { beforeAll, describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import { newEvent } from '../../lib/events/event';
import { carryingEvents } from '../../lib/events/outbox';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '../../lib/store/commands';
import { type Dynamo, isConditionalCheckFailed, oldItemOf } from '../../lib/store/dynamo';
import { writeOnce } from '../../lib/store/write-once';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { eventCount, lastEvents } from '../helpers/events';
import { localDynamo } from '../helpers/local-dynamo';

/**
 * The outbox (docs/events.md, How events leave): an event is written by the write of its
 * change, in one transaction, or not at all.
 */
describe('events carried by the write of their change', () => {
  let deps: TestDeps;
  let dynamo: Dynamo;
  const tenantId = uniqueTenant('outbox');
  const event = (subject: string, type: 'identity.user.updated' | 'identity.user.disabled' = 'identity.user.updated') =>
    newEvent(deps, { tenantId, type, subject, actor: { type: 'system', id: null } });
  const key = (name: string) => ({ pk: `T#${tenantId}#SCRATCH#${name}`, sk: 'SCRATCH' });
  const read = async (name: string) =>
    (await dynamo.doc.send(new GetCommand({ TableName: dynamo.table, Key: key(name), ConsistentRead: true }))).Item;

  beforeAll(async () => {
    deps = await testDeps();
    dynamo = localDynamo();
  });

  it('a put, an update that answers the item after it, a delete and a transaction each carry their events', async () => {
    const first = event('u-1');
    await carryingEvents(dynamo, [first]).doc.send(new PutCommand({ TableName: dynamo.table, Item: { ...key('a'), n: 1 } }));
    expect(await lastEvents(deps, tenantId, 'u-1')).toEqual([{ ...first, sequence: '1' }]);

    const second = event('u-1', 'identity.user.disabled');
    const { Attributes } = await carryingEvents(dynamo, [second]).doc.send(
      new UpdateCommand({
        TableName: dynamo.table,
        Key: key('a'),
        UpdateExpression: 'SET n = n + :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(Attributes).toMatchObject({ n: 2 });
    expect(await lastEvents(deps, tenantId, 'u-1')).toEqual([{ ...second, sequence: '2' }]);

    // Two subjects, two events of one of them: one outbox update each, numbered in order.
    const [third, fourth, other] = [event('u-1'), event('u-1'), event('u-2')];
    await carryingEvents(dynamo, [third, other, fourth]).doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: dynamo.table, Key: key('a') } },
          { Put: { TableName: dynamo.table, Item: { ...key('b'), n: 1 } } },
        ],
      }),
    );
    expect(await lastEvents(deps, tenantId, 'u-1')).toEqual([
      { ...third, sequence: '3' },
      { ...fourth, sequence: '4' },
    ]);
    expect(await lastEvents(deps, tenantId, 'u-2')).toEqual([{ ...other, sequence: '1' }]);
    expect(await read('a')).toBeUndefined();

    await carryingEvents(dynamo, [event('u-2')]).doc.send(new DeleteCommand({ TableName: dynamo.table, Key: key('b') }));
    expect([await read('b'), await eventCount(deps, tenantId, 'u-2')]).toEqual([undefined, 2]);
  });

  it('a write refused by its condition leaves no event, and is refused as it would be alone (with the item found)', async () => {
    await dynamo.doc.send(new PutCommand({ TableName: dynamo.table, Item: { ...key('c'), n: 7 } }));
    const refused = carryingEvents(dynamo, [event('u-3')]).doc.send(
      new PutCommand({
        TableName: dynamo.table,
        Item: { ...key('c'), n: 8 },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const error = await refused.catch((caught: unknown) => caught);
    expect(isConditionalCheckFailed(error)).toBe(true);
    expect(oldItemOf(error as { Item?: Record<string, unknown> })).toMatchObject({ n: 7 });
    expect(await lastEvents(deps, tenantId, 'u-3')).toEqual([]);
  });

  it('a write refused by its condition leaves the events to the store’s next write: its retry of the change', async () => {
    await dynamo.doc.send(new PutCommand({ TableName: dynamo.table, Item: { ...key('g'), n: 1 } }));
    const one = event('u-7');
    const carrying = carryingEvents(dynamo, [one]);
    const put = (n: number) =>
      carrying.doc.send(
        new PutCommand({
          TableName: dynamo.table,
          Item: { ...key('g'), n },
          ConditionExpression: 'n = :n',
          ExpressionAttributeValues: { ':n': n - 1 },
        }),
      );
    await expect(put(3)).rejects.toThrow('The conditional request failed');
    await put(2);
    expect(await lastEvents(deps, tenantId, 'u-7')).toEqual([{ ...one, sequence: '1' }]);
    // Written once: a third write goes plain.
    await put(3);
    expect(await eventCount(deps, tenantId, 'u-7')).toBe(1);
  });

  it('a write-once write whose answer was lost is written once, with its event once', async () => {
    const carrying = carryingEvents(dynamo, [event('u-4')]);
    let lose = true;
    const losing: Dynamo = {
      ...carrying,
      doc: {
        ...carrying.doc,
        // The transaction lands, its answer is lost, and the caller's retry meets its own write.
        send: async (command) => {
          const answer = await carrying.doc.send(command);
          if (lose) {
            lose = false;
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          }
          return answer;
        },
      },
    };
    const put = { put: { Item: { ...key('d'), n: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } };
    await expect(writeOnce(losing, cryptoRandom, put)).rejects.toThrow('socket hang up');
    // A second request's write (plain: the events went with the first) is refused by the first's result.
    expect(await writeOnce(dynamo, cryptoRandom, put)).toMatchObject({ written: false });
    expect(await eventCount(deps, tenantId, 'u-4')).toBe(1);
  });

  it('a write that fails before reaching the database leaves neither the change nor the event', async () => {
    const broken: Dynamo = {
      ...dynamo,
      doc: {
        ...dynamo.doc,
        send: async (command) => {
          if (command.operation === 'TransactWriteItems') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          return dynamo.doc.send(command);
        },
      },
    };
    const write = carryingEvents(broken, [event('u-5')]).doc.send(new PutCommand({ TableName: dynamo.table, Item: { ...key('e'), n: 1 } }));
    await expect(write).rejects.toThrow('socket hang up');
    expect([await read('e'), await lastEvents(deps, tenantId, 'u-5')]).toEqual([undefined, []]);
  });

  it('concurrent changes of one subject are all written, each with its event, numbered without a gap', async () => {
    const events = Array.from({ length: 6 }, () => event('u-6'));
    await Promise.all(
      events.map((one, index) =>
        carryingEvents(dynamo, [one]).doc.send(new PutCommand({ TableName: dynamo.table, Item: { ...key(`f${index}`), n: index } })),
      ),
    );
    expect(await eventCount(deps, tenantId, 'u-6')).toBe(6);
    for (const index of events.keys()) expect(await read(`f${index}`)).toMatchObject({ n: index });
  });
});
