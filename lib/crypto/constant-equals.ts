import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in time independent of where they differ. Both sides are
 * hashed first so that unequal lengths do not leak through an early return.
 */
export function constantEquals(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
