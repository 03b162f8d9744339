import type { Random } from '../crypto/random';
import * as z from '../zod';

/** docs/api.md 8.6: a set of recovery codes has 10. */
export const RECOVERY_CODE_COUNT = 10;

/** RFC 4648 base32 in lower case: no 0/1/8/9 to mistake for o/l/b/g. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** 12 characters of 5 bits: 60 bits, above the 50 the issue asks (NIST SP 800-63B 5.1.2: look-up secrets). */
const CHARACTERS = 12;
const GROUP = 4;

/**
 * One recovery code: 60 random bits from `random`, written `xxxx-xxxx-xxxx` so that a
 * person can copy it from paper.
 */
export function generateRecoveryCode(random: Pick<Random, 'token'>): string {
  let bits = Buffer.from(random.token(8), 'base64url').readBigUInt64BE(0);
  let code = '';
  for (let i = 0; i < CHARACTERS; i++) {
    code += ALPHABET[Number(bits & 31n)];
    bits >>= 5n;
  }
  return code.match(new RegExp(`.{${GROUP}}`, 'g'))?.join('-') ?? code;
}

/** A new set of distinct recovery codes; a random source that keeps repeating itself is a bug, not a wait. */
export function generateRecoveryCodes(random: Pick<Random, 'token'>): string[] {
  const codes = new Set<string>();
  for (let draw = 0; codes.size < RECOVERY_CODE_COUNT; draw++) {
    if (draw === 10 * RECOVERY_CODE_COUNT) throw new Error('The random source repeats itself');
    codes.add(generateRecoveryCode(random));
  }
  return [...codes];
}

/** A recovery code as its digest is made of: lower case, without the hyphens or spaces a person types. */
export const compactRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

/** A recovery code as typed, compacted; undefined when it cannot be a recovery code at all. */
export function normalizeRecoveryCode(code: string): string | undefined {
  const compact = compactRecoveryCode(code);
  return new RegExp(`^[${ALPHABET}]{${CHARACTERS}}$`).test(compact) ? compact : undefined;
}

/**
 * A user's recovery codes as stored: keyed digests of the unused codes (never a code),
 * under the MFA data key like one-time codes (lib/mfa/secret-box). Each use removes
 * its digest in one conditional write.
 */
export const recoveryCodesSchema = z.object({
  method: z.literal('RECOVERY'),
  tenantId: z.string(),
  userId: z.string(),
  /** The unused codes' digests; absent once every code is used (DynamoDB keeps no empty set). */
  digests: z.optional(z.set(z.string())),
  /** Epoch seconds. */
  generatedAt: z.number(),
  /** Epoch seconds: when a code was last used. */
  lastUsedAt: z.optional(z.number()),
  /** Wrong codes since the last right one (the MFA lockout's MAX_FAILED_CODES, lib/mfa/code-check). */
  failedCodes: z.optional(z.number().check(z.int(), z.nonnegative())),
});

export type RecoveryCodes = z.output<typeof recoveryCodesSchema>;

/** How many codes of a set are unused (0 without a set). */
export const remainingCodes = (codes: RecoveryCodes | undefined): number => codes?.digests?.size ?? 0;
