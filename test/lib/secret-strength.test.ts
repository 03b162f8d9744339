import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isStrongSecret, secretStrength } from '../../lib/crypto/secret-strength';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const base32 = (length: number) => [...randomBytes(length)].map((byte) => BASE32[byte % 32]).join('');

describe('secret strength', () => {
  it.each([
    ['one character repeated', 'a'.repeat(32)],
    ['two characters alternating', 'AB'.repeat(16)],
    ['a word repeated', 'password'.repeat(4)],
    ['a run of the alphabet', 'abcdefghijklmnopqrstuvwxyz012345'],
    ['a run of digits', '01234567890123456789012345678901'],
    ['a random half repeated', 'k3J9xQ2mZp7Lw4Rt'.repeat(2)],
    ['base32 of a repeated byte', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'],
  ])('refuses %s', (_name, secret) => {
    expect(isStrongSecret(secret)).toBe(false);
  });

  it.each([
    ['32 hex digits', () => randomBytes(16).toString('hex')],
    ['32 base64url characters', () => randomBytes(24).toString('base64url')],
    ['a 26-character base32 TOTP secret (128 bits)', () => base32(26)],
    ['a 32-character base32 TOTP secret (160 bits)', () => base32(32)],
  ])('accepts 2,000 of 2,000 random %s', (_name, make) => {
    const refused = Array.from({ length: 2000 }, make).filter((secret) => !isStrongSecret(secret));
    expect(refused).toEqual([]);
  });

  it('estimates bits from the characters used, never more than the length allows', () => {
    expect(secretStrength('')).toEqual({ bits: 0, distinct: 0 });
    expect(secretStrength('ab')).toEqual({ bits: 2, distinct: 2 });
    expect(secretStrength('abcd'.repeat(8)).bits).toBe(64);
  });
});
