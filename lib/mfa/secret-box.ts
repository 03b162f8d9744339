import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { constantEquals } from '../crypto/constant-equals';

/**
 * Encryption at rest of MFA secrets (docs/api.md 2): AES-256-GCM under a data key, and
 * keyed digests of one-time codes. A 6-digit code has only 10^6 values, so a plain
 * hash (lib/crypto/token-hash, made for 256-bit tokens) would give it away to anyone
 * who reads the table; an HMAC under the data key does not.
 *
 * Every stored value names the data key it was made with, so keys can change (a new
 * KMS data key per Lambda instance, a new local key) without re-encrypting anything.
 */
export interface SecretBox {
  /** Encrypts `plaintext`, bound to `context` (e.g. the user it belongs to). */
  seal(plaintext: string, context: string): Promise<string>;
  /** Decrypts a sealed value; fails if it was altered or sealed for another context. */
  open(sealed: string, context: string): Promise<string>;
  /** A keyed digest of a low-entropy value (one-time codes), bound to `context`. */
  digest(value: string, context: string): Promise<string>;
  /** Whether `value` is the value of a stored digest, compared in constant time. */
  matches(stored: string, value: string, context: string): Promise<boolean>;
}

/** A 256-bit data key and the id stored with everything made with it. */
export interface DataKey {
  id: string;
  key: Buffer;
}

/**
 * Where data keys come from: AWS KMS in production (kms-data-keys.ts), a file locally
 * (file-data-keys.ts), memory in tests (test/helpers/memory-data-keys.ts).
 */
export interface DataKeySource {
  /** The key new values are made with. */
  current(): Promise<DataKey>;
  /** The key a stored value names. */
  find(id: string): Promise<Buffer>;
}

/** Of the derived keys and of code digests: unchanged since the first release. */
const VERSION = 'v1';
/**
 * Of sealed values. v2 authenticates the format version and the key id along with the
 * context; v1 (the first release) authenticated only the context and is still opened.
 */
const SEALED = 'v2';
const OPENED = new Set(['v1', SEALED]);
/** AES-GCM's standard nonce and full tag (NIST SP 800-38D): Node would accept 1-byte IVs and 4-byte tags. */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ID = /^[A-Za-z0-9_-]+$/;
/** Derived keys kept per instance (one pair per data key seen). */
const SUBKEYS_KEPT = 256;

function subkey(dataKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `identity-service mfa ${purpose} ${VERSION}`, 32));
}

/** The key id is base64url and the context comes last, so the parts cannot be shifted into each other. */
function additionalData(version: string, id: string, context: string): Buffer {
  return Buffer.from(version === 'v1' ? context : `identity-service mfa ${version}\u0000${id}\u0000${context}`, 'utf8');
}

/** A SecretBox over a data key source: `v2.<key id>.<iv>.<ciphertext>.<tag>`, `v1.<key id>.<hmac>`. */
export function secretBox(source: DataKeySource): SecretBox {
  const subkeys = new Map<string, { encryption: Buffer; digest: Buffer }>();
  const derive = (id: string, key: Buffer) => {
    let derived = subkeys.get(id);
    if (!derived) {
      derived = { encryption: subkey(key, 'secret encryption'), digest: subkey(key, 'code digest') };
      if (subkeys.size >= SUBKEYS_KEPT) subkeys.delete(subkeys.keys().next().value as string);
      subkeys.set(id, derived);
    }
    return derived;
  };
  const current = async () => {
    const { id, key } = await source.current();
    if (!ID.test(id)) throw new Error('Data key ids must be base64url');
    return { id, ...derive(id, key) };
  };
  const byId = async (id: string) => subkeys.get(id) ?? derive(id, await source.find(id));
  const mac = (key: Buffer, value: string, context: string) =>
    createHmac('sha256', key).update(`${context}\u0000${value}`, 'utf8').digest('base64url');

  return {
    async seal(plaintext, context) {
      const { id, encryption } = await current();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encryption, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData(SEALED, id, context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [SEALED, id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },

    async open(sealed, context) {
      const [version, id, encodedIv, ciphertext, encodedTag] = sealed.split('.');
      const iv = Buffer.from(encodedIv ?? '', 'base64url');
      const tag = Buffer.from(encodedTag ?? '', 'base64url');
      if (!version || !OPENED.has(version) || !id || !ciphertext || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new Error('Not a sealed value');
      }
      const decipher = createDecipheriv('aes-256-gcm', (await byId(id)).encryption, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(additionalData(version, id, context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },

    async digest(value, context) {
      const { id, digest } = await current();
      return [VERSION, id, mac(digest, value, context)].join('.');
    },

    async matches(stored, value, context) {
      const [version, id, expected] = stored.split('.');
      if (version !== VERSION || !id || !expected) return false;
      return constantEquals(mac((await byId(id)).digest, value, context), expected);
    },
  };
}
