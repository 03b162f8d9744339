import { randomBytes } from 'node:crypto';
import type { Peppers } from './client-secret';

/**
 * The three steps of a client-secret pepper rotation, as pure changes of the pepper
 * document (docs/guides/operators.md, "Client-secret pepper rotation"): add a pepper (every instance learns
 * to verify with it), make it current (new hashes, and each client's hash at its next
 * authentication, use it), retire the old one once no client's hash still needs it.
 */

const PEPPER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Step 1: a new random 256-bit pepper. The first pepper of an empty document is also current. */
export function addPepper(peppers: Peppers | undefined, id: string): Peppers {
  if (!PEPPER_ID.test(id)) throw new Error('Pepper ids are 1 to 64 letters, digits, _ or -');
  if (peppers?.keys.has(id)) throw new Error(`A pepper ${id} exists already`);
  const keys = new Map(peppers?.keys ?? []);
  keys.set(id, randomBytes(32));
  return { current: peppers?.current ?? id, keys };
}

/** Step 2: hash with a pepper every instance already verifies with. */
export function activatePepper(peppers: Peppers, id: string): Peppers {
  if (!peppers.keys.has(id)) throw new Error(`No pepper ${id} to activate`);
  return { ...peppers, current: id };
}

/** Step 3: forget a pepper that no longer hashes; hashes made only with it stop verifying. */
export function retirePepper(peppers: Peppers, id: string): Peppers {
  if (peppers.current === id) throw new Error(`Pepper ${id} is the current pepper: activate another one first`);
  if (!peppers.keys.has(id)) throw new Error(`No pepper ${id} to retire`);
  const keys = new Map(peppers.keys);
  keys.delete(id);
  return { ...peppers, keys };
}

/** What an operator may see: pepper ids and which one is current, never a pepper. */
export function describePeppers(peppers: Peppers): string {
  return [...peppers.keys.keys()].map((id) => `${id}${id === peppers.current ? ' (current)' : ' (verifies only)'}`).join('\n');
}
