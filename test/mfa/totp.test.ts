import { Secret, TOTP, URI } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import { generateCode } from '../../lib/mfa/codes';
import { matchTotp, otpauthUri, parseTotpSecret, timeStep, totpCode } from '../../lib/mfa/totp';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890".
const RFC_SECRET = Secret.fromLatin1('12345678901234567890').base32;

describe('TOTP (RFC 6238)', () => {
  // Appendix B gives 8 digits; a 6-digit code is the last 6 of the same truncation (RFC 4226 5.3).
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('gives the appendix B code at T = %i s', (seconds, eightDigits) => {
    expect(totpCode(RFC_SECRET, timeStep(seconds * 1000))).toBe(eightDigits.slice(-6));
    expect(matchTotp(RFC_SECRET, eightDigits.slice(-6), seconds * 1000)).toBe(timeStep(seconds * 1000));
  });

  it('agrees with an independently configured otpauth generator', () => {
    const secret = new Secret({ size: 20 }).base32;
    const app = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
    const now = Date.UTC(2026, 10, 22, 12, 0, 10);
    expect(matchTotp(secret, app.generate({ timestamp: now }), now)).toBe(timeStep(now));
  });

  it('accepts the previous and the next step, not two steps away', () => {
    const now = 1_800_000_000_000;
    const step = timeStep(now);
    const at = (offset: number) => totpCode(RFC_SECRET, step + offset);
    expect(matchTotp(RFC_SECRET, at(-1), now)).toBe(step - 1);
    expect(matchTotp(RFC_SECRET, at(1), now)).toBe(step + 1);
    expect(matchTotp(RFC_SECRET, at(-2), now)).toBeUndefined();
    expect(matchTotp(RFC_SECRET, at(2), now)).toBeUndefined();
  });

  it('refuses a step at or before the last accepted one (RFC 6238 5.2)', () => {
    const now = 1_800_000_000_000;
    const step = timeStep(now);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step), now, step)).toBeUndefined();
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step - 1), now, step)).toBeUndefined();
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step + 1), now, step)).toBe(step + 1);
  });

  it.each(['', '12345', '1234567', 'abcdef', ' 123456', '１２３４５６'])('refuses the malformed code %j', (code) => {
    expect(matchTotp(RFC_SECRET, code, 1_800_000_000_000)).toBeUndefined();
  });
});

describe('parseTotpSecret', () => {
  it('accepts 128 bits and more, in groups and lower case, and gives the canonical form', () => {
    const random = new Secret({ size: 20 }).base32;
    expect(parseTotpSecret(random)).toBe(random);
    const grouped = random.toLowerCase().replace(/(.{4})(?!$)/g, '$1 ');
    expect(grouped).toContain(' ');
    expect(parseTotpSecret(grouped)).toBe(random);
    const exactly128 = new Secret({ size: 16 }).base32;
    expect(parseTotpSecret(exactly128)).toBe(exactly128);
    expect(parseTotpSecret(`${exactly128}======`)).toBe(exactly128);
  });

  it.each([
    ['shorter than 128 bits', new Secret({ size: 15 }).base32],
    ['the RFC 6238 test secret, a repeated digit string (published, not random)', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'],
    ['a repeated two-letter pattern', 'AB'.repeat(16)],
    ['not base32', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ1'],
    ['not base32 (symbols)', 'GEZDGNBVGY3TQOJQ!EZDGNBVGY3TQOJQ'],
    ['an impossible base32 length', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQG'],
    ['constant', 'A'.repeat(32)],
    ['longer than 1024 bits', new Secret({ size: 129 }).base32],
    ['empty', ''],
  ])('refuses a secret that is %s', (_, secret) => {
    expect(parseTotpSecret(secret)).toBeUndefined();
  });
});

describe('otpauthUri', () => {
  it('is a Key URI authenticator apps read back to the same generator', () => {
    const secret = new Secret({ size: 20 }).base32;
    const uri = otpauthUri(secret, 'Acme ID', 'alice (acme)');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Acme%20ID:alice%20\(acme\)\?/);
    const parsed = URI.parse(uri);
    expect(parsed).toBeInstanceOf(TOTP);
    expect(parsed).toMatchObject({ issuer: 'Acme ID', label: 'alice (acme)', algorithm: 'SHA1', digits: 6, period: 30 });
    expect(parsed.secret.base32).toBe(secret);
    const now = Date.UTC(2026, 0, 1);
    expect((parsed as TOTP).generate({ timestamp: now })).toBe(totpCode(secret, timeStep(now)));
  });
});

describe('generateCode', () => {
  it('gives 6 digits, leading zeros kept, and varies', () => {
    const codes = Array.from({ length: 2000 }, () => generateCode(cryptoRandom));
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1990);
    expect(codes.some((code) => code.startsWith('0'))).toBe(true);
  });
});
