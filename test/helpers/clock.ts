/**
 * Sets test clocks to the current second (the same one for all) and hands the first
 * deps back. DynamoDB Local deletes items whose TTL has passed in real time, so records
 * with a short TTL (codes, attempt counters, deny records, grants without refresh) must
 * be written near real time to stay put while a test reads them.
 */
export function nearRealTime<T extends Clocked>(deps: T, ...more: Clocked[]): T {
  const now = Math.floor(Date.now() / 1000) * 1000;
  for (const each of [deps, ...more]) each.clock.set(now);
  return deps;
}

interface Clocked {
  clock: { set(ms: number): void };
}
