/**
 * A lower bound on how much of a caller-chosen secret is guesswork, from its own text:
 * the empirical Shannon entropy of its characters times its length, and the number of
 * distinct characters. It cannot tell a random-looking secret from a random one; it
 * refuses the secrets that are plainly not random (`aaaa…`, `ABAB…`, a word repeated),
 * which a length rule alone lets through. Machine-generated secrets of the minimum
 * lengths pass: 32 hex digits estimate 100–125 bits, 32 base64url characters 130–160,
 * a 26-character base32 TOTP secret (128 bits) 90–115.
 */
export interface SecretStrength {
  /** Estimated bits: Shannon entropy per character times the length. */
  bits: number;
  distinct: number;
}

export function secretStrength(secret: string): SecretStrength {
  const counts = new Map<string, number>();
  const characters = [...secret];
  for (const character of characters) counts.set(character, (counts.get(character) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values()) {
    const p = count / characters.length;
    perCharacter -= p * Math.log2(p);
  }
  return { bits: perCharacter * characters.length, distinct: counts.size };
}

/** The least a caller-chosen secret must show (client secrets, TOTP secrets). */
export const MIN_SECRET_BITS = 72;
export const MIN_DISTINCT_CHARACTERS = 8;

/**
 * Whether a secret looks random enough to stand for a key. Two patterns with many
 * distinct characters are refused as well: a run with a constant step (`abcd…`,
 * `0123…`), and a short part repeated (a secret that is its first half twice holds no
 * more than that half).
 */
export function isStrongSecret(secret: string): boolean {
  const { bits, distinct } = secretStrength(secret);
  if (bits < MIN_SECRET_BITS || distinct < MIN_DISTINCT_CHARACTERS) return false;
  const steps = new Set<number>();
  for (let i = 1; i < secret.length; i++) steps.add(secret.charCodeAt(i) - secret.charCodeAt(i - 1));
  if (steps.size <= 2) return false;
  for (let period = 1; period <= secret.length / 2; period++) {
    if (secret.length % period === 0 && secret.slice(0, period).repeat(secret.length / period) === secret) return false;
  }
  return true;
}
