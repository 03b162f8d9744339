import { generateSigningKey, type SigningAlgorithm, type SigningKeysDocument } from './signing-keys';

/**
 * The three steps of a signing-key rotation, as pure changes of the keys document
 * (docs/guides/operators.md, "Key rotation"). Between the steps, wait for every cache to see the change:
 * verifiers must know a key before anything is signed with it, and a key may go only
 * when no token it signed is still valid. ES256 and RS256 keys (docs/api.md 11.4) rotate
 * alike, each algorithm with its own active key.
 */

/**
 * Step 1: publish a new key (ES256 unless said otherwise). The first key of an empty
 * document also becomes active, and so does the first RS256 key. An RS256 key cannot be
 * the first: access tokens are signed ES256 only.
 */
export async function addKey(
  document: SigningKeysDocument | undefined,
  kid: string,
  alg: SigningAlgorithm = 'ES256',
): Promise<SigningKeysDocument> {
  const keys = document?.keys ?? [];
  if (keys.some((key) => key.kid === kid)) throw new Error(`A key ${kid} exists already`);
  if (alg === 'RS256' && keys.length === 0) throw new Error('Add an ES256 key first: it signs every access token');
  const key = await generateSigningKey(kid, alg);
  const activeKid = keys.length === 0 ? kid : (document?.activeKid ?? kid);
  const activeRs256Kid = document?.activeRs256Kid ?? (alg === 'RS256' ? kid : undefined);
  return { activeKid, ...(activeRs256Kid === undefined ? {} : { activeRs256Kid }), keys: [...keys, key] };
}

/** Step 2: sign with a published key (the active key of its algorithm). */
export function activateKey(document: SigningKeysDocument, kid: string): SigningKeysDocument {
  const key = document.keys.find((candidate) => candidate.kid === kid);
  if (!key) throw new Error(`No key ${kid} to activate`);
  return key.alg === 'RS256' ? { ...document, activeRs256Kid: kid } : { ...document, activeKid: kid };
}

/** Step 3: stop publishing a key that no longer signs. */
export function retireKey(document: SigningKeysDocument, kid: string): SigningKeysDocument {
  if (document.activeKid === kid || document.activeRs256Kid === kid)
    throw new Error(`Key ${kid} is the active key: activate another one first`);
  if (!document.keys.some((key) => key.kid === kid)) throw new Error(`No key ${kid} to retire`);
  return { ...document, keys: document.keys.filter((key) => key.kid !== kid) };
}

/** What an operator may see of the document: key ids, their algorithm and which ones sign, no key material. */
export function describeKeys(document: SigningKeysDocument): string {
  const active = new Set([document.activeKid, document.activeRs256Kid]);
  return document.keys
    .map((key) => `${key.kid}${key.alg === 'RS256' ? ' RS256' : ''}${active.has(key.kid) ? ' (active)' : ' (published)'}`)
    .join('\n');
}
