import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EVENTS_PER_PUT, type EventSink } from './publish';

/**
 * The stage's EventBridge bus (docs/api.md 17.1): each CloudEvent whole as the `detail`,
 * its type as the `detail-type`, its source as the `source`, so that rules match on
 * `detail-type` and `detail.tenantid`. An entry EventBridge refuses fails the batch.
 */
export function eventBridgeSink(client: Pick<EventBridgeClient, 'send'>, busName: string): EventSink {
  return {
    async publish(events) {
      const { PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
      for (let start = 0; start < events.length; start += EVENTS_PER_PUT) {
        const chunk = events.slice(start, start + EVENTS_PER_PUT);
        const answer = await client.send(
          new PutEventsCommand({
            Entries: chunk.map((event) => ({
              EventBusName: busName,
              Source: event.source,
              DetailType: event.type,
              Detail: JSON.stringify(event),
              Time: new Date(event.time),
            })),
          }),
        );
        if ((answer.FailedEntryCount ?? 0) > 0) {
          const refused = answer.Entries?.find((entry) => entry.ErrorCode);
          throw new Error(`EventBridge refused ${answer.FailedEntryCount} of ${chunk.length} events: ${refused?.ErrorCode ?? 'unknown'}`);
        }
      }
    },
  };
}

/** Locally (`npm start`): one CloudEvent per line appended to a file, which `npm run events` prints. */
export function fileSink(path: string): EventSink {
  return {
    async publish(events) {
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    },
  };
}
