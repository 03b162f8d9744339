import { randomBytes } from 'node:crypto';
import { hash, parseOptions, verify } from '@node-rs/argon2';
import { verifyForeign } from './foreign-hashes';
import { readPasswordHash } from './hash-formats';

/** Argon2id cost parameters (memory in KiB). */
export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet: Argon2id, m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID: Argon2Params = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

// `Algorithm` and `Version` are const enums in the binding's types; isolatedModules cannot inline them.
const ARGON2ID = 2;
/** Argon2 version 0x13 (RFC 9106), the binding's `Version.V0x13`; 0 is the older 0x10. */
const ARGON2_VERSION_13 = 1;
/** What the service's own hashes carry (the binding's defaults): a 32-byte digest and a 16-byte salt (RFC 9106 section 4). */
const OWN_OUTPUT_BYTES = 32;
const OWN_SALT_BYTES = 16;

/** What checking a password against a stored hash found. */
export interface PasswordVerdict {
  ok: boolean;
  /** The password is right and its hash should be redone as today's Argon2id: other parameters, or another format (an import). */
  stale: boolean;
  /**
   * The stored hash cannot be verified: not a format the service reads, or costs above the
   * ceilings of docs/api.md 13.2 (refused at import; checked again here). Answered as a
   * wrong password, after the work of one.
   */
  unusable?: boolean;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Checks `password` against `stored`, the service's Argon2id or a hash imported from
   * another platform (docs/api.md 13.2); `stale` says the hash should be redone with today's parameters.
   */
  verify(stored: string, password: string): Promise<PasswordVerdict>;
  /**
   * Spends the same time as a real verification against a hash no password
   * matches, so that an unknown user costs what a wrong password costs.
   */
  verifyDummy(password: string): Promise<void>;
}

/**
 * The service's hasher: Argon2id with `params`; hashes of other platforms are verified by
 * `foreign` (lib/crypto/foreign-hashes.ts; a parameter so that its failure can be tested).
 */
export function argon2idHasher(params: Argon2Params = OWASP_ARGON2ID, foreign: typeof verifyForeign = verifyForeign): PasswordHasher {
  const options = { algorithm: ARGON2ID, ...params } as const;
  // A PHC string with the current parameters and random salt and digest: verifying
  // against it does the full Argon2id work and always fails. Nothing is hashed at start.
  const dummy =
    `$argon2id$v=19$m=${params.memoryCost},t=${params.timeCost},p=${params.parallelism}` +
    `$${randomBytes(16).toString('base64').replace(/=+$/, '')}$${randomBytes(32).toString('base64').replace(/=+$/, '')}`;

  const isStale = (stored: string) => {
    const used = parseOptions(stored);
    return (
      used.algorithm !== ARGON2ID ||
      used.version !== ARGON2_VERSION_13 ||
      used.outputLen !== OWN_OUTPUT_BYTES ||
      used.saltLen < OWN_SALT_BYTES ||
      used.memoryCost !== params.memoryCost ||
      used.timeCost !== params.timeCost ||
      used.parallelism !== params.parallelism
    );
  };

  return {
    hash: (password) => hash(password, options),
    async verify(stored, password) {
      const reading = readPasswordHash(stored);
      if (!reading.usable) {
        await verify(dummy, password);
        return { ok: false, stale: false, unusable: true };
      }
      const { format } = reading;
      if (format.kind !== 'argon2') {
        // A hash that passed the checks but that the verifier still refuses (parameters
        // OpenSSL will not run) is unusable, answered as a wrong password, not a 500.
        // It takes at least what an unknown user's dummy takes: a cheaper foreign hash (a
        // PBKDF2 of 29,000 rounds is about 10 ms) would otherwise tell which usernames exist.
        const [ok] = await Promise.all([foreign(format, stored, password).catch(() => undefined), verify(dummy, password)]);
        if (ok === undefined) return { ok: false, stale: false, unusable: true };
        return { ok, stale: ok };
      }
      const ok = await verify(stored, password);
      return { ok, stale: ok && isStale(stored) };
    },
    async verifyDummy(password) {
      await verify(dummy, password);
    },
  };
}
