import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileDataKeys } from '../../lib/mfa/file-data-keys';
import { type KmsCall, kmsDataKeys } from '../../lib/mfa/kms-data-keys';
import { type DataKeySource, secretBox } from '../../lib/mfa/secret-box';
import { memoryDataKeys } from '../helpers/memory-data-keys';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('secretBox', () => {
  it('opens what it sealed, with a fresh IV each time, and the plaintext nowhere in the sealed text', async () => {
    const box = secretBox(memoryDataKeys());
    const [a, b] = [await box.seal(SECRET, 'user-1'), await box.seal(SECRET, 'user-1')];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain(SECRET);
    expect(await box.open(a, 'user-1')).toBe(SECRET);
    expect(await box.open(b, 'user-1')).toBe(SECRET);
  });

  it('refuses a value sealed for another context (another user) or altered in any byte', async () => {
    const box = secretBox(memoryDataKeys());
    const sealed = await box.seal(SECRET, 'user-1');
    await expect(box.open(sealed, 'user-2')).rejects.toThrow();
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    ciphertext[0]! ^= 1;
    await expect(box.open([...parts.slice(0, 3), ciphertext.toString('base64url'), parts[4]].join('.'), 'user-1')).rejects.toThrow();
    await expect(box.open('v1.nokey.x.y.z', 'user-1')).rejects.toThrow();
    await expect(box.open('garbage', 'user-1')).rejects.toThrow();
  });

  it('cannot open what another key sealed', async () => {
    const sealed = await secretBox(memoryDataKeys()).seal(SECRET, 'user-1');
    await expect(secretBox(memoryDataKeys()).open(sealed, 'user-1')).rejects.toThrow();
  });

  it('digests codes with a key: the same code matches, another code, context or key does not', async () => {
    const box = secretBox(memoryDataKeys());
    const digest = await box.digest('123456', 'user-1 SMS');
    expect(digest).not.toContain('123456');
    expect(await box.matches(digest, '123456', 'user-1 SMS')).toBe(true);
    expect(await box.matches(digest, '123457', 'user-1 SMS')).toBe(false);
    expect(await box.matches(digest, '123456', 'user-1 EMAIL')).toBe(false);
    expect(await box.matches('v1', '123456', 'user-1 SMS')).toBe(false);
    await expect(secretBox(memoryDataKeys()).matches(digest, '123456', 'user-1 SMS')).rejects.toThrow();
  });
});

describe('secretBox: the AES-GCM format', () => {
  /** One known key under several ids, so a test can make values as an older release did. */
  function knownKeys(...ids: string[]): DataKeySource & { key: Buffer } {
    const key = randomBytes(32);
    return {
      key,
      current: async () => ({ id: ids[0]!, key }),
      async find(id) {
        if (!ids.includes(id)) throw new Error('Unknown data key');
        return key;
      },
    };
  }
  /** A value in the v1 format (before the format version and key id were authenticated), with any IV and tag length. */
  function sealV1(key: Buffer, id: string, plaintext: string, context: string, ivLength = 12, tagLength = 16): string {
    const encryption = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'identity-service mfa secret encryption v1', 32));
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', encryption, iv, { authTagLength: tagLength });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }
  const relabel = (sealed: string, index: number, value: string) =>
    sealed
      .split('.')
      .map((part, i) => (i === index ? value : part))
      .join('.');

  it('still opens values sealed in the v1 format (12-byte IV, 16-byte tag), for their context only', async () => {
    const keys = knownKeys('k1');
    const sealed = sealV1(keys.key, 'k1', SECRET, 'user-1');
    expect(await secretBox(keys).open(sealed, 'user-1')).toBe(SECRET);
    await expect(secretBox(keys).open(sealed, 'user-2')).rejects.toThrow();
  });

  it.each([
    [
      'a tag cut to 4 bytes',
      (sealed: string) => relabel(sealed, 4, Buffer.from(sealed.split('.')[4]!, 'base64url').subarray(0, 4).toString('base64url')),
    ],
    [
      'a tag cut to 12 bytes',
      (sealed: string) => relabel(sealed, 4, Buffer.from(sealed.split('.')[4]!, 'base64url').subarray(0, 12).toString('base64url')),
    ],
  ])('refuses %s, in either format', async (_, cut) => {
    const keys = knownKeys('k1');
    const box = secretBox(keys);
    await expect(box.open(cut(await box.seal(SECRET, 'user-1')), 'user-1')).rejects.toThrow();
    await expect(box.open(cut(sealV1(keys.key, 'k1', SECRET, 'user-1')), 'user-1')).rejects.toThrow();
  });

  it.each([1, 8, 16])('refuses a value made with a %i-byte IV', async (ivLength) => {
    const keys = knownKeys('k1');
    await expect(secretBox(keys).open(sealV1(keys.key, 'k1', SECRET, 'user-1', ivLength), 'user-1')).rejects.toThrow();
  });

  it('authenticates the key id: a value relabelled with another id of the same key does not open', async () => {
    const keys = knownKeys('k1', 'k2');
    const box = secretBox(keys);
    const sealed = await box.seal(SECRET, 'user-1');
    expect(await box.open(sealed, 'user-1')).toBe(SECRET);
    await expect(box.open(relabel(sealed, 1, 'k2'), 'user-1')).rejects.toThrow();
  });

  it('authenticates the format version: a value relabelled v1 does not open', async () => {
    const box = secretBox(knownKeys('k1'));
    const sealed = await box.seal(SECRET, 'user-1');
    expect(sealed.startsWith('v2.')).toBe(true);
    await expect(box.open(relabel(sealed, 0, 'v1'), 'user-1')).rejects.toThrow();
    await expect(box.open(relabel(sealed, 0, 'v3'), 'user-1')).rejects.toThrow('Not a sealed value');
  });
});

describe('fileDataKeys', () => {
  it('creates a 256-bit key file (mode 0600) on first use and reads the same key afterwards', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mfa-key-')), 'nested', 'mfa-key.json');
    const sealed = await secretBox(fileDataKeys(path)).seal(SECRET, 'ctx');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(path, 'utf8')) as { current: string; keys: Record<string, string> };
    expect(Buffer.from(file.keys[file.current]!, 'base64url')).toHaveLength(32);
    // Another process (a new instance) reads the same file.
    expect(await secretBox(fileDataKeys(path)).open(sealed, 'ctx')).toBe(SECRET);
  });

  it('ends with one key when several processes create the file at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfa-key-'));
    const path = join(dir, 'mfa-key.json');
    const boxes = Array.from({ length: 8 }, () => secretBox(fileDataKeys(path)));
    const sealed = await Promise.all(boxes.map((box) => box.seal(SECRET, 'ctx')));
    for (const box of boxes) for (const value of sealed) expect(await box.open(value, 'ctx')).toBe(SECRET);
    expect(readdirSync(dir)).toEqual(['mfa-key.json']);
  });
});

describe('kmsDataKeys', () => {
  /** A fake KMS at the edge, speaking its JSON protocol (binary members in base64): data keys are "encrypted" by a lookup table it keeps. */
  function fakeKms() {
    const keys = new Map<string, Buffer>();
    const issued: string[] = [];
    const commands: Array<{ operation: string; input: Record<string, unknown> }> = [];
    const client: KmsCall = async (operation, input) => {
      commands.push({ operation, input });
      if (operation === 'GenerateDataKey') {
        const plaintext = randomBytes(32);
        const blob = randomBytes(150);
        keys.set(blob.toString('base64'), plaintext);
        issued.push(blob.toString('base64'));
        return { CiphertextBlob: blob.toString('base64'), Plaintext: plaintext.toString('base64'), KeyId: input.KeyId };
      }
      const plaintext = keys.get(String(input.CiphertextBlob));
      if (!plaintext) throw Object.assign(new Error('invalid ciphertext'), { name: 'InvalidCiphertextException' });
      return { Plaintext: plaintext.toString('base64'), KeyId: input.KeyId };
    };
    return { client, commands, issued };
  }

  it('asks KMS for one data key per instance, and another instance decrypts it once, with the encryption context', async () => {
    const kms = fakeKms();
    const keyId = 'arn:aws:kms:eu-west-1:123456789012:key/test';
    const first = secretBox(kmsDataKeys(kms.client, keyId));
    const sealed = [await first.seal(SECRET, 'a'), await first.seal(SECRET, 'b')];
    const digest = await first.digest('123456', 'a');
    expect(kms.commands).toHaveLength(1);
    expect(kms.commands[0]).toEqual({
      operation: 'GenerateDataKey',
      input: { KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { purpose: 'identity-service-mfa' } },
    });
    expect(await first.open(sealed[0]!, 'a')).toBe(SECRET);
    expect(kms.commands).toHaveLength(1);

    const second = secretBox(kmsDataKeys(kms.client, keyId));
    expect(await second.open(sealed[0]!, 'a')).toBe(SECRET);
    expect(await second.open(sealed[1]!, 'b')).toBe(SECRET);
    expect(await second.matches(digest, '123456', 'a')).toBe(true);
    expect(kms.commands).toHaveLength(2);
    expect(kms.commands[1]).toEqual({
      operation: 'Decrypt',
      input: { KeyId: keyId, CiphertextBlob: kms.issued[0], EncryptionContext: { purpose: 'identity-service-mfa' } },
    });
  });

  it('tries KMS again after a failure', async () => {
    const kms = fakeKms();
    let fail = true;
    const flaky: KmsCall = async (operation, input) => {
      if (fail) {
        fail = false;
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      }
      return kms.client(operation, input);
    };
    const box = secretBox(kmsDataKeys(flaky, 'key'));
    await expect(box.seal(SECRET, 'a')).rejects.toThrow('throttled');
    expect(await box.open(await box.seal(SECRET, 'a'), 'a')).toBe(SECRET);
  });
});
