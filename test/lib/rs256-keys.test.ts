import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, type JWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { publicKeysPath } from '../../lib/config';
import { fileLocation } from '../../lib/secrets/location';
import { activateKey, addKey, describeKeys, retireKey } from '../../lib/tokens/key-rotation';
import {
  ensureKeysFile,
  generateSigningKey,
  keySetFromDocument,
  NoRs256KeyError,
  parsePublicKeys,
  parseSigningKeys,
  publicKeySetFromDocument,
  publicKeysOf,
  type SigningKeysDocument,
  signJwt,
  validatePublicKeysDocument,
} from '../../lib/tokens/signing-keys';
import { rotate, signingAlgorithm, signingKeysDocumentOf, withPublicKeys } from '../../scripts/lib/rotation';

/** docs/api.md 11.4: RS256 keys beside the ES256 ones, validated, rotated and published alike. */
describe('RS256 signing keys', () => {
  const es = () => generateSigningKey('es-1');
  const rsa = (kid = 'rsa-1') => generateSigningKey(kid, 'RS256');
  const refusal = async (document: unknown) =>
    keySetFromDocument(document as SigningKeysDocument).then(
      () => undefined,
      (error: unknown) => (error as Error).message,
    );

  it('signs ID tokens RS256 with the active RS256 key, verifiable through the JWKS, and access tokens ES256 as before', async () => {
    const keys = await keySetFromDocument({ activeKid: 'es-1', activeRs256Kid: 'rsa-1', keys: [await es(), await rsa()] });
    expect(keys.jwks.keys.map((key) => [key.kid, key.kty, key.alg])).toEqual([
      ['es-1', 'EC', 'ES256'],
      ['rsa-1', 'RSA', 'RS256'],
    ]);
    const rs = signJwt(keys, 'JWT', { sub: 'u' }, 'RS256');
    const { protectedHeader } = await jwtVerify(rs, keys.publicKeyFor, { algorithms: ['RS256'] });
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: 'rsa-1', typ: 'JWT' });
    const ec = signJwt(keys, 'JWT', { sub: 'u' });
    expect((await jwtVerify(ec, keys.publicKeyFor, { algorithms: ['ES256'] })).protectedHeader.kid).toBe('es-1');
  });

  it('refuses to sign RS256 without an RS256 key, naming the command that adds one', async () => {
    const keys = await keySetFromDocument({ activeKid: 'es-1', keys: [await es()] });
    expect(() => signJwt(keys, 'JWT', { sub: 'u' }, 'RS256')).toThrow(NoRs256KeyError);
    expect(() => signJwt(keys, 'JWT', { sub: 'u' }, 'RS256')).toThrow('No active RS256 signing key: run "npm run keys -- add --alg RS256"');
  });

  it.each<[string, (e: JWK, r: JWK, r2: JWK) => unknown, string]>([
    [
      'an RS256 key as the active (access token) key',
      (e, r) => ({ activeKid: 'rsa-1', keys: [e, r] }),
      'Signing keys: the active key rsa-1 is not an ES256 key',
    ],
    [
      'an active RS256 kid that is an ES256 key',
      (e, r) => ({ activeKid: 'es-1', activeRs256Kid: 'es-1', keys: [e, r] }),
      'Signing keys: the active RS256 key es-1 is not an RS256 key among the keys',
    ],
    [
      'an active RS256 kid that is not among the keys',
      (e, r) => ({ activeKid: 'es-1', activeRs256Kid: 'rsa-9', keys: [e, r] }),
      'Signing keys: the active RS256 key rsa-9 is not an RS256 key among the keys',
    ],
    [
      'a d of another RSA key',
      (e, r, r2) => ({ activeKid: 'es-1', keys: [e, { ...r, d: r2.d, p: r2.p, q: r2.q, dp: r2.dp, dq: r2.dq, qi: r2.qi }] }),
      'Signing key rsa-1: d does not belong to n and e',
    ],
    // node:crypto signs with the CRT members: a wrong d alone, or one wrong CRT member, still signs and verifies.
    [
      'a d of another RSA key beside its own CRT members',
      (e, r, r2) => ({ activeKid: 'es-1', keys: [e, { ...r, d: r2.d }] }),
      'Signing key rsa-1: d does not belong to n and e',
    ],
    [
      'a dp that does not invert e',
      (e, r) => ({ activeKid: 'es-1', keys: [e, { ...r, dp: r.dq }] }),
      'Signing key rsa-1: d does not belong to n and e',
    ],
    [
      'a qi of another key',
      (e, r, r2) => ({ activeKid: 'es-1', keys: [e, { ...r, qi: r2.qi }] }),
      'Signing key rsa-1: d does not belong to n and e',
    ],
    [
      'a public exponent of 1',
      (e, r) => ({ activeKid: 'es-1', keys: [e, { ...r, e: 'AQ' }] }),
      'Signing key rsa-1: d does not belong to n and e',
    ],
    [
      'a public exponent as large as n',
      (e, r) => ({ activeKid: 'es-1', keys: [e, { ...r, e: r.n }] }),
      'Signing key rsa-1 has a public exponent verifiers refuse',
    ],
    [
      'a modulus longer than OpenSSL signs with',
      (e, r) => ({ activeKid: 'es-1', keys: [e, { ...r, n: Buffer.alloc(2049, 0xff).toString('base64url') }] }),
      'Signing key rsa-1 is longer than 16384 bits',
    ],
    [
      'no CRT members',
      (e, r) => ({ activeKid: 'es-1', keys: [e, { ...r, p: undefined }] }),
      'Signing key rsa-1 is not a private RSA key with n, e, d, p, q, dp, dq and qi',
    ],
    ['use enc', (e, r) => ({ activeKid: 'es-1', keys: [e, { ...r, use: 'enc' }] }), 'Signing key rsa-1 is not a signature key (use)'],
    ['a kid twice', (e, r) => ({ activeKid: 'es-1', keys: [e, r, { ...r }] }), 'Signing key id rsa-1 appears twice'],
  ])('refuses %s, naming the key and never its material', async (_, make, message) => {
    const [e, r, r2] = [await es(), await rsa(), await rsa('rsa-2')];
    const refused = await refusal(make(e, r, r2));
    expect(refused).toBe(message);
    for (const part of [r.d, r.p, r2.d]) expect(refused).not.toContain(String(part).slice(0, 12));
  });

  it('refuses an RSA key shorter than 2048 bits, private or public', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const short = { ...(await exportJWK(privateKey)), kid: 'short', alg: 'RS256', use: 'sig' };
    expect(await refusal({ activeKid: 'es-1', keys: [await es(), short] })).toBe('Signing key short is shorter than 2048 bits');
    const { n, e, kty } = short;
    expect(() => validatePublicKeysDocument({ keys: [{ kty, n, e, kid: 'short', alg: 'RS256', use: 'sig' }] })).toThrow(
      'Public key short is shorter than 2048 bits',
    );
  });

  it('publishes only n and e of an RSA key, and a public document with private RSA members is refused', async () => {
    const document = { activeKid: 'es-1', activeRs256Kid: 'rsa-1', keys: [await es(), await rsa()] };
    const published = publicKeysOf(document);
    expect(Object.keys(published.keys[1] ?? {}).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(parsePublicKeys(JSON.stringify(published))).toEqual(published);
    expect(publicKeySetFromDocument(published).jwks.keys).toHaveLength(2);
    expect(() => parsePublicKeys(JSON.stringify({ keys: document.keys }))).toThrow('Public key es-1 holds private key material');
  });

  it('rotates: the first RS256 key becomes the active RS256 key, another is published, activated, the old one retired', async () => {
    await expect(addKey(undefined, 'rsa-1', 'RS256')).rejects.toThrow('Add an ES256 key first: it signs every access token');
    const start = await addKey(await addKey(undefined, 'es-1'), 'rsa-1', 'RS256');
    expect([start.activeKid, start.activeRs256Kid]).toEqual(['es-1', 'rsa-1']);
    const published = await addKey(start, 'rsa-2', 'RS256');
    expect(describeKeys(published)).toBe('es-1 (active)\nrsa-1 RS256 (active)\nrsa-2 RS256 (published)');
    const active = activateKey(published, 'rsa-2');
    expect([active.activeKid, active.activeRs256Kid]).toEqual(['es-1', 'rsa-2']);
    expect(() => retireKey(active, 'rsa-2')).toThrow('Key rsa-2 is the active key: activate another one first');
    const retired = retireKey(active, 'rsa-1');
    expect(describeKeys(retired)).toBe('es-1 (active)\nrsa-2 RS256 (active)');
    expect(parseSigningKeys(JSON.stringify(retired))).toEqual(retired);
  });

  it('npm run keys -- add --alg RS256 writes the key and its public twin; --alg takes ES256 and RS256 only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsa-keys-'));
    const path = join(dir, 'signing-keys.json');
    const location = withPublicKeys(fileLocation(path), fileLocation(publicKeysPath(path)));
    const printed: string[] = [];
    await rotate(signingKeysDocumentOf('ES256'), location, 'add', 'es-1', (line) => printed.push(line));
    await rotate(signingKeysDocumentOf(signingAlgorithm('RS256')), location, 'add', 'rsa-1', (line) => printed.push(line));
    expect(printed).toEqual(['es-1 (active)', 'es-1 (active)\nrsa-1 RS256 (active)']);
    const text = readFileSync(path, 'utf8');
    expect(parseSigningKeys(text).activeRs256Kid).toBe('rsa-1');
    const twin = parsePublicKeys(readFileSync(publicKeysPath(path), 'utf8'));
    expect(twin.keys.map((key) => [key.kid, key.kty])).toEqual([
      ['es-1', 'EC'],
      ['rsa-1', 'RSA'],
    ]);
    for (const line of printed) expect(line).not.toContain(String(parseSigningKeys(text).keys[1]?.d).slice(0, 12));
    expect(signingAlgorithm(undefined)).toBe('ES256');
    expect(() => signingAlgorithm('HS256')).toThrow('--alg must be one of ES256, RS256');
  });

  it('npm start makes a new local keys file with an ES256 and an RS256 key', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'local-keys-')), 'signing-keys.json');
    expect(await ensureKeysFile(path, 'local-1')).toBe('created');
    const document = parseSigningKeys(readFileSync(path, 'utf8'));
    expect([document.activeKid, document.activeRs256Kid, document.keys.map((key) => key.alg)]).toEqual([
      'local-1',
      'local-1-rs256',
      ['ES256', 'RS256'],
    ]);
    const keys = await keySetFromDocument(document);
    expect(keys.rs256?.kid).toBe('local-1-rs256');
  });
});
