import type { Deps } from '../../lib/deps';
import type { CloudEvent } from '../../lib/events/event';
import { eventsOfOutbox, outboxKey } from '../../lib/events/outbox';
import { GetCommand } from '../../lib/store/commands';
import { createDynamo } from '../../lib/store/dynamo';
import { type Key, keys } from '../../lib/store/keys';

/**
 * The events of the last write that carried events for a subject (a user, a client...),
 * read from its outbox item (docs/events.md, How events leave), with their `sequence`;
 * [] when none was ever written. A test of one change reads what that change emitted.
 * With no subject (a sign-in of an unknown username): the last events of each of the
 * tenant's subjectless items, by time.
 */
export async function lastEvents(deps: Pick<Deps, 'config'>, tenantId: string, subject: string | null): Promise<CloudEvent[]> {
  const dynamo = createDynamo({ tableName: deps.config.tableName, region: deps.config.awsRegion, endpoint: deps.config.dynamodbEndpoint });
  const read = async (key: Key) =>
    (await dynamo.doc.send(new GetCommand({ TableName: dynamo.table, Key: key, ConsistentRead: true }))).Item;
  if (subject !== null) {
    const item = await read(outboxKey({ tenantid: tenantId, subject, id: '' }));
    return item ? eventsOfOutbox(item) : [];
  }
  const items = await Promise.all(Array.from({ length: 16 }, (_, shard) => read(keys.events(tenantId, `-${shard}`))));
  return items.flatMap((item) => (item ? eventsOfOutbox(item) : [])).sort((a, b) => a.time.localeCompare(b.time));
}

/** How many events a subject's outbox has numbered so far (0: none). */
export async function eventCount(deps: Pick<Deps, 'config'>, tenantId: string, subject: string | null): Promise<number> {
  const events = await lastEvents(deps, tenantId, subject);
  return events.length === 0 ? 0 : Number(events.at(-1)?.sequence);
}
