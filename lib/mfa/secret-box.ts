import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { KMSClient } from '@aws-sdk/client-kms';
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

/** Where data keys come from: AWS KMS in production, a file locally, memory in tests. */
export interface DataKeySource {
  /** The key new values are made with. */
  current(): Promise<DataKey>;
  /** The key a stored value names. */
  find(id: string): Promise<Buffer>;
}

const VERSION = 'v1';
const ID = /^[A-Za-z0-9_-]+$/;
/** Derived keys kept per instance (one pair per data key seen). */
const SUBKEYS_KEPT = 256;

function subkey(dataKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `identity-service mfa ${purpose} ${VERSION}`, 32));
}

/** A SecretBox over a data key source: `v1.<key id>.<iv>.<ciphertext>.<tag>`, `v1.<key id>.<hmac>`. */
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
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryption, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },

    async open(sealed, context) {
      const [version, id, iv, ciphertext, tag] = sealed.split('.');
      if (version !== VERSION || !id || !iv || !ciphertext || !tag) throw new Error('Not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', (await byId(id)).encryption, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
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

/** Tests: one random key, in memory only. */
export function memoryDataKeys(): DataKeySource {
  const key = randomBytes(32);
  const id = `mem${randomBytes(6).toString('base64url')}`;
  return {
    current: async () => ({ id, key }),
    async find(wanted) {
      if (wanted !== id) throw new Error('Unknown data key');
      return key;
    },
  };
}

/** The local key file: `{ current, keys: { <id>: <base64url key> } }`, mode 0600, under .data/. */
interface KeyFile {
  current: string;
  keys: Record<string, string>;
}

async function readKeyFile(path: string): Promise<KeyFile> {
  const file = JSON.parse(await readFile(path, 'utf8')) as KeyFile;
  if (typeof file.current !== 'string' || typeof file.keys?.[file.current] !== 'string') {
    throw new Error(`MFA key file ${path} names no current key`);
  }
  return file;
}

async function readOrCreateKeyFile(path: string): Promise<KeyFile> {
  try {
    return await readKeyFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  const id = `local${Date.now().toString(36)}`;
  const file: KeyFile = { current: id, keys: { [id]: randomBytes(32).toString('base64url') } };
  // Written aside and linked into place, so that no process ever reads a half-written file.
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, path);
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
  return readKeyFile(path);
}

/** Local development: a key file generated on first use (like the signing keys), never committed. */
export function fileDataKeys(path: string): DataKeySource {
  let file: Promise<KeyFile> | undefined;
  const load = () => {
    file ??= readOrCreateKeyFile(path).catch((error: unknown) => {
      file = undefined;
      throw error;
    });
    return file;
  };
  const decode = (value: string) => {
    const key = Buffer.from(value, 'base64url');
    if (key.length !== 32) throw new Error(`MFA key file ${path} holds a key that is not 256 bits`);
    return key;
  };
  return {
    async current() {
      const { current, keys } = await load();
      return { id: current, key: decode(keys[current] ?? '') };
    },
    async find(id) {
      const value = (await load()).keys[id];
      if (value === undefined) throw new Error(`MFA key file ${path} has no key ${id}`);
      return decode(value);
    },
  };
}

/** The SDK is imported on first use, so functions that never touch MFA keep their cold start. */
type KmsClient = Pick<KMSClient, 'send'>;

/** Bound into every data key: KMS refuses to decrypt it for any other purpose. */
const KMS_CONTEXT = { purpose: 'identity-service-mfa' };
/** Data keys of other instances this instance has decrypted and keeps. */
const KMS_KEYS_KEPT = 256;

/**
 * AWS KMS envelope encryption: each Lambda instance asks KMS for a data key once
 * (GenerateDataKey) and stores the KMS-encrypted key as the id of everything it
 * seals; a value made by another instance costs one Decrypt, then is kept.
 */
export function kmsDataKeys(client: KmsClient, keyId: string): DataKeySource {
  let current: Promise<DataKey> | undefined;
  const known = new Map<string, Buffer>();
  const generate = async (): Promise<DataKey> => {
    const { GenerateDataKeyCommand } = await import('@aws-sdk/client-kms');
    const { CiphertextBlob, Plaintext } = await client.send(
      new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: KMS_CONTEXT }),
    );
    if (!CiphertextBlob || !Plaintext) throw new Error('KMS returned no data key');
    const id = Buffer.from(CiphertextBlob).toString('base64url');
    const key = Buffer.from(Plaintext);
    known.set(id, key);
    return { id, key };
  };
  return {
    current() {
      current ??= generate().catch((error: unknown) => {
        current = undefined;
        throw error;
      });
      return current;
    },
    async find(id) {
      const cached = known.get(id);
      if (cached) return cached;
      const { DecryptCommand } = await import('@aws-sdk/client-kms');
      const { Plaintext } = await client.send(
        new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(id, 'base64url'), EncryptionContext: KMS_CONTEXT }),
      );
      if (!Plaintext) throw new Error('KMS returned no plaintext');
      if (known.size >= KMS_KEYS_KEPT) known.delete(known.keys().next().value as string);
      const key = Buffer.from(Plaintext);
      known.set(id, key);
      return key;
    },
  };
}
