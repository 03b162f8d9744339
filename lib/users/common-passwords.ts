import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * The common-password list of zxcvbn-ts (`@zxcvbn-ts/language-common`, MIT,
 * ~49,000 entries drawn from leaked-password corpora), kept in a Set on first use.
 * Entries shorter than the 6-character minimum are dropped: those passwords are
 * refused anyway.
 */
let commonPasswords: Set<string> | undefined;

function list(): Set<string> {
  commonPasswords ??= new Set((dictionary['passwords-common'] as string[]).filter((entry) => entry.length >= 6));
  return commonPasswords;
}

export function isCommonPassword(password: string): boolean {
  return list().has(password.toLowerCase());
}

export function commonPasswordCount(): number {
  return list().size;
}
