import { beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../lib/events/event';
import { dynamoEventStore } from '../../lib/events/outbox';
import type { Dynamo } from '../../lib/store/dynamo';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { eventCount, lastEvents } from '../helpers/events';
import { localDynamo } from '../helpers/local-dynamo';

/** A transaction cancelled as DynamoDB cancels one that meets another on the same item. */
const conflict = () =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'TransactionConflict' }],
  });

/**
 * Events whose change is nothing else (a refused sign-in, docs/events.md): refusals of one
 * account at once meet on its outbox item, and each is still written.
 */
describe('the store of events without another change', () => {
  let deps: TestDeps;
  let dynamo: Dynamo;
  const tenantId = uniqueTenant('event-store');
  const event = (subject: string) =>
    newEvent(deps, { tenantId, type: 'identity.login.failed', subject, actor: { type: 'user', id: subject } });
  /** The table, whose first `conflicts` transactions are cancelled by a concurrent one, unwritten. */
  const conflicting = (conflicts: number): Dynamo => {
    let left = conflicts;
    return {
      ...dynamo,
      doc: {
        ...dynamo.doc,
        send: async (command) => {
          if (command.operation === 'TransactWriteItems' && left-- > 0) throw conflict();
          return dynamo.doc.send(command);
        },
      },
    };
  };

  beforeAll(async () => {
    deps = await testDeps();
    dynamo = localDynamo();
  });

  it('writes an event again after a concurrent transaction on its outbox item cancelled it', async () => {
    const written = event('u-1');
    await dynamoEventStore(conflicting(2)).write([written]);
    expect(await lastEvents(deps, tenantId, 'u-1')).toEqual([{ ...written, sequence: '1' }]);
  });

  it('gives up after a few conflicts in a row, with nothing written', async () => {
    await expect(dynamoEventStore(conflicting(10)).write([event('u-2')])).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(await eventCount(deps, tenantId, 'u-2')).toBe(0);
  });

  it('writes every one of many events of one subject written at once, numbered without a gap', async () => {
    const store = dynamoEventStore(dynamo);
    await Promise.all(Array.from({ length: 8 }, () => store.write([event('u-3')])));
    expect(await eventCount(deps, tenantId, 'u-3')).toBe(8);
  });
});
