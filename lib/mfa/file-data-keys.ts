import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecretFileOnce } from '../secrets/create-once';
import { isRecord, parseSecretJson, SecretDocumentError } from '../secrets/document';
import type { DataKeySource } from './secret-box';

/** The local key file: `{ current, keys: { <id>: <base64url key> } }`, mode 0600, under .data/. */
interface KeyFile {
  current: string;
  keys: Record<string, string>;
}

async function readKeyFile(path: string): Promise<KeyFile> {
  const file = parseSecretJson(await readFile(path, 'utf8'), `MFA key file ${path}`);
  if (!isRecord(file) || typeof file.current !== 'string' || !isRecord(file.keys) || typeof file.keys[file.current] !== 'string') {
    throw new SecretDocumentError(`MFA key file ${path} names no current key`);
  }
  return { current: file.current, keys: file.keys as Record<string, string> };
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
  await createSecretFileOnce(path, `${JSON.stringify(file, null, 2)}\n`);
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
    if (key.length !== 32) throw new SecretDocumentError(`MFA key file ${path} holds a key that is not 256 bits`);
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
