import { type LegacyEncoding, type Peppers, parsePeppers, pepperDocument } from '../../lib/oauth/client-secret';
import { activatePepper, addPepper, describePeppers, retirePepper } from '../../lib/oauth/pepper-rotation';
import { SecretDocumentError } from '../../lib/secrets/document';
import type { SecretLocation } from '../../lib/secrets/location';
import { activateKey, addKey, describeKeys, retireKey } from '../../lib/tokens/key-rotation';
import { parseSigningKeys, type SigningKeysDocument } from '../../lib/tokens/signing-keys';

/** A kind of secret document the rotation tool changes, one step per command (README). */
export interface RotatedDocument<D> {
  /** What it holds, for messages. */
  what: string;
  /** The local file, without --file or --secret-id. */
  defaultFile: string;
  /** Parses and validates; SecretDocumentError when it cannot be used. Undefined: nothing in it yet. */
  parse(text: string): D | undefined;
  serialize(document: D): string;
  add(document: D | undefined, id: string): Promise<D>;
  activate(document: D, id: string): D;
  retire(document: D, id: string): D;
  /** Ids and which one is current: never key material. */
  describe(document: D): string;
  newId(): string;
}

const timestampId = (prefix: string) => `${prefix}-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}`;

export const signingKeysDocument: RotatedDocument<SigningKeysDocument> = {
  what: 'signing keys',
  defaultFile: '.data/signing-keys.json',
  parse: (text) => {
    const document = parseSigningKeys(text);
    return document.keys.length ? document : undefined;
  },
  serialize: (document) => `${JSON.stringify(document, null, 2)}\n`,
  add: addKey,
  activate: activateKey,
  retire: retireKey,
  describe: describeKeys,
  newId: () => timestampId('key'),
};

/**
 * The client-secret peppers. A plain value of the old format is read as the pepper
 * `legacy`, with the encoding its place used (`utf8` in Secrets Manager, `base64url` in
 * the local file), and written back as a document with the same key bytes.
 */
export function peppersDocument(legacy: LegacyEncoding, defaultFile = '.data/oauth-client-secret-pepper'): RotatedDocument<Peppers> {
  return {
    what: 'client-secret peppers',
    defaultFile,
    parse: (text) => (text.trim() ? parsePeppers(text, legacy, 'the pepper document') : undefined),
    serialize: pepperDocument,
    add: async (peppers, id) => addPepper(peppers, id),
    activate: activatePepper,
    retire: retirePepper,
    describe: describePeppers,
    newId: () => timestampId('pepper'),
  };
}

export const USAGE = 'Usage: rotate-signing-key show|add [ID]|activate ID|retire ID [--pepper] [--secret-id ID | --file PATH]';

/**
 * Runs one rotation command on the document at `location`: reads it (refusing to go on
 * when it is there but cannot be used, so a corrupt file is never overwritten with a
 * fresh one), applies the step and writes it back only if nobody changed it meanwhile.
 * Prints ids only.
 */
export async function rotate<D>(
  kind: RotatedDocument<D>,
  location: SecretLocation,
  command: string | undefined,
  id: string | undefined,
  print: (line: string) => void,
): Promise<void> {
  const { text, version } = await location.read();
  let document: D | undefined;
  try {
    document = text === undefined ? undefined : kind.parse(text);
  } catch (error) {
    if (!(error instanceof SecretDocumentError)) throw error;
    throw new Error(`The ${location.name} cannot be used (${error.message}): nothing was changed. Fix it, or move it away to start again.`);
  }
  let next: D;
  switch (command) {
    case 'show':
      print(document ? kind.describe(document) : `No ${kind.what} yet.`);
      return;
    case 'add':
      next = await kind.add(document, id ?? kind.newId());
      break;
    case 'activate':
    case 'retire':
      if (!document) throw new Error(`No ${kind.what} yet: run "add" first`);
      if (!id) throw new Error(`Usage: ${command} ID`);
      next = command === 'activate' ? kind.activate(document, id) : kind.retire(document, id);
      break;
    default:
      throw new Error(USAGE);
  }
  const serialized = kind.serialize(next);
  kind.parse(serialized);
  await location.write(serialized, version);
  print(kind.describe(next));
}
