import { createECDH, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK } from 'jose';
import { type Clock, systemClock } from '../clock';
import { publicKeysPath } from '../config';
import { createLogger, type Logger } from '../log';
import { isRecord, parseSecretJson, SecretDocumentError } from '../secrets/document';
import { fileLocation } from '../secrets/location';
import { refreshedSecret } from '../secrets/refreshed';

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

/**
 * The public keys document (issue 16, item 5): the public part of every key of the
 * signing keys document, a JSON Web Key Set (RFC 7517) written beside it by
 * `npm run keys`. The functions that only verify (the authorizer, jwks, revoke,
 * introspect) read this one and can read nothing else: a leak of theirs leaks no key.
 */
export interface PublicKeysDocument {
  /** Public JWKs (ES256) with `kid`: no private member. */
  keys: JWK[];
}

/** What a verifier holds: the published keys. */
export interface PublicKeySet {
  /** Public parts of every key, as served at /.well-known/jwks.json. */
  jwks: { keys: JWK[] };
  /** Finds the public key for a token header among `jwks` (built once per key set). */
  publicKeyFor: ReturnType<typeof createLocalJWKSet>;
}

/** What a signer holds: the published keys and the private key that signs. */
export interface KeySet extends PublicKeySet {
  kid: string;
  /** The active key for node:crypto: what `signJwt` signs with. */
  signingKey: KeyObject;
}

/** Where the keys come from; `load` is called once per cold start and cached. */
export interface KeyProvider {
  load(): Promise<KeySet>;
}

/** Where a verifier's public keys come from (a KeyProvider serves too: a signer also verifies). */
export interface PublicKeyProvider {
  load(): Promise<PublicKeySet>;
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

const KID = /^[\x21-\x7E]{1,128}$/;
const COORDINATE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `d` is the private key of the point (`x`, `y`) on P-256: the public key is computed from `d`. */
function privateKeyMatches(key: JWK): boolean {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(String(key.d), 'base64url'));
    const point = ecdh.getPublicKey();
    return (
      point.subarray(1, 33).equals(Buffer.from(String(key.x), 'base64url')) &&
      point.subarray(33).equals(Buffer.from(String(key.y), 'base64url'))
    );
  } catch {
    // A d outside the curve's range.
    return false;
  }
}

/**
 * Checks a signing keys document before anything uses it (issue 19, item 3): every key a
 * private P-256 JWK for ES256 signatures whose `d` belongs to its `x`/`y` (node:crypto
 * would take another key's `d`, and the instance would sign tokens nobody can verify),
 * kids unique (jose refuses every token of a kid published twice), the active key among
 * them. Messages name the rule and the kid, never key material (they are logged).
 */
export function validateSigningKeysDocument(value: unknown): SigningKeysDocument {
  if (!isRecord(value) || typeof value.activeKid !== 'string' || !Array.isArray(value.keys)) {
    throw new SecretDocumentError('Signing keys: the document must be { activeKid, keys: [...] }');
  }
  const seen = new Set<string>();
  const keys = value.keys.map((key: unknown, index): JWK => {
    if (!isRecord(key) || typeof key.kid !== 'string' || !KID.test(key.kid))
      throw new SecretDocumentError(`Signing key #${index + 1} has no kid`);
    const jwk = key as JWK & { kid: string };
    const kid = jwk.kid;
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new SecretDocumentError(`Signing key ${kid} is not a P-256 EC key`);
    if (jwk.alg !== 'ES256') throw new SecretDocumentError(`Signing key ${kid} is not an ES256 key (alg)`);
    if (jwk.use !== 'sig') throw new SecretDocumentError(`Signing key ${kid} is not a signature key (use)`);
    if (![jwk.x, jwk.y, jwk.d].every((part) => typeof part === 'string' && COORDINATE.test(part))) {
      throw new SecretDocumentError(`Signing key ${kid} is not a private key with 32-byte x, y and d`);
    }
    if (!privateKeyMatches(jwk)) throw new SecretDocumentError(`Signing key ${kid}: d does not belong to x and y`);
    if (seen.has(kid)) throw new SecretDocumentError(`Signing key id ${kid} appears twice`);
    seen.add(kid);
    return jwk;
  });
  if (keys.length > 0 && !seen.has(value.activeKid)) {
    throw new SecretDocumentError(`Signing keys: the active key ${KID.test(value.activeKid) ? value.activeKid : ''} is not among the keys`);
  }
  return { activeKid: value.activeKid, keys };
}

/** Parses and validates the text of a signing keys document (Secrets Manager or file). */
export function parseSigningKeys(text: string): SigningKeysDocument {
  return validateSigningKeysDocument(parseSecretJson(text, 'The signing keys document'));
}

/** The public keys document of a signing keys document: what `npm run keys` publishes beside it. */
export function publicKeysOf(document: SigningKeysDocument): PublicKeysDocument {
  return { keys: document.keys.map(publicPart) };
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/**
 * Checks a public keys document: every key a public P-256 JWK for ES256 signatures with
 * 32-byte `x` and `y` on the curve, no private member (a private document pasted in the
 * wrong place must not reach the verifiers), kids unique. Messages as
 * validateSigningKeysDocument's: the rule and the kid, never key material.
 */
export function validatePublicKeysDocument(value: unknown): PublicKeysDocument {
  if (!isRecord(value) || !Array.isArray(value.keys)) throw new SecretDocumentError('Public keys: the document must be { keys: [...] }');
  const seen = new Set<string>();
  const keys = value.keys.map((key: unknown, index): JWK => {
    if (!isRecord(key) || typeof key.kid !== 'string' || !KID.test(key.kid))
      throw new SecretDocumentError(`Public key #${index + 1} has no kid`);
    const { kid } = key;
    if (PRIVATE_MEMBERS.some((member) => member in key)) throw new SecretDocumentError(`Public key ${kid} holds private key material`);
    if (key.kty !== 'EC' || key.crv !== 'P-256' || key.alg !== 'ES256' || key.use !== 'sig')
      throw new SecretDocumentError(`Public key ${kid} is not a P-256 ES256 signature key`);
    if (![key.x, key.y].every((part) => typeof part === 'string' && COORDINATE.test(part)))
      throw new SecretDocumentError(`Public key ${kid} has no 32-byte x and y`);
    try {
      createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: key.x as string, y: key.y as string }, format: 'jwk' });
    } catch {
      throw new SecretDocumentError(`Public key ${kid} is not a point of P-256`);
    }
    if (seen.has(kid)) throw new SecretDocumentError(`Public key id ${kid} appears twice`);
    seen.add(kid);
    return publicPart(key as JWK);
  });
  return { keys };
}

/** Parses and validates the text of a public keys document (Secrets Manager or file). */
export function parsePublicKeys(text: string): PublicKeysDocument {
  return validatePublicKeysDocument(parseSecretJson(text, 'The public keys document'));
}

export function publicKeySetFromDocument(document: PublicKeysDocument): PublicKeySet {
  const jwks = { keys: validatePublicKeysDocument(document).keys };
  return { jwks, publicKeyFor: createLocalJWKSet(jwks) };
}

export async function keySetFromDocument(document: SigningKeysDocument): Promise<KeySet> {
  const { activeKid, keys } = validateSigningKeysDocument(document);
  const active = keys.find((key) => key.kid === activeKid);
  if (!active) throw new SecretDocumentError('Signing keys: the document holds no keys');
  const signingKey = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x: active.x, y: active.y, d: active.d }, format: 'jwk' });
  const jwks = { keys: keys.map(publicPart) };
  return { kid: activeKid, signingKey, jwks, publicKeyFor: createLocalJWKSet(jwks) };
}

/**
 * A key provider over a document read by `readText`, kept fresh and bounded in age as
 * lib/secrets/refreshed says. A document that fails validation, or holds no keys (then
 * refused with `missing`), is logged (`signing_keys_rejected`) and the last good key set kept.
 */
export function refreshedKeyProvider(readText: () => Promise<string | undefined>, missing: string, clock: Clock, log: Logger): KeyProvider {
  const load = refreshedSecret(
    async () => {
      const text = await readText();
      const document = text === undefined ? undefined : parseSigningKeys(text);
      if (!document?.keys.length) throw new SecretDocumentError(missing);
      return keySetFromDocument(document);
    },
    { event: 'signing_keys', clock, log },
  );
  return { load };
}

/**
 * A verifier's key provider over a public keys document read by `readText`, kept fresh as
 * refreshedKeyProvider's, and logged under the same events (`signing_keys_rejected`,
 * `signing_keys_expired`), so the signing-keys alarm watches verifiers too.
 */
export function refreshedPublicKeyProvider(
  readText: () => Promise<string | undefined>,
  missing: string,
  clock: Clock,
  log: Logger,
): PublicKeyProvider {
  const load = refreshedSecret(
    async () => {
      const text = await readText();
      const document = text === undefined ? undefined : parsePublicKeys(text);
      if (!document?.keys.length) throw new SecretDocumentError(missing);
      return publicKeySetFromDocument(document);
    },
    { event: 'signing_keys', clock, log },
  );
  return { load };
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

/** Local development: keys in a JSON file under .data/ (created by `npm start`), re-read like the secret. */
export function fileKeyProvider(path: string, clock: Clock = systemClock, log: Logger = createLogger()): KeyProvider {
  const file = fileLocation(path);
  return refreshedKeyProvider(
    async () => (await file.read()).text,
    `Signing keys file ${path} is missing: run "npm start", which creates it on first run`,
    clock,
    log,
  );
}

/** Local development: the public keys in a JSON file beside the keys file (publicKeysPath), re-read like the secret. */
export function filePublicKeyProvider(path: string, clock: Clock = systemClock, log: Logger = createLogger()): PublicKeyProvider {
  const file = fileLocation(path);
  return refreshedPublicKeyProvider(
    async () => (await file.read()).text,
    `Public keys file ${path} is missing: run "npm start", which creates it on first run`,
    clock,
    log,
  );
}

/**
 * Creates the local keys file with one fresh key unless it exists, and the public keys
 * file beside it (publicKeysPath) unless that exists: a keys file made before there was
 * one gets its public twin at the next `npm start`.
 */
export async function ensureKeysFile(path: string, kid: string): Promise<'created' | 'exists'> {
  let created: 'created' | 'exists' = 'exists';
  let document: SigningKeysDocument;
  try {
    document = parseSigningKeys(await readFile(path, 'utf8'));
  } catch (error) {
    // A file that cannot be used is left as it is (the functions say why); nothing is published from it.
    if (error instanceof SecretDocumentError) return 'exists';
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(path), { recursive: true });
    document = { activeKid: kid, keys: [await generateSigningKey(kid)] };
    await writeFile(path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    created = 'created';
  }
  await writeFile(publicKeysPath(path), `${JSON.stringify(publicKeysOf(document), null, 2)}\n`, { mode: 0o644, flag: 'wx' }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
  return created;
}

/** A key set made in memory (tests, benchmarks). */
export async function generateKeySet(kid = 'test-key'): Promise<KeySet> {
  return keySetFromDocument({ activeKid: kid, keys: [await generateSigningKey(kid)] });
}
