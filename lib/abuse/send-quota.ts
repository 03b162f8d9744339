import { createHash } from 'node:crypto';
import { type Clock, epochSeconds } from '../clock';
import { TooManyRequestsError } from '../errors';
import type { CodeDelivery, CodeMessage, InvitationMessage, NotificationMessage } from '../mfa/delivery';
import type { SendScope } from '../store/keys';
import type { AttemptCounter, AttemptPolicy } from '../store/login-attempts';
import type { TenantStore } from '../store/tenants';

/**
 * How many messages may go out per hour (Config.sendQuotas), each a fixed window shared
 * by every Lambda instance (docs/api.md 10.4).
 *
 * One-time codes (`SEND_QUOTA_*`): to one destination, for one user, for one tenant, and
 * from the whole service; the global one is the circuit breaker that bounds what SMS
 * pumping can cost, whatever an attacker spreads over tenants, users and numbers. A
 * tenant younger than NEW_TENANT_SECONDS (anyone can make one, anonymously) has the
 * smaller `newTenant` quota instead of `tenant`, and all such tenants together share
 * `newTenants` (docs/api.md 10.5).
 *
 * Security notifications (`NOTIFY_QUOTA_*`, docs/api.md 8.9) have windows of their own,
 * per user, per destination and for the whole service, and touch none of the codes':
 * codes can be asked for by anyone, and a notice must never be silenced by someone
 * else's requests. The service-wide notification window is larger than the
 * per-destination one (lib/config.ts checks it), so no one address exhausts it.
 *
 * Invitation emails (`INVITE_QUOTA_PER_TENANT`, docs/api.md 13.1) have a per-tenant window
 * of their own instead of the per-destination, per-user and per-tenant ones: an ADMIN
 * invites many addresses once each, so a per-address window would not bound them. They
 * still count in the service-wide window, and a tenant younger than a day counts them in
 * its new-tenant window and the new tenants' pool as it does codes: otherwise N fresh
 * anonymous tenants could send N times the invitation window (docs/api.md 10.5).
 */
export type SendQuotas = Record<SendScope, number> & { newTenant: number };

const HOUR = 3600;

/** How long a tenant counts as new for the send quotas (docs/api.md 10.5): a day. */
export const NEW_TENANT_SECONDS = 24 * 3600;

/** Destinations are counted by a digest: no phone number or address in a key. */
const digestOf = (destination: string) => createHash('sha256').update(destination.trim().toLowerCase(), 'utf8').digest('base64url');

/**
 * The delivery port behind the send quotas: a message whose window is full in any scope
 * is not sent, and the caller answers 429 `Too many requests` with `Retry-After`. The
 * narrowest scope is counted first, so a message refused there uses up none of its
 * tenant's or the service's quota: one abuser cannot spend what others need. A tenant
 * without a record (none is made without one) counts as established. A notification is
 * counted in the notification windows only.
 */
export function quotaDelivery(
  inner: CodeDelivery,
  attempts: AttemptCounter,
  clock: Clock,
  quotas: SendQuotas,
  tenants: Pick<TenantStore, 'createdAt'>,
): CodeDelivery {
  return {
    async send(message) {
      const now = epochSeconds(clock);
      const scopes =
        'invitationId' in message
          ? await invitationScopes(message, quotas, now)
          : 'notification' in message
            ? notificationScopes(message, quotas)
            : await codeScopes(message, quotas, now);
      for (const [scope, id, max] of scopes) {
        const policy: AttemptPolicy = { max, windowSeconds: HOUR };
        const reserved = await attempts.reserve({ kind: 'send', tenantId: message.tenantId, scope, id }, now, policy);
        if (!reserved.allowed) throw new TooManyRequestsError(reserved.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
      }
      await inner.send(message);
    },
  };

  async function isYoung(tenantId: string, now: number): Promise<boolean> {
    const created = await tenants.createdAt(tenantId);
    return created !== undefined && now - created < NEW_TENANT_SECONDS;
  }

  async function codeScopes(message: CodeMessage, quotas: SendQuotas, now: number): Promise<Scope[]> {
    const young = await isYoung(message.tenantId, now);
    return [
      ['destination', digestOf(message.destination), quotas.destination],
      ['user', message.userId, quotas.user],
      ['tenant', message.tenantId, young ? quotas.newTenant : quotas.tenant],
      ...(young ? newTenantPool() : []),
      ['global', 'all', quotas.global],
    ];
  }

  /**
   * The windows of an invitation email: its tenant's invitation window; for a tenant
   * younger than a day also its new-tenant window and the new tenants' pool; the service's.
   */
  async function invitationScopes(message: InvitationMessage, quotas: SendQuotas, now: number): Promise<Scope[]> {
    const young = await isYoung(message.tenantId, now);
    return [
      ['invitationTenant', message.tenantId, quotas.invitationTenant],
      ...(young ? [['tenant', message.tenantId, quotas.newTenant] as Scope, ...newTenantPool()] : []),
      ['global', 'all', quotas.global],
    ];
  }

  function newTenantPool(): Scope[] {
    return [['newTenants', 'all', quotas.newTenants]];
  }
}

/** A window a message is counted in: its scope, whose it is, and its size. */
type Scope = [SendScope, string, number];

/** The windows of a security notification: the user's, its address's, the service's. */
const notificationScopes = (message: NotificationMessage, quotas: SendQuotas): Scope[] => [
  ['notificationUser', message.userId, quotas.notificationUser],
  ['notificationDestination', digestOf(message.destination), quotas.notificationDestination],
  ['notificationGlobal', 'all', quotas.notificationGlobal],
];
