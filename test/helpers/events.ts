import type { Deps } from '../../lib/deps';
import type { CloudEvent } from '../../lib/events/event';
import { eventsOfOutbox, outboxKey } from '../../lib/events/outbox';
import { GetCommand } from '../../lib/store/commands';
import { createDynamo } from '../../lib/store/dynamo';
import { keys } from '../../lib/store/keys';

/**
 * The events of the last write that carried events for a subject (a user, a client...),
 * read from its outbox item (docs/events.md, How events leave), with their `sequence`;
 * [] when none was ever written. A test of one change reads what that change emitted.
 */
export async function lastEvents(deps: Pick<Deps, 'config'>, tenantId: string, subject: string | null): Promise<CloudEvent[]> {
  const dynamo = createDynamo({ tableName: deps.config.tableName, region: deps.config.awsRegion, endpoint: deps.config.dynamodbEndpoint });
  const { Item } = await dynamo.doc.send(
    new GetCommand({
      TableName: dynamo.table,
      Key: outboxKey({ tenantid: tenantId, subject: subject ?? undefined, id: '' }),
      ConsistentRead: true,
    }),
  );
  return Item ? eventsOfOutbox(Item) : [];
}

/** How many events a subject's outbox has numbered so far (0: none). */
export async function eventCount(deps: Pick<Deps, 'config'>, tenantId: string, subject: string | null): Promise<number> {
  const events = await lastEvents(deps, tenantId, subject);
  return events.length === 0 ? 0 : Number(events.at(-1)?.sequence);
}
