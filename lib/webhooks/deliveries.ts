import { Webhook as StandardWebhook } from 'standardwebhooks';
import { epochSeconds } from '../clock';
import { DELIVERY_LOG_RETENTION_SECONDS, deliveryEntry } from '../deliveries/attempt';
import type { Delivery, DeliveryPlanner, OutgoingRequest, RequestMaker } from '../deliveries/delivery';
import { sendAttempt } from '../deliveries/send';
import type { Deps } from '../deps';
import { newEvent } from '../events/event';
import type { DeliveryEntry, Webhook } from '../store/webhooks';
import type { Identity } from '../tokens/access-token';
import { readWebhook, webhookSecretContext } from './webhooks';

/** The `user-agent` of every delivery. */
export const DELIVERY_USER_AGENT = 'identity-service-webhooks/1';
/** docs/api.md 17.2: the entries `GET …/deliveries` answers, newest first. */
export const DELIVERIES_LISTED = 50;

/** A delivery's `webhook-id` (Standard Webhooks): the event's, the same at every attempt, so a receiver can drop a second copy. */
export const webhookMessageId = (eventId: string) => `msg_${eventId}`;

/**
 * docs/api.md 17.2: for published events, one delivery per (event, webhook of its tenant
 * subscribed to its type). Each tenant's webhooks are read once per batch.
 */
export const webhookPlanner: DeliveryPlanner = async (deps, events) => {
  const tenants = [...new Set(events.map((event) => event.tenantid))];
  const webhooksOf = new Map(
    await Promise.all(tenants.map(async (tenantId) => [tenantId, await deps.store.webhooks.list(tenantId)] as const)),
  );
  const firstAttemptAt = deps.clock.now();
  return events.flatMap((event) =>
    (webhooksOf.get(event.tenantid) ?? [])
      .filter((webhook) => webhook.events.includes(event.type))
      .map(
        (webhook): Delivery => ({
          id: webhookMessageId(event.id),
          kind: 'webhook',
          tenantId: event.tenantid,
          target: webhook.id,
          payload: { ...event },
          attempt: 1,
          firstAttemptAt,
        }),
      ),
  );
};

/** The signed request of an event to a webhook (Standard Webhooks): signed now, with a fresh `webhook-timestamp`. */
async function signedRequest(
  deps: Pick<Deps, 'clock' | 'mfaSecrets'>,
  webhook: Webhook,
  id: string,
  body: string,
): Promise<OutgoingRequest> {
  const secret = await deps.mfaSecrets.open(webhook.sealedSecret, webhookSecretContext(webhook.tenantId, webhook.id));
  const now = new Date(deps.clock.now());
  return {
    url: webhook.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': DELIVERY_USER_AGENT,
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new StandardWebhook(secret).sign(id, now, body),
    },
    body,
  };
}

/**
 * docs/api.md 17.2: the request of an attempt to a webhook: the event's CloudEvent as
 * the body, to the webhook's URL as it is now; nothing when the webhook was deleted or
 * no longer subscribes to the event's type (the delivery ends).
 */
export const webhookRequest: RequestMaker = async (deps, delivery) => {
  const webhook = await deps.store.webhooks.find(delivery.tenantId, delivery.target);
  const type = delivery.payload.type;
  if (!webhook || typeof type !== 'string' || !webhook.events.includes(type)) return undefined;
  return signedRequest(deps, webhook, delivery.id, JSON.stringify(delivery.payload));
};

/**
 * docs/api.md 17.2: sends an `identity.webhook.test` event to the webhook now, once (no
 * retry), and answers what came of it, as its delivery log records it.
 */
export async function testWebhook(deps: Deps, admin: Identity, webhookId: string): Promise<DeliveryEntry> {
  const webhook = await readWebhook(deps, admin, webhookId);
  const event = newEvent(deps, {
    tenantId: admin.tenantId,
    type: 'identity.webhook.test',
    subject: webhook.id,
    actor: { type: 'user', id: admin.userId },
  });
  const delivery: Delivery = {
    id: webhookMessageId(event.id),
    kind: 'webhook',
    tenantId: admin.tenantId,
    target: webhook.id,
    payload: { ...event },
    attempt: 1,
    firstAttemptAt: deps.clock.now(),
  };
  const outcome = await sendAttempt(deps.config, await signedRequest(deps, webhook, delivery.id, JSON.stringify(event)));
  const entry = deliveryEntry(delivery, outcome, deps.clock.now(), undefined);
  await deps.store.deliveryLog.record(admin.tenantId, entry, epochSeconds(deps.clock) + DELIVERY_LOG_RETENTION_SECONDS);
  deps.log.info('webhook_tested', {
    tenantId: admin.tenantId,
    actorId: admin.userId,
    webhookId,
    status: outcome.status,
    error: outcome.error,
  });
  return entry;
}

/** docs/api.md 17.2: the webhook's latest deliveries, newest first. */
export async function listWebhookDeliveries(deps: Pick<Deps, 'store'>, admin: Identity, webhookId: string): Promise<DeliveryEntry[]> {
  await readWebhook(deps, admin, webhookId);
  return deps.store.deliveryLog.list(admin.tenantId, 'webhook', webhookId, DELIVERIES_LISTED);
}
