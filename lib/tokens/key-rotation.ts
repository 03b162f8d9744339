import { generateSigningKey, type SigningKeysDocument } from './signing-keys';

/**
 * The three steps of a signing-key rotation, as pure changes of the keys document
 * (README, "Key rotation"). Between the steps, wait for every cache to see the change:
 * verifiers must know a key before anything is signed with it, and a key may go only
 * when no token it signed is still valid.
 */

/** Step 1: publish a new key. The first key of an empty document also becomes active. */
export async function addKey(document: SigningKeysDocument | undefined, kid: string): Promise<SigningKeysDocument> {
  const keys = document?.keys ?? [];
  if (keys.some((key) => key.kid === kid)) throw new Error(`A key ${kid} exists already`);
  const key = await generateSigningKey(kid);
  return { activeKid: keys.length === 0 ? kid : (document?.activeKid ?? kid), keys: [...keys, key] };
}

/** Step 2: sign with a published key. */
export function activateKey(document: SigningKeysDocument, kid: string): SigningKeysDocument {
  if (!document.keys.some((key) => key.kid === kid)) throw new Error(`No key ${kid} to activate`);
  return { ...document, activeKid: kid };
}

/** Step 3: stop publishing a key that no longer signs. */
export function retireKey(document: SigningKeysDocument, kid: string): SigningKeysDocument {
  if (document.activeKid === kid) throw new Error(`Key ${kid} is the active key: activate another one first`);
  if (!document.keys.some((key) => key.kid === kid)) throw new Error(`No key ${kid} to retire`);
  return { ...document, keys: document.keys.filter((key) => key.kid !== kid) };
}

/** What an operator may see of the document: key ids and which one signs, no key material. */
export function describeKeys(document: SigningKeysDocument): string {
  return document.keys.map((key) => `${key.kid}${key.kid === document.activeKid ? ' (active)' : ' (published)'}`).join('\n');
}
