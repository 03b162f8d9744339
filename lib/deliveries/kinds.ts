/**
 * What the service delivers over HTTP to a receiver of a tenant (docs/api.md 17.2, 17.3):
 * an event to a webhook, or a logout token to a client's back-channel logout URI.
 */
export const DELIVERY_KINDS = ['webhook', 'backchannel_logout'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
