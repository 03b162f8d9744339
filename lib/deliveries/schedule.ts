import type { Delivery } from './delivery';

/**
 * The retry schedule (docs/api.md 17.2, docs/decisions/025-webhook-delivery.md):
 * exponential backoff with jitter. After the n-th failed attempt the next waits between
 * half and all of `FIRST_RETRY_MS · 2^(n-1)`, at most `LONGEST_WAIT_MS`: the first retry
 * comes within 30 seconds; attempts go on for `RETRY_WINDOW_MS` after the first, then
 * the delivery is parked (listed as failed).
 */
export const FIRST_RETRY_MS = 30_000;
export const LONGEST_WAIT_MS = 3600_000;
export const RETRY_WINDOW_MS = 24 * 3600_000;

/**
 * When the attempt after a failed one is due, in epoch milliseconds, or undefined when
 * the 24 hours are over and the delivery is parked. `jitter` is in [0, 1).
 */
export function nextAttemptAt(
  delivery: Pick<Delivery, 'attempt' | 'firstAttemptAt'>,
  failedAt: number,
  jitter: number,
): number | undefined {
  const ceiling = Math.min(LONGEST_WAIT_MS, FIRST_RETRY_MS * 2 ** Math.min(delivery.attempt - 1, 20));
  const due = failedAt + Math.ceil(ceiling / 2 + (jitter * ceiling) / 2);
  return due <= delivery.firstAttemptAt + RETRY_WINDOW_MS ? due : undefined;
}
