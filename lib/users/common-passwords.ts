import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The common-password list (lib/users/common-passwords.txt, derived from zxcvbn-ts's by
 * scripts/lib/common-passwords.mjs): ~42,000 lowercase entries of at least 6 characters,
 * one a line between two newlines. Read on first use and searched as it is: building a
 * Set of it, or decompressing the package's own list, cost register about 25 ms of its
 * cold start (docs/performance.md); one search is a fraction of a millisecond. The
 * bundles find the file beside them (scripts/build.mjs copies it into dist/functions).
 */
let commonPasswords: string | undefined;

function list(): string {
  commonPasswords ??= readFileSync(join(__dirname, 'common-passwords.txt'), 'utf8');
  return commonPasswords;
}

/** Whether the password, ignoring case, is on the list. */
export async function isCommonPassword(password: string): Promise<boolean> {
  // A line break would join two entries into one match; no entry has one.
  if (password.includes('\n')) return false;
  return list().includes(`\n${password.toLowerCase()}\n`);
}

export async function commonPasswordCount(): Promise<number> {
  return list().split('\n').length - 2;
}
