import type { DeliveryEntry } from '../store/webhooks';
import { deliveryEntrySchema } from '../store/webhooks';
import * as z from '../zod';
import type { WebhookView } from './webhooks';

/** docs/api.md 17.2: a webhook as the API answers with it, never its secret. */
export const webhook = z.strictObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}) satisfies z.ZodMiniType<WebhookView>;
export const oneWebhook = z.strictObject({ webhook });
/** The answer of its creation: the secret, this once. */
export const webhookCreated = z.strictObject({ webhook, secret: z.string() });
export const webhookList = z.strictObject({ webhooks: z.array(webhook) });

/** docs/api.md 17.2: one delivery of the log as stored, less its kind and target: ids and outcome, never the body, URL or secret. */
export const delivery = z.strictObject(z.omit(deliveryEntrySchema, { kind: true, target: true }).shape);
export type DeliveryView = z.output<typeof delivery>;
export const oneDelivery = z.strictObject({ delivery });
export const deliveryList = z.strictObject({ deliveries: z.array(delivery) });

/** A delivery log entry as the API answers with it (its kind and target are the route's). */
export const deliveryViewOf = ({ kind: _kind, target: _target, ...view }: DeliveryEntry): DeliveryView => view;
