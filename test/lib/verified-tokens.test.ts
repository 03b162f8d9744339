import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS, signOAuthAccessToken, verifyOAuthAccessToken } from '../../lib/oauth/access-token';
import { signAccessToken, verifyAccessToken } from '../../lib/tokens/access-token';
import { generateKeySet, type KeySet, type PublicKeySet } from '../../lib/tokens/signing-keys';
import { checksOf, verifiedTokens } from '../../lib/tokens/verified-tokens';

const ISSUER = 'https://id.example.com';
const AUDIENCE = 'identity-service';

/** The same published keys as `keys`, counting how often a verification looked one up. */
function counting(keys: KeySet): { set: PublicKeySet; lookups: () => number } {
  let lookups = 0;
  const set: PublicKeySet = {
    jwks: keys.jwks,
    publicKeyFor: ((...args: Parameters<PublicKeySet['publicKeyFor']>) => {
      lookups += 1;
      return keys.publicKeyFor(...args);
    }) as PublicKeySet['publicKeyFor'],
  };
  return { set, lookups: () => lookups };
}

const identity = {
  userId: 'u-1',
  sessionId: 's-1',
  username: 'ada',
  role: 'ADMIN' as const,
  tenantId: 't-1',
  shopId: 'default',
  amr: ['pwd' as const],
  authTime: 1_800_000_000,
};

describe('verified tokens: what this process verified once is recalled, within its time', () => {
  it('verifies a session token once, recalls it until `exp`, then verifies it again and refuses it', async () => {
    const keys = await generateKeySet();
    const { set, lookups } = counting(keys);
    const now = 1_800_000_000;
    const settings = { issuer: ISSUER, audience: AUDIENCE };
    const { token, expiresAt } = await signAccessToken(keys, { ...settings, ttlSeconds: 900 }, identity, randomUUID(), now);

    const first = await verifyAccessToken(set, settings, token, now);
    const again = await verifyAccessToken(set, settings, token, now + 899);
    expect(first).toEqual({ ok: true, identity });
    expect(again).toEqual(first);
    expect(lookups()).toBe(1);

    // Another audience or issuer is another check: verified (and refused) afresh.
    expect(await verifyAccessToken(set, { issuer: ISSUER, audience: 'someone-else' }, token, now)).toEqual({ ok: false, reason: 'claims' });
    expect(lookups()).toBe(2);
    expect(await verifyAccessToken(set, settings, token, expiresAt)).toEqual({ ok: false, reason: 'expired' });
    expect(lookups()).toBe(3);
  });

  it('forgets a token when its key set is replaced: a key removed at rotation fails at once', async () => {
    const keys = await generateKeySet();
    const now = 1_800_000_000;
    const settings = { issuer: ISSUER, audience: AUDIENCE };
    const { token } = await signAccessToken(keys, { ...settings, ttlSeconds: 900 }, identity, randomUUID(), now);
    expect((await verifyAccessToken(keys, settings, token, now)).ok).toBe(true);
    const rotated = await generateKeySet();
    expect(await verifyAccessToken(rotated, settings, token, now + 1)).toEqual({ ok: false, reason: 'signature' });
  });

  it('recalls OAuth access tokens the same way, and never one kind of token as the other', async () => {
    const keys = await generateKeySet();
    const { set, lookups } = counting(keys);
    const iat = 1_800_000_000;
    const claims = { iss: ISSUER, client_id: 'c-1', sub: 'c-1', scope: 'read', tenantId: 't-1', iat, jti: randomUUID() };
    const token = signOAuthAccessToken(keys, claims);
    const first = await verifyOAuthAccessToken(set, ISSUER, token, iat);
    expect(first).toMatchObject({ client_id: 'c-1', exp: iat + OAUTH_ACCESS_TOKEN_TTL_SECONDS });
    expect(await verifyOAuthAccessToken(set, ISSUER, token, iat + 60)).toEqual(first);
    expect(lookups()).toBe(1);
    // Known to the OAuth verifier, the token is still no session token.
    expect(await verifyAccessToken(set, { issuer: ISSUER, audience: 'c-1' }, token, iat)).toEqual({ ok: false, reason: 'claims' });
    expect(await verifyOAuthAccessToken(set, 'https://other.example', token, iat)).toBeUndefined();
    expect(await verifyOAuthAccessToken(set, ISSUER, token, iat + OAUTH_ACCESS_TOKEN_TTL_SECONDS)).toBeUndefined();
  });

  it('hands out a frozen value, so no caller can change what the next one is told', async () => {
    const keys = await generateKeySet();
    const now = 1_800_000_000;
    const settings = { issuer: ISSUER, audience: AUDIENCE };
    const { token } = await signAccessToken(keys, { ...settings, ttlSeconds: 900 }, identity, randomUUID(), now);
    const verified = await verifyAccessToken(keys, settings, token, now);
    if (!verified.ok) throw new Error('expected a verified token');
    expect(() => Object.assign(verified.identity, { role: 'ADMIN', tenantId: 'other' })).toThrow(TypeError);
    expect(() => (verified.identity.amr as string[]).push('mfa')).toThrow(TypeError);
    expect(await verifyAccessToken(keys, settings, token, now + 1)).toEqual({ ok: true, identity });
  });

  it('keeps at most its capacity per key set, forgetting the oldest first', async () => {
    const keys = await generateKeySet();
    const other = await generateKeySet();
    const memory = verifiedTokens<number>(3);
    const checks = checksOf(ISSUER, AUDIENCE);
    for (const n of [1, 2, 3]) memory.remember(keys, checks, `token-${n}`, { exp: 100 }, n);
    memory.remember(other, checks, 'token-1', { exp: 100 }, 10);
    expect([1, 2, 3].map((n) => memory.recall(keys, checks, `token-${n}`, 50))).toEqual([1, 2, 3]);
    // Remembering one again does not push another out.
    memory.remember(keys, checks, 'token-2', { exp: 100 }, 2);
    expect(memory.recall(keys, checks, 'token-1', 50)).toBe(1);
    memory.remember(keys, checks, 'token-4', { exp: 100 }, 4);
    expect([1, 2, 3, 4].map((n) => memory.recall(keys, checks, `token-${n}`, 50))).toEqual([undefined, 2, 3, 4]);
    expect(memory.recall(other, checks, 'token-1', 50)).toBe(10);
  });

  it('compares `nbf` and `exp` as jose does, and remembers nothing without `exp`', async () => {
    const keys = await generateKeySet();
    const memory = verifiedTokens<string>();
    memory.remember(keys, 'c', 'early', { exp: 200, nbf: 100 }, 'early');
    expect(memory.recall(keys, 'c', 'early', 100)).toBe('early');
    expect(memory.recall(keys, 'c', 'early', 199)).toBe('early');
    expect(memory.recall(keys, 'c', 'early', 200)).toBeUndefined();
    memory.remember(keys, 'c', 'later', { exp: 200, nbf: 100 }, 'later');
    expect(memory.recall(keys, 'c', 'later', 99)).toBeUndefined();
    memory.remember(keys, 'c', 'timeless', {}, 'timeless');
    expect(memory.recall(keys, 'c', 'timeless', 0)).toBeUndefined();
  });
});
