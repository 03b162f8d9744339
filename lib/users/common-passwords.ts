/**
 * The common-password list of zxcvbn-ts (`@zxcvbn-ts/language-common`, MIT,
 * ~49,000 entries drawn from leaked-password corpora), loaded on first use and kept
 * in a Set. Entries shorter than the 6-character minimum are dropped: those
 * passwords are refused anyway.
 */
let commonPasswords: Promise<Set<string>> | undefined;

function list(): Promise<Set<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set((dictionary['passwords-common'] as string[]).filter((entry) => entry.length >= 6)),
  );
  return commonPasswords;
}

/** Whether the password, ignoring case, is on the list. */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await list()).has(password.toLowerCase());
}

export async function commonPasswordCount(): Promise<number> {
  return (await list()).size;
}
