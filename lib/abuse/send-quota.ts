import { createHash } from 'node:crypto';
import { type Clock, epochSeconds } from '../clock';
import { TooManyRequestsError } from '../errors';
import type { CodeDelivery } from '../mfa/delivery';
import type { AttemptCounter, AttemptPolicy, SendScope } from '../store/login-attempts';

/**
 * How many messages (one-time codes, and anything else the delivery port sends) may go
 * out per hour: to one destination, for one user, for one tenant, and from the whole
 * service (Config.sendQuotas, `SEND_QUOTA_*`). Each is a fixed window shared by every
 * Lambda instance; the global one is the circuit breaker that bounds what SMS pumping
 * can cost, whatever an attacker spreads over tenants, users and numbers.
 */
export type SendQuotas = Record<SendScope, number>;

const HOUR = 3600;

/** Destinations are counted by a digest: no phone number or address in a key. */
const digestOf = (destination: string) => createHash('sha256').update(destination.trim().toLowerCase(), 'utf8').digest('base64url');

/**
 * The delivery port behind the send quotas: a message whose window is full in any scope
 * is not sent, and the caller answers 429 `Too many requests` with `Retry-After`. The
 * narrowest scope is counted first, so a message refused there uses up none of its
 * tenant's or the service's quota: one abuser cannot spend what others need.
 */
export function quotaDelivery(inner: CodeDelivery, attempts: AttemptCounter, clock: Clock, quotas: SendQuotas): CodeDelivery {
  return {
    async send(message) {
      const now = epochSeconds(clock);
      const scopes: Array<[SendScope, string]> = [
        ['destination', digestOf(message.destination)],
        ['user', message.userId],
        ['tenant', message.tenantId],
        ['global', 'all'],
      ];
      for (const [scope, id] of scopes) {
        const policy: AttemptPolicy = { max: quotas[scope], windowSeconds: HOUR };
        const reserved = await attempts.reserve({ kind: 'send', tenantId: message.tenantId, scope, id }, now, policy);
        if (!reserved.allowed) throw new TooManyRequestsError(reserved.retryAfterSeconds, 'Too many requests', { code: 'RATE_LIMITED' });
      }
      await inner.send(message);
    },
  };
}
