import { createHash } from 'node:crypto';
import { type Clock, epochSeconds } from '../clock';
import { TooManyRequestsError } from '../errors';
import type { CodeDelivery } from '../mfa/delivery';
import type { AttemptCounter, AttemptPolicy, SendScope } from '../store/login-attempts';
import type { TenantStore } from '../store/tenants';

/**
 * How many messages (one-time codes, and anything else the delivery port sends) may go
 * out per hour: to one destination, for one user, for one tenant, and from the whole
 * service (Config.sendQuotas, `SEND_QUOTA_*`). Each is a fixed window shared by every
 * Lambda instance; the global one is the circuit breaker that bounds what SMS pumping
 * can cost, whatever an attacker spreads over tenants, users and numbers. A tenant
 * younger than NEW_TENANT_SECONDS (anyone can make one, anonymously) has the smaller
 * `newTenant` quota instead of `tenant`, and all such tenants together share
 * `newTenants` (docs/api.md 10.5).
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
 * without a record (none is made without one) counts as established.
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
      const created = await tenants.createdAt(message.tenantId);
      const young = created !== undefined && now - created < NEW_TENANT_SECONDS;
      const scopes: Array<[SendScope, string, number]> = [
        ['destination', digestOf(message.destination), quotas.destination],
        ['user', message.userId, quotas.user],
        ['tenant', message.tenantId, young ? quotas.newTenant : quotas.tenant],
        ...(young ? [['newTenants', 'all', quotas.newTenants] as [SendScope, string, number]] : []),
        ['global', 'all', quotas.global],
      ];
      for (const [scope, id, max] of scopes) {
        const policy: AttemptPolicy = { max, windowSeconds: HOUR };
        const reserved = await attempts.reserve({ kind: 'send', tenantId: message.tenantId, scope, id }, now, policy);
        if (!reserved.allowed) throw new TooManyRequestsError(reserved.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
      }
      await inner.send(message);
    },
  };
}
