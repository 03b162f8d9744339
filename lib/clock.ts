/** The source of time. Production uses the system clock; tests pass a movable one. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Seconds since the Unix epoch, as JWT `iat`/`exp` and DynamoDB TTL attributes use. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
