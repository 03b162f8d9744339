import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * The signing keys document: every key that is published in the JWKS, and the one
 * that signs. Rotation (README, scripts/rotate-signing-key): add a key, wait for
 * caches to see it, make it active, then remove the old one after the longest
 * token lifetime.
 */
export interface SigningKeysDocument {
  activeKid: string;
  /** Private JWKs (ES256) with `kid`. */
  keys: JWK[];
}

export interface KeySet {
  kid: string;
  /** The active key for node:crypto: what `signJwt` signs with. */
  signingKey: KeyObject;
  /** Public parts of every key, as served at /.well-known/jwks.json. */
  jwks: { keys: JWK[] };
  /** Finds the public key for a token header among `jwks` (built once per key set). */
  publicKeyFor: ReturnType<typeof createLocalJWKSet>;
}

/** Where the keys come from; `load` is called once per cold start and cached. */
export interface KeyProvider {
  load(): Promise<KeySet>;
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use'] as const;

function publicPart(jwk: JWK): JWK {
  const out: JWK = {};
  for (const member of PUBLIC_MEMBERS) if (jwk[member] !== undefined) out[member] = jwk[member];
  return out;
}

export async function generateSigningKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
}

export async function keySetFromDocument(document: SigningKeysDocument): Promise<KeySet> {
  const active = document.keys.find((key) => key.kid === document.activeKid);
  if (!active) throw new Error(`Signing keys: the active key ${document.activeKid} is not among the keys`);
  if (document.keys.some((key) => key.kty !== 'EC' || key.crv !== 'P-256' || !key.d || !key.kid)) {
    throw new Error('Signing keys: every key must be a private P-256 JWK with a kid');
  }
  const signingKey = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x: active.x, y: active.y, d: active.d }, format: 'jwk' });
  const jwks = { keys: document.keys.map(publicPart) };
  return { kid: document.activeKid, signingKey, jwks, publicKeyFor: createLocalJWKSet(jwks) };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * A JWT (RFC 7519) in compact JWS form, signed ES256 with the active key; the header
 * is `{ alg: 'ES256', kid, typ }`. node:crypto signs synchronously with the signature
 * in the JOSE form (`r || s`, RFC 7518 3.4: `ieee-p1363`), at about half the CPU of
 * WebCrypto's asynchronous sign, on the path of every token the service issues.
 * Verified as before with jose against the JWKS.
 */
export function signJwt(keys: KeySet, typ: string, claims: Record<string, string | number | string[]>): string {
  const input = `${base64url({ alg: 'ES256', kid: keys.kid, typ })}.${base64url(claims)}`;
  const signature = sign('sha256', Buffer.from(input, 'utf8'), { key: keys.signingKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** Caches the first successful load; a failed load is retried on the next call. */
export function cachedKeyProvider(load: () => Promise<KeySet>): KeyProvider {
  let cached: Promise<KeySet> | undefined;
  return {
    load() {
      cached ??= load().catch((error: unknown) => {
        cached = undefined;
        throw error;
      });
      return cached;
    },
  };
}

/** Local development: keys in a JSON file under .data/ (created by `npm start`). */
export function fileKeyProvider(path: string): KeyProvider {
  return cachedKeyProvider(async () => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      throw new Error(`Signing keys file ${path} is missing: run "npm start", which creates it on first run`);
    }
    return keySetFromDocument(JSON.parse(text) as SigningKeysDocument);
  });
}

/** Creates the local keys file with one fresh key unless it exists. */
export async function ensureKeysFile(path: string, kid: string): Promise<'created' | 'exists'> {
  try {
    await readFile(path);
    return 'exists';
  } catch {
    await mkdir(dirname(path), { recursive: true });
    const document: SigningKeysDocument = { activeKid: kid, keys: [await generateSigningKey(kid)] };
    await writeFile(path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return 'created';
  }
}

/** A key set made in memory (tests, benchmarks). */
export async function generateKeySet(kid = 'test-key'): Promise<KeySet> {
  return keySetFromDocument({ activeKid: kid, keys: [await generateSigningKey(kid)] });
}
