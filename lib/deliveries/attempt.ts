import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import type { DeliveryEntry } from '../store/webhooks';
import type { Delivery, DeliveryKind, RequestMaker } from './delivery';
import { nextAttemptAt } from './schedule';
import { type AttemptOutcome, sendAttempt } from './send';

/** The request makers of each kind (webhooks; back-channel logout), given by whoever composes the stage (lib/events/publishing.ts). */
export type RequestMakers = Partial<Record<DeliveryKind, RequestMaker>>;

/** How long a delivery's entry stays in its log after its last attempt (docs/api.md 17.2). */
export const DELIVERY_LOG_RETENTION_SECONDS = 30 * 24 * 3600;

/** What an attempt needs beyond the deps: the makers, and (for tests) the sender and the jitter of the schedule. */
export interface AttemptSettings {
  makers: RequestMakers;
  send?: typeof sendAttempt;
  jitter?: () => number;
}

/** The delivery's next attempt and when it is due (epoch ms). */
export interface NextAttempt {
  delivery: Delivery;
  dueAt: number;
}

/** The delivery log's entry of an attempt: ids and outcome only, never the body, URL or secret. */
export function deliveryEntry(delivery: Delivery, outcome: AttemptOutcome, at: number, next: number | undefined): DeliveryEntry {
  const { id, type } = delivery.payload;
  return {
    id: delivery.id,
    kind: delivery.kind,
    target: delivery.target,
    eventId: typeof id === 'string' ? id : null,
    eventType: typeof type === 'string' ? type : null,
    attempts: delivery.attempt,
    status: outcome.delivered ? 'delivered' : next === undefined ? 'failed' : 'retrying',
    lastStatus: outcome.status ?? null,
    lastError: outcome.error ?? null,
    firstAttemptAt: new Date(delivery.firstAttemptAt).toISOString(),
    lastAttemptAt: new Date(at).toISOString(),
    nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
  };
}

/**
 * Makes one attempt of a delivery (docs/api.md 17.2): its request made now (signed now,
 * to the target's URL as it is now), sent, and its outcome recorded in the delivery log.
 * Answers the next attempt when this one failed and the 24 hours are not over; nothing
 * when it was delivered, parked, or its target is gone. Throws only when the log could
 * not be written (the queue tries the same attempt again).
 */
export async function attemptDelivery(deps: Deps, settings: AttemptSettings, delivery: Delivery): Promise<NextAttempt | undefined> {
  const { kind, id, tenantId, target, attempt } = delivery;
  const make = settings.makers[kind];
  const request = make ? await make(deps, delivery) : undefined;
  if (!make) deps.log.error('delivery_kind_unknown', { deliveryId: id, kind, tenantId });
  if (!request) {
    deps.log.info('delivery_ended', { deliveryId: id, kind, tenantId, target, attempt });
    return undefined;
  }
  const outcome = await (settings.send ?? sendAttempt)(deps.config, request);
  const at = deps.clock.now();
  const due = outcome.delivered ? undefined : nextAttemptAt(delivery, at, (settings.jitter ?? Math.random)());
  await deps.store.deliveryLog.record(
    tenantId,
    deliveryEntry(delivery, outcome, at, due),
    epochSeconds(deps.clock) + DELIVERY_LOG_RETENTION_SECONDS,
  );
  const line = { deliveryId: id, kind, tenantId, target, attempt, status: outcome.status, error: outcome.error };
  if (outcome.delivered) deps.log.info('delivery_delivered', line);
  else if (due === undefined) deps.log.warn('delivery_parked', line);
  else deps.log.info('delivery_failed_attempt', line);
  return due === undefined ? undefined : { delivery: { ...delivery, attempt: attempt + 1 }, dueAt: due };
}
