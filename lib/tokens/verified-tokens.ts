import type { PublicKeySet } from './signing-keys';

/** Tokens remembered per key set: about 1.2 KB each (the token and what it said), so about 5 MB. */
const DEFAULT_CAPACITY = 4096;

interface Verified<T> {
  /** The checks it passed besides the signature: issuer, audience (`checksOf`). */
  checks: string;
  /** `exp` and `nbf` in epoch seconds, as jose compares them (no clock tolerance). */
  expiresAt: number;
  notBefore: number;
  value: T;
}

/** What a token's time claims say once verified: both verifiers require `exp`. */
export interface TokenTimes {
  exp?: unknown;
  nbf?: unknown;
}

/**
 * The tokens this process has verified, and what each said
 * (docs/decisions/034-verified-token-memory.md). A signed token is
 * the same string until it expires, so what its signature, type, issuer, audience and
 * claims' shape gave once, they give again: a token sent again skips the ES256 verify and
 * the claims' parse, the largest share of an authorized request's CPU. Only the checks
 * that do not depend on the time are remembered: `exp` and `nbf` are compared on every
 * recall, and revocation stays the caller's, on every request (the session, the grant).
 * Entries belong to the key set they were verified against: a new set (each read of the
 * keys, so a rotation or a removed key too) starts empty. At most `capacity` tokens per key set, the oldest forgotten
 * first; a token that is not remembered is simply verified.
 */
export function verifiedTokens<T>(capacity = DEFAULT_CAPACITY) {
  const byKeySet = new WeakMap<PublicKeySet, Map<string, Verified<T>>>();
  return {
    /** What `token` said when it passed `checks` against `keys`, if it did and is still within its time. */
    recall(keys: PublicKeySet, checks: string, token: string, now: number): T | undefined {
      const entries = byKeySet.get(keys);
      const entry = entries?.get(token);
      if (!entries || !entry) return undefined;
      if (entry.checks !== checks || now >= entry.expiresAt || now < entry.notBefore) {
        entries.delete(token);
        return undefined;
      }
      return entry.value;
    },
    /** Remembers a token that has just passed verification, with what it said. */
    remember(keys: PublicKeySet, checks: string, token: string, times: TokenTimes, value: T): void {
      if (typeof times.exp !== 'number') return;
      let entries = byKeySet.get(keys);
      if (!entries) {
        entries = new Map();
        byKeySet.set(keys, entries);
      }
      if (!entries.has(token) && entries.size >= capacity) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(token, {
        checks,
        expiresAt: times.exp,
        notBefore: typeof times.nbf === 'number' ? times.nbf : Number.NEGATIVE_INFINITY,
        value: frozen(value),
      });
    },
  };
}

/** Every recall hands out the same value: frozen, with its arrays and objects, so no caller changes it for the next. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) frozen(member);
    Object.freeze(value);
  }
  return value;
}

/** The checks besides the signature, as one string to compare on recall. */
export function checksOf(...parts: string[]): string {
  return parts.join('\n');
}
