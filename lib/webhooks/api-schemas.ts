import * as z from 'zod';
import type { DeliveryEntry } from '../store/webhooks';
import type { WebhookView } from './webhooks';

/** docs/api.md 17.2: a webhook as the API answers with it, never its secret. */
export const webhook = z.strictObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}) satisfies z.ZodType<WebhookView>;
export const oneWebhook = z.strictObject({ webhook });
/** The answer of its creation: the secret, this once. */
export const webhookCreated = z.strictObject({ webhook, secret: z.string() });
export const webhookList = z.strictObject({ webhooks: z.array(webhook) });

/** docs/api.md 17.2: one delivery of the log: ids and outcome, never the body, URL or secret. */
export const delivery = z.strictObject({
  id: z.string(),
  eventId: z.string().nullable(),
  eventType: z.string().nullable(),
  attempts: z.number().int(),
  status: z.enum(['delivered', 'retrying', 'failed']),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  firstAttemptAt: z.string(),
  lastAttemptAt: z.string(),
  nextAttemptAt: z.string().nullable(),
});
export type DeliveryView = z.output<typeof delivery>;
export const oneDelivery = z.strictObject({ delivery });
export const deliveryList = z.strictObject({ deliveries: z.array(delivery) });

/** A delivery log entry as the API answers with it (its kind and target are the route's). */
export const deliveryViewOf = ({ kind: _kind, target: _target, ...view }: DeliveryEntry): DeliveryView => view;
