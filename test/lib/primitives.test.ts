import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../lib/config';
import { constantEquals } from '../../lib/crypto/constant-equals';
import { hashToken } from '../../lib/crypto/token-hash';
import { createLogger } from '../../lib/log';
import { formatRefreshToken, parseRefreshToken } from '../../lib/sessions/refresh-token';
import { keys } from '../../lib/store/keys';
import { commonPasswordCount, isCommonPassword } from '../../lib/users/common-passwords';
import { commonPasswordText } from '../../scripts/lib/common-passwords.mjs';

describe('constantEquals', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['', '', true],
  ])('%j vs %j is %s', (a, b, expected) => expect(constantEquals(a, b)).toBe(expected));
});

describe('hashToken', () => {
  it('is SHA-256 in base64url', () => {
    expect(hashToken('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });
});

describe('refresh token format', () => {
  it('round-trips tenant, session, generation and secret', () => {
    const parts = { tenantId: 'Acme #1 ü', sessionId: 'abc_DEF-1', generation: 42, secret: 'S'.repeat(43) };
    expect(parseRefreshToken(formatRefreshToken(parts))).toEqual(parts);
  });
  it.each(['', 'a.b.c', 'a.b.c.d.e', 'YQ.s.-1.x', 'YQ.s.01.x', 'YQ.s.1.x y', 'YQ=.s.1.x', '.s.1.x'])('refuses %j', (token) => {
    expect(parseRefreshToken(token)).toBeUndefined();
  });
});

describe('keys', () => {
  it('starts every key with its tenant and escapes # and % in caller parts', () => {
    expect(keys.username('a#USER#b', 'Bob#X')).toEqual({ pk: 'T#a%23USER%23b#USERNAME#bob%23x', sk: 'USERNAME' });
    expect(keys.tenant('50%23')).toEqual({ pk: 'T#50%2523', sk: 'TENANT' });
    expect(keys.tenant('50%23')).not.toEqual(keys.tenant('50#'));
    expect(keys.user('t', 'u')).toEqual({ pk: 'T#t#USER#u', sk: 'PROFILE' });
  });
  it('treats usernames case- and Unicode-form-insensitively', () => {
    expect(keys.username('t', 'ÅSA')).toEqual(keys.username('t', 'A\u030asa'));
  });
});

describe('common passwords', () => {
  it('ships at least 10,000 entries', async () => {
    expect(await commonPasswordCount()).toBeGreaterThan(10_000);
  });
  it('is zxcvbn-ts’s list, as scripts/lib/common-passwords.mjs derives it', () => {
    expect(readFileSync('lib/users/common-passwords.txt', 'utf8')).toBe(commonPasswordText());
  });
  it.each([
    ['password1', true],
    ['PassWord1', true],
    ['qwerty123', true],
    ['!qaz2wsx', true],
    ['correct horse battery staple', false],
    // Two entries joined by a line break are not an entry.
    ['password1\nqwerty123', false],
    ['', false],
  ])('finds %j on the list: %s', async (password, common) => {
    expect(await isCommonPassword(password)).toBe(common);
  });
});

describe('readConfig', () => {
  it('has working defaults', () => {
    expect(readConfig({})).toMatchObject({
      issuer: 'http://localhost:3000',
      accessTokenTtlSeconds: 900,
      sessionMaxAgeSeconds: 2_592_000,
      reauthMaxAgeSeconds: 600,
      defaultTenantId: 'default',
    });
  });
  it.each([
    [{ ISSUER: 'not a url' }, 'Environment variable ISSUER must be an absolute http(s) URL, got "not a url"'],
    [{ ACCESS_TOKEN_TTL_SECONDS: '5' }, 'Environment variable ACCESS_TOKEN_TTL_SECONDS must be an integer from 60 to 3600, got "5"'],
    [{ CORS_ALLOWED_ORIGINS: '*' }, 'Environment variable CORS_ALLOWED_ORIGINS must list origins, not "*"'],
    [{ SIGNING_KEYS_SOURCE: 'secretsmanager' }, 'Missing environment variable SIGNING_KEYS_SECRET_ID'],
    [{ REAUTH_MAX_AGE_SECONDS: '0' }, 'Environment variable REAUTH_MAX_AGE_SECONDS must be an integer from 60 to 86400, got "0"'],
    [{ LOG_LEVEL: 'loud' }, 'Environment variable LOG_LEVEL must be one of debug, info, warn, error, got "loud"'],
  ])('refuses %j', (env, message) => {
    expect(() => readConfig(env)).toThrow(new ConfigError(message));
  });
});

describe('logger', () => {
  it('writes JSON lines and redacts fields named like secrets', () => {
    const lines: string[] = [];
    createLogger('info', (line) => lines.push(line))
      .child({ requestId: 'r1' })
      .info('x', { password: 'p', refreshToken: 't', tenantId: 'a' });
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 'info',
      time: expect.any(String),
      event: 'x',
      requestId: 'r1',
      password: '[redacted]',
      refreshToken: '[redacted]',
      tenantId: 'a',
    });
  });
  it('drops lines under its level', () => {
    const lines: string[] = [];
    createLogger('warn', (line) => lines.push(line)).info('x');
    expect(lines).toEqual([]);
  });
});
