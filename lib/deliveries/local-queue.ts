import type { Deps } from '../deps';
import { type AttemptSettings, attemptDelivery } from './attempt';
import type { Delivery, DeliveryQueue } from './delivery';

/** The local queue, with what tests need: wait until no attempt is pending or running, and stop. */
export interface LocalDeliveryQueue extends DeliveryQueue {
  /** Resolves once no attempt is running and none is due within `horizonMs`. */
  settled(horizonMs?: number): Promise<void>;
  stop(): void;
}

/**
 * The delivery queue of `npm start` and the tests (docs/api.md 17.2): the same schedule
 * as SQS, kept with timers in the process (lost when it stops). Each attempt runs on its
 * own, so a slow receiver holds only its own deliveries.
 */
export function localDeliveryQueue(deps: Deps, settings: AttemptSettings): LocalDeliveryQueue {
  const timers = new Map<NodeJS.Timeout, number>();
  const running = new Set<Promise<void>>();
  let stopped = false;
  const schedule = (delivery: Delivery, dueAt: number) => {
    if (stopped) return;
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        const run = attemptDelivery(deps, settings, delivery)
          .then((next) => next && schedule(next.delivery, next.dueAt))
          .catch((error) => {
            deps.log.error('delivery_attempt_failed', { deliveryId: delivery.id, kind: delivery.kind, tenantId: delivery.tenantId, error });
            schedule(delivery, deps.clock.now() + 1000);
          })
          .finally(() => running.delete(run));
        running.add(run);
      },
      Math.max(0, dueAt - deps.clock.now()),
    );
    timers.set(timer, dueAt);
  };
  return {
    async enqueue(deliveries) {
      for (const delivery of deliveries) schedule(delivery, delivery.firstAttemptAt);
    },
    async settled(horizonMs = 0) {
      for (;;) {
        const soon = [...timers.values()].some((dueAt) => dueAt <= deps.clock.now() + horizonMs);
        if (running.size === 0 && !soon) return;
        await Promise.all([...running]);
        await new Promise((done) => setTimeout(done, 5));
      }
    },
    stop() {
      stopped = true;
      for (const timer of timers.keys()) clearTimeout(timer);
      timers.clear();
    },
  };
}
