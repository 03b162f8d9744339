import { randomBytes } from 'node:crypto';
import { link, unlink, writeFile } from 'node:fs/promises';

/**
 * Creates a secret file (mode 0600) with `contents` unless it exists, never half-written:
 * written aside and linked into place, so that no process ever reads a partial file. When
 * another process created it first, theirs stays (the caller reads the file either way).
 */
export async function createSecretFileOnce(path: string, contents: string): Promise<void> {
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, contents, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
}
