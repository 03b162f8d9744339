import type { AttemptCounter, AttemptPolicy, AttemptSubject, ReserveResult } from '../store/login-attempts';

/**
 * An escalating budget of attempts (docs/api.md 10): several fixed windows, each longer
 * and larger than the one before. Once the short window has let a guesser through a few
 * times, the longer ones fill, so the lockouts grow (15 minutes, then until 2 hours have
 * passed, then a day) instead of reopening every 15 minutes.
 */
export type AttemptBudget = readonly AttemptPolicy[];

/** The budget of unknown sources per account and of MFA codes per user: 5 in 15 minutes, 10 in 2 hours, 20 in a day. */
export const ESCALATING_BUDGET: AttemptBudget = [
  { max: 5, windowSeconds: 15 * 60 },
  { max: 10, windowSeconds: 2 * 3600 },
  { max: 20, windowSeconds: 24 * 3600 },
];

/**
 * Reserves one attempt in the budget: in its first window, then (if that allowed it) in
 * every longer window at once. Refused if a window is full, until the latest of the full
 * ones ends (Retry-After tells the whole wait); an attempt the first window refuses is
 * counted in no other, so exactly `max` of a burst of concurrent attempts get through.
 * `subjectOf(tier)` names each window's counter.
 */
export async function reserveBudget(
  counter: AttemptCounter,
  subjectOf: (tier: number) => AttemptSubject,
  now: number,
  budget: AttemptBudget,
): Promise<ReserveResult> {
  const [first, ...longer] = budget;
  const inFirst: ReserveResult = first
    ? await counter.reserve(subjectOf(0), now, first)
    : { allowed: true, remaining: Number.POSITIVE_INFINITY };
  // Refused by the first window: the longer ones are only read, for the true wait.
  const check = inFirst.allowed ? counter.reserve : counter.peek;
  const verdicts = await Promise.all(longer.map((policy, index) => check(subjectOf(index + 1), now, policy)));
  const all = [inFirst, ...verdicts];
  const waits = all.flatMap((verdict) => (verdict.allowed ? [] : [verdict.retryAfterSeconds]));
  // Allowed: what is left is what the fullest window leaves (0: this attempt filled one).
  return waits.length === 0
    ? { allowed: true, remaining: Math.min(...all.map((verdict) => (verdict.allowed ? verdict.remaining : 0))) }
    : { allowed: false, retryAfterSeconds: Math.max(...waits) };
}

/** Clears every window of a budget, in one round trip (a success: the rightful owner is back). */
export async function clearBudget(
  counter: AttemptCounter,
  subjectOf: (tier: number) => AttemptSubject,
  budget: AttemptBudget,
): Promise<void> {
  await counter.clear(...budget.map((_, tier) => subjectOf(tier)));
}
