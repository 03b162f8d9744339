import { randomBytes, randomInt, randomUUID } from 'node:crypto';

/** The source of randomness and identifiers; tests may pass a deterministic one. */
export interface Random {
  /** `bytes` random bytes, base64url without padding (256 bits by default). */
  token(bytes?: number): string;
  /** A random UUID v4 for record identifiers. */
  id(): string;
  /** `count` uniformly random decimal digits (leading zeros kept): one-time codes. */
  digits(count: number): string;
}

export const cryptoRandom: Random = {
  token: (bytes = 32) => randomBytes(bytes).toString('base64url'),
  id: () => randomUUID(),
  digits: (count) => String(randomInt(0, 10 ** count)).padStart(count, '0'),
};
