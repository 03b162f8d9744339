import { inject } from 'vitest';
import type { DeliveryPlanner, DeliveryQueue } from '../../lib/deliveries/delivery';
import type { Deps } from '../../lib/deps';
import type { CloudEvent } from '../../lib/events/event';
import { type Publishing, publishRecords } from '../../lib/events/publish';
import { followStream, type StreamFollower } from '../../scripts/lib/local-stream';

/** What the table's stream published while a test ran, through the real publisher (docs/api.md 17.1). */
export interface Published {
  events: CloudEvent[];
  /** The published events matching `match`, once there are at least `count` of them (within `timeoutMs`). */
  until(match: (event: CloudEvent) => boolean, count?: number, timeoutMs?: number): Promise<CloudEvent[]>;
  stop(): Promise<void>;
}

/**
 * Follows the stream of the table of `deps` (made with `testDeps(env, { streamed: true })`)
 * from now on, publishing as the function does into an in-memory sink (and through
 * `planners` into `queue`, when given). Other test files write to the same table: match on
 * your own tenant.
 */
export async function publishedEvents(
  deps: Deps,
  extra: { planners?: DeliveryPlanner[]; queue?: DeliveryQueue; sinkFails?: () => boolean } = {},
): Promise<Published> {
  const events: CloudEvent[] = [];
  const publishing: Publishing = {
    sinks: [
      {
        async publish(batch) {
          if (extra.sinkFails?.()) throw new Error('EventBridge is unreachable');
          events.push(...batch);
        },
      },
    ],
    planners: extra.planners ?? [],
    queue: extra.queue ?? { enqueue: async () => {} },
  };
  const follower: StreamFollower = await followStream({
    endpoint: inject('dynamodbEndpoint'),
    tableName: deps.config.tableName,
    from: 'LATEST',
    intervalMs: 50,
    retryMs: 100,
    onRecords: (records) => publishRecords(deps, publishing, records),
  });
  return {
    events,
    async until(match, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.filter(match);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`Only ${found.length} of ${count} events published within ${timeoutMs} ms`);
        await new Promise((done) => setTimeout(done, 25));
      }
    },
    stop: () => follower.stop(),
  };
}
