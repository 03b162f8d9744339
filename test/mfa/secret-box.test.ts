import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileDataKeys } from '../../lib/mfa/file-data-keys';
import { kmsDataKeys } from '../../lib/mfa/kms-data-keys';
import { secretBox } from '../../lib/mfa/secret-box';
import { memoryDataKeys } from '../helpers/memory-data-keys';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('secretBox', () => {
  it('opens what it sealed, with a fresh IV each time, and the plaintext nowhere in the sealed text', async () => {
    const box = secretBox(memoryDataKeys());
    const [a, b] = [await box.seal(SECRET, 'user-1'), await box.seal(SECRET, 'user-1')];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
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
  /** A fake KMS at the edge: data keys are "encrypted" by a lookup table it keeps. */
  function fakeKms() {
    const issued = new Map<string, Buffer>();
    const commands: Array<GenerateDataKeyCommand | DecryptCommand> = [];
    const client = {
      send: async (command: GenerateDataKeyCommand | DecryptCommand) => {
        commands.push(command);
        if (command instanceof GenerateDataKeyCommand) {
          const plaintext = randomBytes(32);
          const blob = randomBytes(150);
          issued.set(blob.toString('hex'), plaintext);
          return { CiphertextBlob: new Uint8Array(blob), Plaintext: new Uint8Array(plaintext), KeyId: command.input.KeyId };
        }
        const plaintext = issued.get(Buffer.from(command.input.CiphertextBlob!).toString('hex'));
        if (!plaintext) throw Object.assign(new Error('invalid ciphertext'), { name: 'InvalidCiphertextException' });
        return { Plaintext: new Uint8Array(plaintext) };
      },
    };
    return { client: client as unknown as Parameters<typeof kmsDataKeys>[0], commands };
  }

  it('asks KMS for one data key per instance, and another instance decrypts it once, with the encryption context', async () => {
    const kms = fakeKms();
    const keyId = 'arn:aws:kms:eu-west-1:123456789012:key/test';
    const first = secretBox(kmsDataKeys(kms.client, keyId));
    const sealed = [await first.seal(SECRET, 'a'), await first.seal(SECRET, 'b')];
    const digest = await first.digest('123456', 'a');
    expect(kms.commands).toHaveLength(1);
    expect(kms.commands[0]).toBeInstanceOf(GenerateDataKeyCommand);
    expect(kms.commands[0]!.input).toEqual({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { purpose: 'identity-service-mfa' } });
    expect(await first.open(sealed[0]!, 'a')).toBe(SECRET);
    expect(kms.commands).toHaveLength(1);

    const second = secretBox(kmsDataKeys(kms.client, keyId));
    expect(await second.open(sealed[0]!, 'a')).toBe(SECRET);
    expect(await second.open(sealed[1]!, 'b')).toBe(SECRET);
    expect(await second.matches(digest, '123456', 'a')).toBe(true);
    expect(kms.commands).toHaveLength(2);
    expect(kms.commands[1]).toBeInstanceOf(DecryptCommand);
    expect(kms.commands[1]!.input).toMatchObject({ KeyId: keyId, EncryptionContext: { purpose: 'identity-service-mfa' } });
  });

  it('tries KMS again after a failure', async () => {
    const kms = fakeKms();
    let fail = true;
    const flaky = {
      send: async (command: GenerateDataKeyCommand) => {
        if (fail) {
          fail = false;
          throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
        }
        return kms.client.send(command);
      },
    } as unknown as Parameters<typeof kmsDataKeys>[0];
    const box = secretBox(kmsDataKeys(flaky, 'key'));
    await expect(box.seal(SECRET, 'a')).rejects.toThrow('throttled');
    expect(await box.open(await box.seal(SECRET, 'a'), 'a')).toBe(SECRET);
  });
});
