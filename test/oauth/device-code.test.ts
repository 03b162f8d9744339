import { describe, expect, it } from 'vitest';
import { displayUserCode, newUserCode, normalizeUserCode, USER_CODE_ALPHABET } from '../../lib/oauth/device-code';

/** The user code of the device grant (docs/api.md 16.4, RFC 8628 6.1). */
describe('user codes', () => {
  it.each([
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdf-ghjk', 'BCDFGHJK'],
    ['  bcdf ghjk ', 'BCDFGHJK'],
    ['BCDFGHJK', 'BCDFGHJK'],
    ['B-C-D-F-G-H-J-K', 'BCDFGHJK'],
    ['BCDF\tGHJK\n', 'BCDFGHJK'],
  ])('reads %j as %s', (typed, code) => {
    expect(normalizeUserCode(typed)).toBe(code);
  });

  it.each([
    ['', 'empty'],
    ['BCDF-GHJ', 'too short'],
    ['BCDF-GHJKL', 'too long'],
    ['ABCD-EFGH', 'vowels'],
    ['1234-5678', 'digits'],
    ['BCDF\u2010GHJK', 'another dash'],
    ['ＢＣＤＦ-ＧＨＪＫ', 'full-width letters'],
    ['BCDF_GHJK', 'an underscore'],
  ])('refuses %j (%s)', (typed) => {
    expect(normalizeUserCode(typed)).toBeUndefined();
  });

  it('shows a code as XXXX-XXXX', () => {
    expect(displayUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
  });

  it('draws 8 letters of the alphabet, each as likely as another', () => {
    const counts = new Map<string, number>();
    for (let draw = 0; draw < 2_000; draw++) {
      const code = newUserCode({ token: (bytes = 32) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url') });
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      for (const letter of code) counts.set(letter, (counts.get(letter) ?? 0) + 1);
    }
    // 16,000 letters over 20: 800 each expected; a letter favoured by the modulo would show far beyond.
    expect([...counts.keys()].sort().join('')).toBe([...USER_CODE_ALPHABET].sort().join(''));
    for (const count of counts.values()) expect(Math.abs(count - 800)).toBeLessThan(150);
  });

  it('drops bytes of 240 and above, which would favour the first 16 letters', () => {
    // Bytes 240..255 only, then 0..7: only the second batch becomes letters.
    const batches = [Buffer.alloc(16, 250), Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])];
    let call = 0;
    const code = newUserCode({ token: () => (batches[call++] ?? batches[1] ?? Buffer.alloc(0)).toString('base64url') });
    expect(code).toBe('BCDFGHJK');
  });
});
