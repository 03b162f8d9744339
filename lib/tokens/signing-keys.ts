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
 * that signs. Rotation (docs/guides/operators.md, Key rotation): add a key, wait for
 * caches to see it, make it active, then remove the old one after the longest
 * token lifetime.
 */
export interface SigningKeysDocument {
  /** The ES256 key that signs every token (access tokens, and ID tokens by default). */
  activeKid: string;
  /**
   * The RS256 key that signs the ID tokens of clients registered with
   * `id_token_signed_response_alg: "RS256"` (docs/api.md 11.4); absent while there is none.
   */
  activeRs256Kid?: string | undefined;
  /** Private JWKs (ES256 on P-256, RS256 of 2048 bits or more) with `kid`. */
  keys: JWK[];
}

/** The algorithms the service signs with (docs/api.md 11.4): ES256 always, RS256 for the ID tokens of clients that ask. */
export const SIGNING_ALGORITHMS = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * The public keys document (docs/guides/operators.md, Key rotation): the public part of every key of the
 * signing keys document, a JSON Web Key Set (RFC 7517) written beside it by
 * `npm run keys`. The functions that only verify (the authorizer, jwks, revoke,
 * introspect) read this one and can read nothing else: a leak of theirs leaks no key.
 */
export interface PublicKeysDocument {
  /** Public JWKs (ES256 or RS256) with `kid`: no private member. */
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
  /** The active RS256 key, when the document has one (docs/api.md 11.4). */
  rs256?: { kid: string; signingKey: KeyObject } | undefined;
}

/** Where the keys come from; `load` is called once per cold start and cached. */
export interface KeyProvider {
  load(): Promise<KeySet>;
}

/** Where a verifier's public keys come from (a KeyProvider serves too: a signer also verifies). */
export interface PublicKeyProvider {
  load(): Promise<PublicKeySet>;
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;

function publicPart(jwk: JWK): JWK {
  const out: JWK = {};
  for (const member of PUBLIC_MEMBERS) if (jwk[member] !== undefined) out[member] = jwk[member];
  return out;
}

/** A new private signing JWK: ES256 on P-256, or RS256 of RSA_MODULUS_BITS. */
export async function generateSigningKey(kid: string, alg: SigningAlgorithm = 'ES256'): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: RSA_MODULUS_BITS } : {}) });
  return { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
}

/** The size of new RSA keys, and the least accepted (NIST SP 800-57: 2048 bits until 2030). */
export const RSA_MODULUS_BITS = 2048;
/** The longest RSA modulus OpenSSL signs with (OPENSSL_RSA_MAX_MODULUS_BITS). */
const RSA_MAX_MODULUS_BITS = 16384;
const RSA_MEMBERS = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;
/** An RSA key's members as numbers. */
type RsaMembers = Record<(typeof RSA_MEMBERS)[number], bigint>;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Whether a JWK is an RSA key for RS256 signatures; every other key is judged as an ES256 one. */
const isRsaKey = (key: Record<string, unknown>) => key.kty === 'RSA' && key.alg === 'RS256';

/** The number of bits of an RSA modulus given base64url (leading zero bytes do not count). */
function modulusBits(n: string): number {
  const bytes = Buffer.from(n, 'base64url');
  const first = bytes.findIndex((byte) => byte !== 0);
  return first < 0 ? 0 : (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first] ?? 0));
}

const bigint = (value: unknown) => BigInt(`0x${Buffer.from(String(value), 'base64url').toString('hex') || '0'}`);

/**
 * Checks a private RSA JWK for RS256: every member of RFC 7518 6.3.2 (node:crypto needs the
 * CRT ones), a modulus of RSA_MODULUS_BITS to RSA_MAX_MODULUS_BITS, an exponent verifiers
 * take, and private members that belong to the published `n`/`e` (rsaPrivateKeyMatches).
 */
function validateRsaSigningKey(key: JWK & { kid: string }): void {
  const { kid } = key;
  if (key.use !== 'sig') throw new SecretDocumentError(`Signing key ${kid} is not a signature key (use)`);
  if (!RSA_MEMBERS.every((member) => typeof key[member] === 'string' && BASE64URL.test(String(key[member])))) {
    throw new SecretDocumentError(`Signing key ${kid} is not a private RSA key with n, e, d, p, q, dp, dq and qi`);
  }
  const bits = modulusBits(String(key.n));
  if (bits < RSA_MODULUS_BITS) throw new SecretDocumentError(`Signing key ${kid} is shorter than ${RSA_MODULUS_BITS} bits`);
  // OpenSSL signs with no longer modulus, and its verifiers take no exponent of over 64 bits beside one over 3072.
  if (bits > RSA_MAX_MODULUS_BITS) throw new SecretDocumentError(`Signing key ${kid} is longer than ${RSA_MAX_MODULUS_BITS} bits`);
  const members = Object.fromEntries(RSA_MEMBERS.map((member) => [member, bigint(key[member])])) as RsaMembers;
  if (members.e >= members.n || (bits > 3072 && members.e >= 2n ** 64n))
    throw new SecretDocumentError(`Signing key ${kid} has a public exponent verifiers refuse`);
  try {
    createPrivateKey({ key: rsaJwk(key), format: 'jwk' });
  } catch {
    throw new SecretDocumentError(`Signing key ${kid} is not a valid RSA private key`);
  }
  if (!rsaPrivateKeyMatches(members)) throw new SecretDocumentError(`Signing key ${kid}: d does not belong to n and e`);
}

/**
 * Whether the private members belong to `n` and `e` (RFC 8017 3.2): node:crypto takes them
 * as given. The primes multiply to `n`; `d` inverts `e` modulo p − 1 and q − 1, so modulo
 * λ(n); `dp` and `dq` invert `e` modulo p − 1 and q − 1 (OpenSSL signs with them); `qi`
 * inverts q modulo p. With the primes of a generated key every signature then verifies
 * with `n` and `e` (a document made by hand with a composite `p` would pass, and sign what
 * nothing verifies: primality is not tested). A few BigInt products: no RSA signature made
 * at every cold start (docs/performance.md).
 */
function rsaPrivateKeyMatches({ n, e, d, p, q, dp, dq, qi }: RsaMembers): boolean {
  if (e < 3n || p < 2n || q < 2n || p * q !== n) return false;
  const inverts = (exponent: bigint, prime: bigint) => (exponent * e) % (prime - 1n) === 1n;
  return inverts(d, p) && inverts(d, q) && inverts(dp, p) && inverts(dq, q) && (qi * q) % p === 1n;
}

/** The members of an RSA JWK node:crypto takes. */
function rsaJwk(key: JWK) {
  const { n, e, d, p, q, dp, dq, qi } = key;
  return { kty: 'RSA', n, e, d, p, q, dp, dq, qi } as { kty: 'RSA'; n: string; e: string };
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
 * Checks a signing keys document before anything uses it (docs/guides/operators.md): every key a
 * private P-256 JWK for ES256 signatures whose `d` belongs to its `x`/`y` (node:crypto
 * would take another key's `d`, and the instance would sign tokens nobody can verify), or
 * (docs/api.md 11.4) a private RSA JWK for RS256 of 2048 bits or more whose private part
 * belongs to its `n`/`e`; kids unique (jose refuses every token of a kid published twice),
 * the active key an ES256 key among them, the active RS256 key, if any, an RS256 one.
 * Messages name the rule and the kid, never key material (they are logged).
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
    if (isRsaKey(jwk)) {
      validateRsaSigningKey(jwk);
      if (seen.has(kid)) throw new SecretDocumentError(`Signing key id ${kid} appears twice`);
      seen.add(kid);
      return jwk;
    }
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
  // Access tokens are ES256 only (their verifiers take nothing else): the active key must be one.
  if (keys.some((key) => key.kid === value.activeKid && key.alg !== 'ES256'))
    throw new SecretDocumentError(`Signing keys: the active key ${value.activeKid} is not an ES256 key`);
  const { activeRs256Kid } = value;
  if (activeRs256Kid === undefined) return { activeKid: value.activeKid, keys };
  if (typeof activeRs256Kid !== 'string' || !keys.some((key) => key.kid === activeRs256Kid && key.alg === 'RS256')) {
    const named = typeof activeRs256Kid === 'string' && KID.test(activeRs256Kid) ? `${activeRs256Kid} ` : '';
    throw new SecretDocumentError(`Signing keys: the active RS256 key ${named}is not an RS256 key among the keys`);
  }
  return { activeKid: value.activeKid, activeRs256Kid, keys };
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
 * 32-byte `x` and `y` on the curve, or a public RSA JWK for RS256 of 2048 bits or more,
 * no private member (a private document pasted in the
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
    if (isRsaKey(key)) {
      validateRsaPublicKey(key, kid);
      if (seen.has(kid)) throw new SecretDocumentError(`Public key id ${kid} appears twice`);
      seen.add(kid);
      return publicPart(key as JWK);
    }
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

/** A public RSA JWK for RS256: a signature key with `n` of RSA_MODULUS_BITS or more and `e`, that node:crypto takes. */
function validateRsaPublicKey(key: Record<string, unknown>, kid: string): void {
  const { n, e } = key;
  if (key.use !== 'sig' || typeof n !== 'string' || typeof e !== 'string' || !BASE64URL.test(n) || !BASE64URL.test(e))
    throw new SecretDocumentError(`Public key ${kid} is not an RS256 signature key with n and e`);
  if (modulusBits(n) < RSA_MODULUS_BITS) throw new SecretDocumentError(`Public key ${kid} is shorter than ${RSA_MODULUS_BITS} bits`);
  try {
    createPublicKey({ key: { kty: 'RSA', n, e }, format: 'jwk' });
  } catch {
    throw new SecretDocumentError(`Public key ${kid} is not a valid RSA public key`);
  }
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
  return keySetOf(validateSigningKeysDocument(document));
}

/** The key set of a document validateSigningKeysDocument answered (validated once: it computes every key's public part). */
function keySetOf({ activeKid, activeRs256Kid, keys }: SigningKeysDocument): KeySet {
  const active = keys.find((key) => key.kid === activeKid);
  if (!active) throw new SecretDocumentError('Signing keys: the document holds no keys');
  const signingKey = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', x: active.x, y: active.y, d: active.d }, format: 'jwk' });
  const rsa = keys.find((key) => key.kid === activeRs256Kid);
  const rs256 =
    rsa && activeRs256Kid ? { kid: activeRs256Kid, signingKey: createPrivateKey({ key: rsaJwk(rsa), format: 'jwk' }) } : undefined;
  const jwks = { keys: keys.map(publicPart) };
  return { kid: activeKid, signingKey, rs256, jwks, publicKeyFor: createLocalJWKSet(jwks) };
}

/**
 * A route's `prefetch` (lib/http/chain.ts) for the functions whose answer carries a token
 * they sign: an instance's first valid request starts reading the keys as its handler
 * starts (a Secrets Manager request in AWS, then the document's checks), so that the read
 * overlaps the handler's round trips and password hash (docs/performance.md, Cold
 * starts). Only the first: later reads are refreshedSecret's, in the background. A failure
 * is left to the load the request then waits for, which tries again and answers it.
 */
export function prefetchKeys(keys: KeyProvider): () => Promise<unknown> | undefined {
  let started = false;
  return () => {
    if (started) return undefined;
    started = true;
    return keys.load().catch(() => undefined);
  };
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
      return keySetOf(document);
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

/** Thrown when an RS256 signature is asked of a key set without an RS256 key (the operator adds one: docs/guides/operators.md, Key rotation). */
export class NoRs256KeyError extends Error {
  override name = 'NoRs256KeyError';
  constructor() {
    super('No active RS256 signing key: run "npm run keys -- add --alg RS256"');
  }
}

/**
 * A JWT (RFC 7519) in compact JWS form, signed with the active key of `alg` (ES256 unless
 * said otherwise); the header is `{ alg, kid, typ }`. node:crypto signs synchronously
 * with the ES256 signature in the JOSE form (`r || s`, RFC 7518 3.4: `ieee-p1363`), at
 * about half the CPU of WebCrypto's asynchronous sign, on the path of every token the
 * service issues; RS256 is RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 3.3), node's default
 * for an RSA key. Verified as before with jose against the JWKS.
 */
export function signJwt(
  keys: KeySet,
  typ: string,
  /** Flat claims, or an object of strings such as RFC 7800's `cnf`, or of empty objects such as a logout token's `events`. */
  claims: Record<string, string | number | boolean | string[] | Record<string, string> | Record<string, Record<string, never>>>,
  alg: SigningAlgorithm = 'ES256',
): string {
  const key = alg === 'ES256' ? { kid: keys.kid, signingKey: keys.signingKey } : keys.rs256;
  if (!key) throw new NoRs256KeyError();
  const input = `${base64url({ alg, kid: key.kid, typ })}.${base64url(claims)}`;
  const signature = sign('sha256', Buffer.from(input, 'utf8'), { key: key.signingKey, dsaEncoding: 'ieee-p1363' });
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
 * Creates the local keys file unless it exists, with a fresh ES256 key (`kid`) and a fresh
 * RS256 key (`<kid>-rs256`, docs/api.md 11.4), and the public keys file beside it
 * (publicKeysPath) unless that exists: a keys file made before there was one gets its
 * public twin at the next `npm start`.
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
    const rs256Kid = `${kid}-rs256`;
    document = {
      activeKid: kid,
      activeRs256Kid: rs256Kid,
      keys: [await generateSigningKey(kid), await generateSigningKey(rs256Kid, 'RS256')],
    };
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

/** A key set made in memory (tests, benchmarks), with an RS256 key too when `rs256Kid` is given. */
export async function generateKeySet(kid = 'test-key', rs256Kid?: string): Promise<KeySet> {
  const keys = [await generateSigningKey(kid), ...(rs256Kid ? [await generateSigningKey(rs256Kid, 'RS256')] : [])];
  return keySetFromDocument({ activeKid: kid, ...(rs256Kid ? { activeRs256Kid: rs256Kid } : {}), keys });
}
