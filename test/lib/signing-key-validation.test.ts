import type { JWK } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { epochSeconds } from '../../lib/clock';
import { createLogger } from '../../lib/log';
import type { SecretsClient } from '../../lib/secrets/location';
import { signAccessToken, verifyAccessToken } from '../../lib/tokens/access-token';
import { KEYS_REFRESH_SECONDS, secretsManagerKeyProvider } from '../../lib/tokens/secrets-manager-keys';
import { generateSigningKey, keySetFromDocument, type SigningKeysDocument } from '../../lib/tokens/signing-keys';
import { noSecretWrites, testClock } from '../helpers/deps';

/**
 * A signing-key document is checked before it is used. node:crypto
 * takes a `d` with another key's `x`/`y` (the instance would sign tokens nobody can
 * verify), and duplicate kids make jose refuse every token.
 */
describe('a signing keys document is validated before use', () => {
  const twoKeys = async () => [await generateSigningKey('k1'), await generateSigningKey('k2')] as const;

  it.each<[string, (k1: JWK, k2: JWK) => SigningKeysDocument, string]>([
    [
      'a d that belongs to another key',
      (k1, k2) => ({ activeKid: 'k1', keys: [{ ...k1, d: k2.d }, k2] }),
      'Signing key k1: d does not belong to x and y',
    ],
    [
      'the x and y of another key',
      (k1, k2) => ({ activeKid: 'k2', keys: [k1, { ...k2, x: k1.x, y: k1.y }] }),
      'Signing key k2: d does not belong to x and y',
    ],
    [
      'a published key whose d is wrong',
      (k1, k2) => ({ activeKid: 'k1', keys: [k1, { ...k2, d: k1.d }] }),
      'Signing key k2: d does not belong to x and y',
    ],
    ['two keys with one kid', (k1, k2) => ({ activeKid: 'k1', keys: [k1, { ...k2, kid: 'k1' }] }), 'Signing key id k1 appears twice'],
    ['alg RS256', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, alg: 'RS256' }] }), 'Signing key k1 is not an ES256 key (alg)'],
    ['no alg', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, alg: undefined }] }), 'Signing key k1 is not an ES256 key (alg)'],
    ['use enc', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, use: 'enc' }] }), 'Signing key k1 is not a signature key (use)'],
    ['curve P-384', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, crv: 'P-384' }] }), 'Signing key k1 is not a P-256 EC key'],
    ['kty RSA', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, kty: 'RSA' }] }), 'Signing key k1 is not a P-256 EC key'],
    ['no d', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, d: undefined }] }), 'Signing key k1 is not a private key with 32-byte x, y and d'],
    [
      'a short x',
      (k1) => ({ activeKid: 'k1', keys: [{ ...k1, x: String(k1.x).slice(0, 20) }] }),
      'Signing key k1 is not a private key with 32-byte x, y and d',
    ],
    ['no kid', (k1) => ({ activeKid: 'k1', keys: [{ ...k1, kid: undefined }] }), 'Signing key #1 has no kid'],
    [
      'an active kid that is not among the keys',
      (k1) => ({ activeKid: 'k9', keys: [k1] }),
      'Signing keys: the active key k9 is not among the keys',
    ],
  ])('refuses %s, naming the key and never its material', async (_, make, message) => {
    const [k1, k2] = await twoKeys();
    const document = make(k1, k2);
    const refused = await keySetFromDocument(document).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toBe(message);
    for (const key of [k1, k2]) expect(refused?.message).not.toContain(String(key.d).slice(0, 8));
  });

  it('accepts what the rotation tool makes: several valid keys, one active', async () => {
    const [k1, k2] = await twoKeys();
    const keys = await keySetFromDocument({ activeKid: 'k2', keys: [k1, k2] });
    expect(keys.kid).toBe('k2');
    expect(keys.jwks.keys.map((key) => key.kid)).toEqual(['k1', 'k2']);
  });
});

describe('secretsManagerKeyProvider keeps the last good key set', () => {
  it('keeps signing and verifying with it when the refreshed document is bad, logs signing_keys_rejected, and takes the next good one', async () => {
    const [k1, k2] = [await generateSigningKey('k1'), await generateSigningKey('k2')];
    const clock = testClock();
    const lines: string[] = [];
    const state = { text: JSON.stringify({ activeKid: 'k1', keys: [k1] }) };
    const client: SecretsClient = {
      getSecretValue: async () => ({ SecretString: state.text, VersionId: 'v' }),
      send: noSecretWrites,
    };
    const provider = secretsManagerKeyProvider(
      client,
      'secret',
      clock,
      createLogger('info', (line) => lines.push(line)),
    );
    expect((await provider.load()).kid).toBe('k1');

    const settings = { issuer: 'https://id.example.com', audience: 'identity-service' };
    const identity = {
      userId: 'u',
      username: 'u',
      role: 'ADMIN' as const,
      tenantId: 't',
      shopId: 's',
      sessionId: 'sid',
      amr: ['pwd' as const],
      authTime: 1_700_000_000,
    };
    const bad: Array<[string, SigningKeysDocument]> = [
      ['k2 signs with a d that is not its own', { activeKid: 'k2', keys: [k1, { ...k2, d: k1.d }] }],
      ['k2 and k1 share a kid', { activeKid: 'k1', keys: [k1, { ...k2, kid: 'k1' }] }],
    ];
    for (const [index, [, document]] of bad.entries()) {
      state.text = JSON.stringify(document);
      clock.advance(KEYS_REFRESH_SECONDS);
      await provider.load();
      await vi.waitFor(() => expect(lines.filter((line) => line.includes('signing_keys_rejected'))).toHaveLength(index + 1));
      const keys = await provider.load();
      expect([keys.kid, keys.jwks.keys.map((key) => key.kid)]).toEqual(['k1', ['k1']]);
      const now = epochSeconds(clock);
      const { token } = await signAccessToken(keys, { ...settings, ttlSeconds: 900 }, identity, 'jti', now);
      expect(await verifyAccessToken(keys, settings, token, now)).toMatchObject({ ok: true });
    }
    const rejected = lines.filter((line) => line.includes('signing_keys_rejected')).map((line) => JSON.parse(line));
    expect(rejected).toEqual([
      expect.objectContaining({ level: 'error', event: 'signing_keys_rejected', reason: 'Signing key k2: d does not belong to x and y' }),
      expect.objectContaining({ level: 'error', event: 'signing_keys_rejected', reason: 'Signing key id k1 appears twice' }),
    ]);
    for (const key of [k1, k2]) expect(lines.join('\n')).not.toContain(String(key.d).slice(0, 8));

    state.text = JSON.stringify({ activeKid: 'k2', keys: [k1, k2] });
    clock.advance(KEYS_REFRESH_SECONDS);
    await provider.load();
    await vi.waitFor(async () => expect((await provider.load()).kid).toBe('k2'));
  });
});
