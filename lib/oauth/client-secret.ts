import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { awsClientSettings } from '../aws';
import { type Config, ConfigError } from '../config';
import { constantEquals } from '../crypto/constant-equals';

/** Where the pepper of client-secret hashes comes from (lib/config.ts). */
export type PepperSource = Config['oauthClientSecretPepper'];

/**
 * Client secrets are at least 32 characters chosen by machines, so a fast keyed hash
 * is enough (unlike passwords, which get Argon2id): HMAC-SHA-256 with a server-side
 * pepper, so that a copy of the table alone does not allow checking guesses. It keeps
 * the token endpoint fast (client_credentials on every service call).
 */
export interface ClientSecretHasher {
  hash(secret: string): string;
  /**
   * Whether `secret` matches `stored`, in constant time. With no stored hash (an
   * unknown client) the same work is done against a hash nothing matches.
   */
  verify(stored: string | undefined, secret: string): boolean;
}

const ALGORITHM = 'hmac-sha256$';

export function clientSecretHasher(pepper: Buffer): ClientSecretHasher {
  const digest = (secret: string) => ALGORITHM + createHmac('sha256', pepper).update(secret, 'utf8').digest('base64url');
  const nothingMatches = ALGORITHM + randomBytes(32).toString('base64url');
  return {
    hash: digest,
    verify: (stored, secret) => constantEquals(stored ?? nothingMatches, digest(secret)),
  };
}

async function readPepperFile(path: string): Promise<Buffer> {
  const pepper = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
  if (pepper.length < 32) throw new Error(`The client-secret pepper in ${path} is shorter than 256 bits`);
  return pepper;
}

async function readOrCreatePepper(path: string): Promise<Buffer> {
  try {
    return await readPepperFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readPepperFile(path);
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

/** Reads a secret's string (AWS Secrets Manager, the SDK loaded on first use); tests pass their own. */
export type SecretReader = (secretId: string, region: string) => Promise<string>;

const readSecret: SecretReader = async (secretId, region) => {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient(awsClientSettings(region));
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return SecretString ?? '';
  } finally {
    client.destroy();
  }
};

async function readPepperSecret(secretId: string, region: string, read: SecretReader): Promise<Buffer> {
  const pepper = (await read(secretId, region)).trim();
  if (pepper.length < 32) throw new Error(`The client-secret pepper in secret ${secretId} is shorter than 32 characters`);
  return Buffer.from(pepper, 'utf8');
}

const hashers = new WeakMap<PepperSource, Promise<ClientSecretHasher>>();

/**
 * The hasher for a configured pepper, loaded once (a failed load is tried again): from
 * the environment, from its secret in AWS, or locally from a file under .data/ that is
 * generated on first use (like the signing keys).
 */
export function loadClientSecretHasher(source: PepperSource, read: SecretReader = readSecret): Promise<ClientSecretHasher> {
  let hasher = hashers.get(source);
  if (!hasher) {
    const pepper =
      source.source === 'env'
        ? Promise.resolve(Buffer.from(source.value, 'utf8'))
        : source.source === 'secretsmanager'
          ? readPepperSecret(source.secretId, source.region, read)
          : source.source === 'file'
            ? readOrCreatePepper(source.path)
            : Promise.reject(new ConfigError('Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID'));
    hasher = pepper.then(clientSecretHasher);
    hasher.catch(() => hashers.delete(source));
    hashers.set(source, hasher);
  }
  return hasher;
}
