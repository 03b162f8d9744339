import type { Clock } from '../clock';
import { ServiceUnavailableError } from '../errors';
import type { Logger } from '../log';
import { SecretDocumentError } from './document';

/** How a secret read by a Lambda instance (signing keys, the client-secret pepper) is kept fresh. */
export interface RefreshPolicy {
  /** How long a value read is used before it is read again, in the background. */
  refreshSeconds: number;
  /** After a failed read, how long the value already read is used before the next try. */
  retrySeconds: number;
  /**
   * How long a value that could not be read again is still trusted. After that the
   * instance fails closed (503): a key retired after a leak must stop working everywhere
   * within a known time, even on an instance that cannot reach Secrets Manager.
   */
  maxAgeSeconds: number;
}

/** docs/guides/operators.md, "Key rotation": the waits of the runbooks follow from these. */
export const SECRET_REFRESH: RefreshPolicy = { refreshSeconds: 300, retrySeconds: 30, maxAgeSeconds: 1800 };

/** A secret this instance could not read again within `maxAgeSeconds`: answered 503. */
export class StaleSecretError extends ServiceUnavailableError {
  override name = 'StaleSecretError';
}

/**
 * A secret read at the first use and again every `refreshSeconds`. A refresh runs in the
 * background: callers go on with the value already read, so neither the read's latency
 * nor an outage reaches them; a failed read (or a document that is refused, logged as
 * `<event>_rejected`) keeps the last good value and is tried again after `retrySeconds`.
 * The first read, and one after the instance was idle for two refresh periods (it may
 * have missed a key published meanwhile), are waited for. A value older than
 * `maxAgeSeconds` is not used: `<event>_expired` is logged and StaleSecretError thrown.
 */
export function refreshedSecret<T>(
  read: () => Promise<T>,
  options: { event: string; clock: Clock; log: Logger; policy?: RefreshPolicy },
): () => Promise<T> {
  const { event, clock, log, policy = SECRET_REFRESH } = options;
  let current: { value: T; readAt: number } | undefined;
  let nextReadAt = 0;
  let triedAt = Number.NEGATIVE_INFINITY;
  let failure: unknown;
  let reading: Promise<void> | undefined;

  const attempt = () =>
    (reading ??= read()
      .then(
        (value) => {
          current = { value, readAt: clock.now() };
          nextReadAt = clock.now() + policy.refreshSeconds * 1000;
        },
        (error: unknown) => {
          failure = error;
          nextReadAt = clock.now() + policy.retrySeconds * 1000;
          if (error instanceof SecretDocumentError) log.error(`${event}_rejected`, { reason: error.message });
          else if (current) log.error(`${event}_refresh_failed`, { error });
        },
      )
      .finally(() => {
        triedAt = clock.now();
        reading = undefined;
      }));
  const trusted = () => (current && clock.now() - current.readAt < policy.maxAgeSeconds * 1000 ? current : undefined);

  return async () => {
    const now = clock.now();
    let waited = false;
    if (trusted()) {
      if (now >= nextReadAt) {
        const refreshing = attempt();
        if (now - triedAt >= 2 * policy.refreshSeconds * 1000) await refreshing;
      }
    } else if (!current || reading || now >= nextReadAt) {
      // Nothing to trust: wait for a read (for an expired value, at most one per retry period).
      await attempt();
      waited = true;
    }
    const usable = trusted();
    if (usable) return usable.value;
    if (!current) throw failure;
    if (waited) log.error(`${event}_expired`, { ageSeconds: Math.floor((clock.now() - current.readAt) / 1000) });
    throw new StaleSecretError();
  };
}
