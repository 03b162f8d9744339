/**
 * The event catalogue (docs/events.md): every type the service publishes, named
 * `identity.<resource>.<what happened>`. Webhooks subscribe to these names (docs/api.md
 * 17.2); a new kind of change adds a type here and an example in docs/events.md
 * (test/events/catalogue.test.ts holds the two together).
 */
export const EVENT_TYPES = [
  // Users (docs/api.md 4.3, 9, 13): `data.via` says how a user came to be.
  'identity.user.created',
  'identity.user.updated',
  'identity.user.disabled',
  'identity.user.enabled',
  'identity.user.role_changed',
  'identity.user.shops_changed',
  'identity.user.deleted',
  'identity.user.email_changed',
  'identity.user.email_verified',
  // Sign-in outcomes (docs/api.md 4.1, 11, 12, 14): every door of the one sign-in pipeline.
  'identity.login.succeeded',
  'identity.login.failed',
  'identity.login.locked',
  // Credentials (docs/api.md 4.4, 4.5, 8, 12).
  'identity.password.changed',
  'identity.password.reset_requested',
  'identity.password.reset',
  'identity.mfa.method_added',
  'identity.mfa.method_activated',
  'identity.mfa.method_removed',
  'identity.mfa.reset',
  'identity.mfa.recovery_codes_generated',
  'identity.mfa.recovery_code_used',
  'identity.passkey.registered',
  'identity.passkey.removed',
  // Sessions and grants ending (docs/api.md 8.3, 8.4, 9.12, 11.12): `data.reason` says why.
  'identity.session.revoked',
  'identity.grant.revoked',
  // A device approved or denied on the device page (docs/api.md 16.4).
  'identity.device.approved',
  'identity.device.denied',
  // The tenant and what it administers (docs/api.md 9.7, 9.11, 9.14, 13, 14, 17).
  'identity.tenant.updated',
  'identity.shop.created',
  'identity.client.created',
  'identity.client.updated',
  'identity.client.deleted',
  'identity.client.secret_rotated',
  'identity.invitation.created',
  'identity.invitation.resent',
  'identity.invitation.revoked',
  'identity.invitation.accepted',
  'identity.scim_token.created',
  'identity.scim_token.deleted',
  'identity.connection.created',
  'identity.connection.updated',
  'identity.connection.deleted',
  'identity.domain.added',
  'identity.domain.verified',
  'identity.domain.deleted',
  'identity.webhook.created',
  'identity.webhook.updated',
  'identity.webhook.deleted',
  // Sent only to one webhook, by `POST /admin/webhooks/{id}/test`; never published, never subscribed to.
  'identity.webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
