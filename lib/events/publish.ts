import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryPlanner, DeliveryQueue } from '../deliveries/delivery';
import type { Deps } from '../deps';
import type { CloudEvent } from './event';
import { eventsOfOutbox } from './outbox';

/** A record of the table's stream (NEW_AND_OLD_IMAGES), as Lambda and the streams API give it. */
export interface StreamRecord {
  eventName?: string | undefined;
  dynamodb?: { NewImage?: Record<string, unknown> | undefined; SequenceNumber?: string | undefined } | undefined;
}

/** Where published events go: the EventBridge bus, or locally a file. Throws when they did not all arrive. */
export interface EventSink {
  publish(events: CloudEvent[]): Promise<void>;
}

/** What publishing needs: the sinks, and the deliveries the events call for (webhooks, back-channel logout). */
export interface Publishing {
  sinks: EventSink[];
  planners: DeliveryPlanner[];
  queue: DeliveryQueue;
}

/** EventBridge takes at most 10 entries per PutEvents. */
export const EVENTS_PER_PUT = 10;

/**
 * The events a stream record carries out: those of an outbox item's write (an insert or
 * an update; its removal by TTL carries none). Every other item of the table carries none.
 */
export function eventsOfRecord(record: StreamRecord): CloudEvent[] {
  const image = record.dynamodb?.NewImage;
  if (record.eventName === 'REMOVE' || !image || (image.sk as { S?: string } | undefined)?.S !== 'EVENTS') return [];
  return eventsOfOutbox(unmarshall(image as Parameters<typeof unmarshall>[0]));
}

/**
 * Publishes a batch of stream records in their order (docs/api.md 17.1): the events of
 * consecutive records go together, up to EVENTS_PER_PUT at a time, to every sink, and the
 * deliveries they call for are queued. At the first failure it stops and answers the
 * record where its group began: Lambda tries again from there (`ReportBatchItemFailures`),
 * so no event is published after one of its subject that was not, and an event may be
 * published twice (at least once, with its stable `id`).
 */
export async function publishRecords(
  deps: Deps,
  publishing: Publishing,
  records: StreamRecord[],
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
  const groups: Array<{ first: StreamRecord; events: CloudEvent[] }> = [];
  for (const record of records) {
    const events = eventsOfRecord(record);
    if (events.length === 0) continue;
    const last = groups.at(-1);
    if (last && last.events.length + events.length <= EVENTS_PER_PUT) last.events.push(...events);
    else groups.push({ first: record, events });
  }
  for (const { first, events } of groups) {
    try {
      await Promise.all(publishing.sinks.map((sink) => sink.publish(events)));
      const deliveries = (await Promise.all(publishing.planners.map((plan) => plan(deps, events)))).flat();
      if (deliveries.length > 0) await publishing.queue.enqueue(deliveries);
      for (const event of events) deps.log.info('event_published', { eventId: event.id, eventType: event.type, tenantId: event.tenantid });
    } catch (error) {
      deps.log.error('events_not_published', { eventIds: events.map((event) => event.id), error });
      return { batchItemFailures: [{ itemIdentifier: first.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
}
