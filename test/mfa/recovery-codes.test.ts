import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import { generateRecoveryCode, generateRecoveryCodes, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from '../../lib/mfa/recovery-codes';

describe('recovery codes (docs/api.md 8.6)', () => {
  it('are 12 base32 characters (60 bits) in groups of 4, from the random source', () => {
    const fixed = { token: () => Buffer.alloc(8, 0xff).toString('base64url') };
    // All bits set: every 5-bit group is 31, the alphabet's last character.
    expect(generateRecoveryCode(fixed)).toBe('7777-7777-7777');
    expect(generateRecoveryCode({ token: () => Buffer.alloc(8).toString('base64url') })).toBe('aaaa-aaaa-aaaa');
    const codes = Array.from({ length: 2000 }, () => generateRecoveryCode(cryptoRandom));
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    expect(new Set(codes).size).toBe(codes.length);
    // Every character of the alphabet turns up in every position.
    for (let position = 0; position < 14; position++) {
      if (position % 5 === 4) continue;
      expect(new Set(codes.map((code) => code[position])).size, `position ${position}`).toBe(32);
    }
  });

  it('come 10 to a set, all different; a source that repeats itself fails rather than loops', () => {
    const set = generateRecoveryCodes(cryptoRandom);
    expect(set).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(set).size).toBe(RECOVERY_CODE_COUNT);
    let calls = 0;
    const twice = { token: () => Buffer.alloc(8, Math.floor(calls++ / 2)).toString('base64url') };
    expect(new Set(generateRecoveryCodes(twice)).size).toBe(RECOVERY_CODE_COUNT);
    expect(() => generateRecoveryCodes({ token: () => Buffer.alloc(8).toString('base64url') })).toThrow('The random source repeats itself');
  });

  it.each([
    ['abcd-efgh-ijk2', 'abcdefghijk2'],
    ['ABCD-EFGH-IJK2', 'abcdefghijk2'],
    ['abcd efgh ijk2', 'abcdefghijk2'],
    ['abcdefghijk2', 'abcdefghijk2'],
    [' abcd-efgh-ijk2 ', 'abcdefghijk2'],
    ['abcd-efgh-ijk1', undefined],
    ['abcd-efgh-ijk', undefined],
    ['abcd-efgh-ijk22', undefined],
    ['123456', undefined],
    ['', undefined],
    ['abcd_efgh_ijk2', undefined],
  ])('reads %j as %j', (typed, compact) => {
    expect(normalizeRecoveryCode(typed)).toBe(compact);
  });
});
