/*
 * The password hash formats the service reads (docs/api.md 13.2): its own Argon2id, and
 * the hashes other platforms export, which an import brings in and the first sign-in
 * replaces. Reading is parsing only (no hashing, no native binding), so the import
 * function checks a hash without loading what verifies it (lib/crypto/password.ts).
 *
 * Every format carries its own cost, so a hostile hash could pin a Lambda for minutes:
 * each cost is bounded by a ceiling that admits what the platforms produce by default,
 * checked at import and again before every verification.
 */

/**
 * The ceilings of docs/api.md 13.2, with what one verification at the ceiling costs on one
 * core of the development machine (bench: `npm run bench`, stage `import`).
 */
export const HASH_CEILINGS = {
  /** bcrypt's log2 cost: 13 is ~1.6 s in bcryptjs (Rails and Devise default to 12, Auth0 to 10). */
  bcryptCost: 13,
  /** PBKDF2-SHA256 iterations: 2,000,000 is ~0.7 s (Django 5.2 defaults to 1,000,000, passlib to 29,000). */
  pbkdf2Iterations: 2_000_000,
  /** scrypt's N·r·p: 2^20 is ~0.7 s and at most 128 MiB (Django: 2^14·8·5, passlib: 2^16·8·1). */
  scryptWork: 2 ** 20,
  /** Argon2 memory in KiB (128 MiB; argon2-cffi's older default is 100 MiB). */
  argon2MemoryKib: 128 * 1024,
  /** Argon2 memory × passes, in KiB: 512 MiB·passes, ~1 s (128 MiB × 4, or 64 MiB × 8). */
  argon2Work: 512 * 1024,
  /** Argon2 lanes. */
  argon2Parallelism: 16,
} as const;

/** A hash in one of the formats of docs/api.md 13.2, parsed. */
export type PasswordHashFormat =
  | { kind: 'argon2'; variant: 'argon2i' | 'argon2id' }
  | { kind: 'bcrypt'; cost: number }
  | { kind: 'pbkdf2-sha256'; iterations: number; salt: Buffer; digest: Buffer }
  | { kind: 'scrypt'; n: number; r: number; p: number; salt: Buffer; digest: Buffer };

/** What reading a hash gives: its format, or why it cannot be used (an unknown or malformed text, or costs above a ceiling). */
export type HashReading =
  | { usable: true; format: PasswordHashFormat }
  | { usable: false; reason: 'unsupported' }
  | { usable: false; reason: 'too_costly'; limit: string };

/** The row error of an import whose hash is not one of the formats (docs/api.md 13.2). */
export const UNSUPPORTED_HASH = 'Unsupported password hash';

/** The row error of an import whose hash costs more than a ceiling allows; `limit` names the ceiling. */
export const tooCostly = (limit: string) => `Password hash cost above the service's ceiling (${limit})`;

/** passlib's "adapted base64" (ab64): standard base64 with `.` for `+`, without padding. */
const fromAb64 = (text: string) => Buffer.from(text.replace(/\./g, '+'), 'base64');

const B64 = '[A-Za-z0-9+/]';
const AB64 = '[A-Za-z0-9./]';
/** A decimal without leading zeros, at most 10 digits (parsed as a number, checked against the ceilings). */
const INT = '([1-9][0-9]{0,9})';

// bcrypt (Modular Crypt Format): $2a$, $2b$ or $2y$, two-digit cost, 22 characters of salt and 31 of digest.
const BCRYPT = /^\$2[aby]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/;
// passlib's pbkdf2_sha256: $pbkdf2-sha256$<rounds>$<ab64 salt>$<ab64 32-byte digest>.
const PASSLIB_PBKDF2 = new RegExp(`^\\$pbkdf2-sha256\\$${INT}\\$(${AB64}{0,1366})\\$(${AB64}{43})$`);
// Django's PBKDF2PasswordHasher: pbkdf2_sha256$<iterations>$<salt text>$<base64 32-byte digest>.
const DJANGO_PBKDF2 = new RegExp(`^pbkdf2_sha256\\$${INT}\\$([^$]{1,256})\\$(${B64}{43}=)$`);
// passlib's scrypt: $scrypt$ln=<log2 N>,r=<r>,p=<p>$<base64 salt>$<base64 32-byte digest>, no padding.
const PASSLIB_SCRYPT = new RegExp(`^\\$scrypt\\$ln=([1-9][0-9]?),r=${INT},p=${INT}\\$(${B64}{0,1366})\\$(${B64}{43})$`);
// Django's ScryptPasswordHasher: scrypt$<N>$<salt text>$<r>$<p>$<base64 64-byte digest>.
const DJANGO_SCRYPT = new RegExp(`^scrypt\\$${INT}\\$([^$]{1,256})\\$${INT}\\$${INT}\\$(${B64}{86}==)$`);
// Argon2i and Argon2id in PHC form (the version field is absent in hashes of version 0x10).
const ARGON2 = new RegExp(`^\\$(argon2id|argon2i)\\$(?:v=(?:16|19)\\$)?m=${INT},t=${INT},p=${INT}\\$${B64}{11,1366}\\$${B64}{16,1366}$`);

const refused = (limit: string): HashReading => ({ usable: false, reason: 'too_costly', limit });
const unsupported: HashReading = { usable: false, reason: 'unsupported' };
const usable = (format: PasswordHashFormat): HashReading => ({ usable: true, format });

function readScrypt(n: number, r: number, p: number, salt: Buffer, digest: Buffer): HashReading {
  // N a power of two above 1 (scrypt's rule), below 2^(16·r) (RFC 7914 section 2, which
  // OpenSSL enforces: such a hash could never be verified); N·r·p bounded.
  if (n < 2 || (n & (n - 1)) !== 0 || n > 2 ** 30) return unsupported;
  if (16 * r < 64 && n >= 2 ** (16 * r)) return unsupported;
  if (n * r * p > HASH_CEILINGS.scryptWork) return refused(`scrypt: N·r·p at most ${HASH_CEILINGS.scryptWork}`);
  return usable({ kind: 'scrypt', n, r, p, salt, digest });
}

/**
 * Reads a stored or imported password hash (docs/api.md 13.2): its format and
 * parameters, or why it cannot be used. Parsing only, in time linear in its length.
 */
export function readPasswordHash(text: string): HashReading {
  let match = ARGON2.exec(text);
  if (match) {
    const [memory, passes, lanes] = [Number(match[2]), Number(match[3]), Number(match[4])];
    if (lanes > HASH_CEILINGS.argon2Parallelism) return refused(`Argon2: p at most ${HASH_CEILINGS.argon2Parallelism}`);
    if (memory < 8 * lanes) return unsupported;
    if (memory > HASH_CEILINGS.argon2MemoryKib) return refused(`Argon2: m at most ${HASH_CEILINGS.argon2MemoryKib}`);
    if (memory * passes > HASH_CEILINGS.argon2Work) return refused(`Argon2: m·t at most ${HASH_CEILINGS.argon2Work}`);
    return usable({ kind: 'argon2', variant: match[1] === 'argon2i' ? 'argon2i' : 'argon2id' });
  }
  match = BCRYPT.exec(text);
  if (match) {
    const cost = Number(match[1]);
    if (cost < 4 || cost > 31) return unsupported;
    if (cost > HASH_CEILINGS.bcryptCost) return refused(`bcrypt: cost at most ${HASH_CEILINGS.bcryptCost}`);
    return usable({ kind: 'bcrypt', cost });
  }
  match = PASSLIB_PBKDF2.exec(text) ?? DJANGO_PBKDF2.exec(text);
  if (match) {
    const iterations = Number(match[1]);
    if (iterations > HASH_CEILINGS.pbkdf2Iterations) return refused(`PBKDF2: at most ${HASH_CEILINGS.pbkdf2Iterations} iterations`);
    const passlib = text.startsWith('$');
    // passlib's salt is raw bytes in ab64; Django's is the text itself, as UTF-8.
    const salt = passlib ? fromAb64(match[2] ?? '') : Buffer.from(match[2] ?? '', 'utf8');
    const digest = passlib ? fromAb64(match[3] ?? '') : Buffer.from(match[3] ?? '', 'base64');
    return usable({ kind: 'pbkdf2-sha256', iterations, salt, digest });
  }
  match = PASSLIB_SCRYPT.exec(text);
  if (match) {
    const log2n = Number(match[1]);
    if (log2n > 30) return unsupported;
    return readScrypt(
      2 ** log2n,
      Number(match[2]),
      Number(match[3]),
      Buffer.from(match[4] ?? '', 'base64'),
      Buffer.from(match[5] ?? '', 'base64'),
    );
  }
  match = DJANGO_SCRYPT.exec(text);
  if (match) {
    const [n, salt, r, p, digest] = [Number(match[1]), match[2] ?? '', Number(match[3]), Number(match[4]), match[5] ?? ''];
    return readScrypt(n, r, p, Buffer.from(salt, 'utf8'), Buffer.from(digest, 'base64'));
  }
  return unsupported;
}

/** The row error of an imported hash (docs/api.md 13.2), or undefined when it can be stored. */
export function importedHashError(text: string): string | undefined {
  const reading = readPasswordHash(text);
  if (reading.usable) return undefined;
  return reading.reason === 'unsupported' ? UNSUPPORTED_HASH : tooCostly(reading.limit);
}
