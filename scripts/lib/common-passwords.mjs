// The common-password list the functions check (lib/users/common-passwords.ts), derived
// from zxcvbn-ts's (`@zxcvbn-ts/language-common`, MIT, ~49,000 entries drawn from leaked-
// password corpora): lowercased, at least 6 characters (shorter ones are refused anyway),
// unique, sorted, one a line between two newlines. The package decompresses its list at
// load (about 25 ms of a cold start, docs/performance.md); this text is read as it is.
//   node scripts/lib/common-passwords.mjs   rewrites lib/users/common-passwords.txt
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The list's text, as lib/users/common-passwords.txt holds it. */
export function commonPasswordText() {
  const passwords = createRequire(import.meta.url)('@zxcvbn-ts/language-common/dist/passwords.json.cjs');
  const entries = [...new Set(passwords.map((entry) => entry.toLowerCase()).filter((entry) => entry.length >= 6))].sort();
  return `\n${entries.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync('lib/users/common-passwords.txt', commonPasswordText());
