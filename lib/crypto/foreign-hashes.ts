import { pbkdf2, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import { constantEquals } from './constant-equals';
import type { PasswordHashFormat } from './hash-formats';

/*
 * Verification of the hashes other platforms export (docs/api.md 13.2), each with
 * maintained code: bcryptjs for bcrypt, node:crypto's PBKDF2 and scrypt (OpenSSL) for
 * passlib's and Django's forms. The derived digest is compared in constant time. The
 * format was read, and its costs checked against the ceilings, by lib/crypto/hash-formats.ts.
 */

const pbkdf2Async = promisify(pbkdf2);
const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number, options: object) => Promise<Buffer>;

/**
 * Room for scrypt's working memory as OpenSSL counts it (EVP_PBE_scrypt: 128·r·(N+2) for V
 * and 128·r·p for B), beyond node's 32 MiB default, with a margin.
 */
const scryptMaxmem = (n: number, r: number, p: number) => 128 * r * (n + 2) + 128 * r * p + 1024 * 1024;

const sameBytes = (a: Buffer, b: Buffer) => constantEquals(a.toString('base64'), b.toString('base64'));

/** Whether `password` matches a bcrypt, PBKDF2-SHA256 or scrypt hash of another platform. */
export async function verifyForeign(
  format: Exclude<PasswordHashFormat, { kind: 'argon2' }>,
  stored: string,
  password: string,
): Promise<boolean> {
  switch (format.kind) {
    case 'bcrypt': {
      // Loaded on first use: only the functions that check passwords ship bcryptjs
      // (scripts/build.mjs); one that only hashes (an invitation's acceptance) never needs it.
      const { default: bcrypt } = await import('bcryptjs');
      // The same salt and cost (the first 29 characters) give the same string for the right password.
      return constantEquals(await bcrypt.hash(password, stored.slice(0, 29)), stored);
    }
    case 'pbkdf2-sha256':
      return sameBytes(await pbkdf2Async(password, format.salt, format.iterations, format.digest.length, 'sha256'), format.digest);
    case 'scrypt': {
      const { n, r, p } = format;
      const derived = await scryptAsync(password, format.salt, format.digest.length, { N: n, r, p, maxmem: scryptMaxmem(n, r, p) });
      return sameBytes(derived, format.digest);
    }
  }
}
