import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Clock, systemClock } from '../clock';
import { type Config, ConfigError } from '../config';
import { constantEquals } from '../crypto/constant-equals';
import { createLogger, type Logger } from '../log';
import { createSecretFileOnce } from '../secrets/create-once';
import { isRecord, parseSecretJson, SecretDocumentError } from '../secrets/document';
import { type SecretsClient, secretsManagerLocation } from '../secrets/location';
import { refreshedSecret, SECRET_REFRESH } from '../secrets/refreshed';

/** Where the pepper of client-secret hashes comes from (lib/config.ts). */
export type PepperSource = Config['oauthClientSecretPepper'];

/**
 * The peppers of client-secret hashes: every live one by id, and the one new hashes use.
 * Stored as the pepper document `{ "current": "<id>", "peppers": { "<id>": "<base64url>" } }`,
 * the same in the environment, in Secrets Manager and in the local file.
 */
export interface Peppers {
  current: string;
  keys: ReadonlyMap<string, Buffer>;
}

/**
 * The id of a pepper given as a plain value (the format before pepper ids), and of the
 * pepper that made hashes without an id. The rotation tool keeps the name when it turns
 * such a value into a document.
 */
export const LEGACY_PEPPER = 'legacy';
const PEPPER_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MIN_PEPPER_BYTES = 32;

/**
 * How a plain (pre-document) value was turned into the key: the environment and Secrets
 * Manager used its UTF-8 bytes, the local file decoded it as base64url. Documents have
 * one encoding everywhere (base64url).
 */
export type LegacyEncoding = 'utf8' | 'base64url';

/**
 * Parses a pepper document, or a plain value of the old format as the pepper `legacy`.
 * `where` names the place for messages; nothing of the value is quoted.
 */
export function parsePeppers(text: string, legacy: LegacyEncoding, where: string): Peppers {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    if (legacy === 'utf8' && trimmed.length < MIN_PEPPER_BYTES)
      throw new SecretDocumentError(`The client-secret pepper in ${where} is shorter than 32 characters`);
    const key = Buffer.from(trimmed, legacy);
    if (key.length < MIN_PEPPER_BYTES) throw new SecretDocumentError(`The client-secret pepper in ${where} is shorter than 256 bits`);
    return { current: LEGACY_PEPPER, keys: new Map([[LEGACY_PEPPER, key]]) };
  }
  const document = parseSecretJson(trimmed, `The client-secret pepper document in ${where}`);
  if (!isRecord(document) || typeof document.current !== 'string' || !isRecord(document.peppers)) {
    throw new SecretDocumentError('Client-secret peppers: the document must be { current, peppers: { <id>: <base64url> } }');
  }
  const keys = new Map<string, Buffer>();
  for (const [id, value] of Object.entries(document.peppers)) {
    if (!PEPPER_ID.test(id)) throw new SecretDocumentError('Client-secret peppers: ids are 1 to 64 letters, digits, _ or -');
    const key = typeof value === 'string' && /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url') : Buffer.alloc(0);
    if (key.length < MIN_PEPPER_BYTES) throw new SecretDocumentError(`Client-secret pepper ${id} is shorter than 256 bits`);
    keys.set(id, key);
  }
  if (!keys.has(document.current)) throw new SecretDocumentError('Client-secret peppers: the current pepper is not among them');
  return { current: document.current, keys };
}

/** The pepper document of `peppers` (base64url values), as the rotation tool writes it. */
export function pepperDocument(peppers: Peppers): string {
  const encoded = Object.fromEntries([...peppers.keys].map(([id, key]) => [id, key.toString('base64url')]));
  return `${JSON.stringify({ current: peppers.current, peppers: encoded }, null, 2)}\n`;
}

/** What checking a presented secret found; `rehashed` is its hash under the current pepper when the stored one is under another. */
export type SecretCheck = { matches: false } | { matches: true; rehashed?: string };

/**
 * Client secrets are at least 32 characters chosen by machines, so a fast keyed hash
 * is enough (unlike passwords, which get Argon2id): HMAC-SHA-256 with a server-side
 * pepper, so that a copy of the table alone does not allow checking guesses. It keeps
 * the token endpoint fast (client_credentials on every service call).
 *
 * Hashes are `hmac-sha256$<pepper id>$<mac>`; those of the first format,
 * `hmac-sha256$<mac>`, were made with the pepper now named `legacy` (or, in a document
 * without one, the current pepper). A port of `Deps`: the peppers are loaded at the
 * first use and, from Secrets Manager or the file, read again every 5 minutes.
 */
export interface ClientSecretHasher {
  /** The stored form of a new secret, under the current pepper. */
  hash(secret: string): Promise<string>;
  /**
   * Whether `secret` matches `stored`, in constant time. With no stored hash (an unknown
   * client), or one under a pepper no longer live, the same work is done against a hash
   * nothing matches.
   */
  check(stored: string | undefined, secret: string): Promise<SecretCheck>;
}

const ALGORITHM = 'hmac-sha256';

const mac = (pepper: Buffer, secret: string) => createHmac('sha256', pepper).update(secret, 'utf8').digest('base64url');

/** A hasher over peppers loaded by `load` (a failed load is tried again at the next use). */
export function clientSecretHasher(load: () => Promise<Peppers>): ClientSecretHasher {
  const nothingMatches = randomBytes(32).toString('base64url');
  const hashWith = (peppers: Peppers, secret: string) =>
    `${ALGORITHM}$${peppers.current}$${mac(peppers.keys.get(peppers.current) ?? Buffer.alloc(0), secret)}`;
  return {
    hash: async (secret) => hashWith(await load(), secret),
    async check(stored, secret) {
      const peppers = await load();
      const parts = stored?.split('$') ?? [];
      const [algorithm, pepperId, expected] =
        parts.length === 2 ? [parts[0], peppers.keys.has(LEGACY_PEPPER) ? LEGACY_PEPPER : peppers.current, parts[1]] : parts;
      const pepper = algorithm === ALGORITHM && pepperId !== undefined ? peppers.keys.get(pepperId) : undefined;
      const matches = constantEquals(
        pepper && expected !== undefined ? expected : nothingMatches,
        mac(pepper ?? peppers.keys.get(peppers.current) ?? Buffer.alloc(0), secret),
      );
      if (!matches) return { matches: false };
      return pepperId === peppers.current && parts.length === 3
        ? { matches: true }
        : { matches: true, rehashed: hashWith(peppers, secret) };
    },
  };
}

/** Writes a new local pepper file (a document with one 256-bit pepper) unless one exists; never half-written. */
async function createPepperFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const id = `local-${Date.now().toString(36)}`;
  await createSecretFileOnce(path, pepperDocument({ current: id, keys: new Map([[id, randomBytes(32)]]) }));
}

async function readOrCreatePepperFile(path: string): Promise<Peppers> {
  try {
    return parsePeppers(await readFile(path, 'utf8'), 'base64url', path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await createPepperFile(path);
  return parsePeppers(await readFile(path, 'utf8'), 'base64url', path);
}

/**
 * Fails the cold start of a function that hashes client secrets when the pepper is
 * not configured (in AWS Lambda the variable is required; locally a file is used).
 */
export function requireClientSecretPepper(config: Pick<Config, 'oauthClientSecretPepper'>): void {
  if (config.oauthClientSecretPepper.source === 'missing') {
    throw new ConfigError(
      'Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID (or OAUTH_CLIENT_SECRET_PEPPER): the pepper file is for local development only',
    );
  }
}

/** How long an instance uses the peppers it read before reading them again (lib/secrets/refreshed). */
export const PEPPER_REFRESH_SECONDS = SECRET_REFRESH.refreshSeconds;

/**
 * The peppers as configured: from the environment, from their secret in AWS, or locally
 * from a file under .data/ that is generated on first use (like the signing keys). The
 * secret and the file are read again every PEPPER_REFRESH_SECONDS, so that a pepper added
 * or retired reaches warm instances (docs/guides/operators.md, "Client-secret pepper rotation"). Without a
 * pepper every use fails (the functions that need one refuse to start before:
 * requireClientSecretPepper). Besides client secrets, the peppers key the device tokens
 * of the login lockout (lib/abuse/device-token.ts, through a subkey of their own).
 */
export function pepperLoader(
  source: PepperSource,
  secrets: SecretsClient,
  { clock = systemClock, log = createLogger() }: { clock?: Clock; log?: Logger } = {},
): () => Promise<Peppers> {
  const refreshed = (read: () => Promise<Peppers>) => refreshedSecret(read, { event: 'client_secret_pepper', clock, log });
  switch (source.source) {
    case 'env': {
      let peppers: Peppers | undefined;
      return async () => (peppers ??= parsePeppers(source.value, 'utf8', 'OAUTH_CLIENT_SECRET_PEPPER'));
    }
    case 'secretsmanager': {
      const secret = secretsManagerLocation(secrets, source.secretId);
      return refreshed(async () => parsePeppers((await secret.read()).text ?? '', 'utf8', `secret ${source.secretId}`));
    }
    case 'file': {
      const { path } = source;
      return refreshed(() => readOrCreatePepperFile(path));
    }
    case 'missing':
      return async () => {
        throw new ConfigError('Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID');
      };
  }
}

/** The hasher of a configured pepper (pepperLoader). */
export function clientSecretHasherFor(
  source: PepperSource,
  secrets: SecretsClient,
  options: { clock?: Clock; log?: Logger } = {},
): ClientSecretHasher {
  return clientSecretHasher(pepperLoader(source, secrets, options));
}
