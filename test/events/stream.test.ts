import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../lib/events/event';
import { carryingEvents } from '../../lib/events/outbox';
import { eventsOfRecord, publishRecords, type StreamRecord } from '../../lib/events/publish';
import { PutCommand } from '../../lib/store/commands';
import type { Dynamo } from '../../lib/store/dynamo';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { localDynamo } from '../helpers/local-dynamo';
import { type Published, publishedEvents } from '../helpers/published-events';

/** The table's stream carries the outboxes' events out (docs/api.md 17.1). */
describe('the event stream', () => {
  let deps: TestDeps;
  let dynamo: Dynamo;
  let published: Published;
  let failing = false;
  const tenantId = uniqueTenant('stream');
  const event = (subject: string) =>
    newEvent(deps, { tenantId, type: 'identity.user.updated', subject, actor: { type: 'system', id: null } });
  const change = (subject: string, name: string) => {
    const one = event(subject);
    return carryingEvents(dynamo, [one])
      .doc.send(new PutCommand({ TableName: dynamo.table, Item: { pk: `T#${tenantId}#SCRATCH#${name}`, sk: 'SCRATCH' } }))
      .then(() => one);
  };

  beforeAll(async () => {
    deps = await testDeps({}, { streamed: true });
    dynamo = localDynamo({ tableName: deps.config.tableName });
    published = await publishedEvents(deps, { sinkFails: () => failing });
  });
  afterAll(() => published.stop());

  it('publishes each change’s event once, in order per subject, with its place among the subject’s events', async () => {
    const written = [];
    for (let index = 0; index < 5; index++) written.push(await change('user-a', `a${index}`));
    const events = await published.until((one) => one.tenantid === tenantId && one.subject === 'user-a', 5);
    expect(events.map((one) => one.id)).toEqual(written.map((one) => one.id));
    expect(events.map((one) => one.sequence)).toEqual(['1', '2', '3', '4', '5']);
    expect(events[0]).toMatchObject({
      specversion: '1.0',
      type: 'identity.user.updated',
      tenantid: tenantId,
      subject: 'user-a',
      source: deps.config.issuer,
    });
  });

  it('an event the bus did not take is published again, still before the later events of its subject', async () => {
    failing = true;
    const first = await change('user-b', 'b0');
    const second = await change('user-b', 'b1');
    await new Promise((done) => setTimeout(done, 300));
    expect(published.events.filter((one) => one.subject === 'user-b' && one.tenantid === tenantId)).toEqual([]);
    failing = false;
    const events = await published.until((one) => one.tenantid === tenantId && one.subject === 'user-b', 2);
    expect(events.map((one) => one.id)).toEqual([first.id, second.id]);
  });

  it('reads events only from outbox writes, never from their removal or from other items', () => {
    const image = { pk: { S: 'T#x#EVENTS#u' }, sk: { S: 'EVENTS' }, seq: { N: '1' }, events: { L: [] } };
    expect(eventsOfRecord({ eventName: 'REMOVE', dynamodb: { NewImage: image } })).toEqual([]);
    expect(eventsOfRecord({ eventName: 'INSERT', dynamodb: { NewImage: { ...image, sk: { S: 'PROFILE' } } } })).toEqual([]);
  });

  it('reports the record where publishing failed, so the batch is tried again from there', async () => {
    const outbox = (id: string, sequence: string): StreamRecord => ({
      eventName: 'MODIFY',
      dynamodb: {
        SequenceNumber: sequence,
        NewImage: {
          pk: { S: 'T#x#EVENTS#u' },
          sk: { S: 'EVENTS' },
          seq: { N: sequence },
          events: {
            L: [
              { M: { id: { S: id }, type: { S: 'identity.user.updated' }, tenantid: { S: 'x' }, time: { S: new Date().toISOString() } } },
            ],
          },
        },
      },
    });
    let calls = 0;
    const secondFails = async () => {
      calls++;
      if (calls === 2) throw new Error('down');
    };
    const records = Array.from({ length: 12 }, (_, index) => outbox(`e${index}`, String(index + 1)));
    // Ten events a put: the first ten records go together, and the second group, from record 11, fails.
    const publishing = { sinks: [{ publish: secondFails }], planners: [], queue: { enqueue: async () => {} } };
    expect(await publishRecords(deps, publishing, records)).toEqual({ batchItemFailures: [{ itemIdentifier: '11' }] });
  });
});
