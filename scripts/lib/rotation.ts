import { type LegacyEncoding, type Peppers, parsePeppers, pepperDocument } from '../../lib/oauth/client-secret';
import { activatePepper, addPepper, describePeppers, retirePepper } from '../../lib/oauth/pepper-rotation';
import { SecretDocumentError } from '../../lib/secrets/document';
import { ConcurrentChangeError, type SecretLocation } from '../../lib/secrets/location';
import { activateKey, addKey, describeKeys, retireKey } from '../../lib/tokens/key-rotation';
import {
  parsePublicKeys,
  parseSigningKeys,
  publicKeysOf,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type SigningKeysDocument,
} from '../../lib/tokens/signing-keys';

/** A kind of secret document the rotation tool changes, one step per command (docs/guides/operators.md). */
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

/** The signing keys; `add` makes a key of `alg` (`--alg RS256`, docs/api.md 11.4; ES256 by default). */
export function signingKeysDocumentOf(alg: SigningAlgorithm = 'ES256'): RotatedDocument<SigningKeysDocument> {
  return {
    what: 'signing keys',
    defaultFile: '.data/signing-keys.json',
    parse: (text) => {
      const document = parseSigningKeys(text);
      return document.keys.length ? document : undefined;
    },
    serialize: (document) => `${JSON.stringify(document, null, 2)}\n`,
    add: (document, id) => addKey(document, id, alg),
    activate: activateKey,
    retire: retireKey,
    describe: describeKeys,
    newId: () => timestampId(alg === 'RS256' ? 'rsa' : 'key'),
  };
}

export const signingKeysDocument = signingKeysDocumentOf('ES256');

/** The algorithm of `--alg`, ES256 when absent; anything else is refused. */
export function signingAlgorithm(value: string | undefined): SigningAlgorithm {
  if (value === undefined) return 'ES256';
  const alg = SIGNING_ALGORITHMS.find((candidate) => candidate === value);
  if (!alg) throw new Error(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  return alg;
}

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

/**
 * The signing keys document with its public twin: every write of the
 * keys first writes the public keys document derived from them, the only one the
 * verify-only functions can read, so a key is published before anything can sign with it
 * and the twin never lags behind a step. When the keys changed since they were read,
 * nothing is written. A write of the twin that is then followed by a refused write of
 * the keys leaves a published key nobody signs with: harmless, and the next command (or
 * `publish`) writes the twin again from the keys.
 */
export function withPublicKeys(keys: SecretLocation, publicKeys: SecretLocation): SecretLocation {
  return {
    name: keys.name,
    read: () => keys.read(),
    async write(text, expected) {
      if ((await keys.read()).version !== expected) {
        throw new ConcurrentChangeError(`The ${keys.name} changed since it was read: nothing was changed, run the command again`);
      }
      const published = `${JSON.stringify(publicKeysOf(parseSigningKeys(text)), null, 2)}\n`;
      parsePublicKeys(published);
      await publicKeys.write(published, (await publicKeys.read()).version);
      await keys.write(text, expected);
    },
  };
}

export const USAGE =
  'Usage: rotate-signing-key show|add [ID] [--alg ES256|RS256]|activate ID|retire ID|publish [--pepper] [--secret-id ID [--public-secret-id ID] | --file PATH [--public-file PATH]]';

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
    case 'publish':
      // Writes the document as it is: through withPublicKeys, its public twin again.
      if (!document) throw new Error(`No ${kind.what} yet: run "add" first`);
      next = document;
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
