import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type Config, ConfigError } from '../config';
import { constantEquals } from '../crypto/constant-equals';

/** Where the pepper of client-secret hashes comes from (lib/config.ts). */
export type PepperSource = Config['oauthClientSecretPepper'];

/**
 * Client secrets are at least 32 characters chosen by machines, so a fast keyed hash
 * is enough (unlike passwords, which get Argon2id): HMAC-SHA-256 with a server-side
 * pepper, so that a copy of the table alone does not allow checking guesses. It keeps
 * the token endpoint fast (client_credentials on every service call).
 *
 * A port of `Deps`: the pepper is loaded at the first use (in AWS from its secret).
 */
export interface ClientSecretHasher {
  hash(secret: string): Promise<string>;
  /**
   * Whether `secret` matches `stored`, in constant time. With no stored hash (an
   * unknown client) the same work is done against a hash nothing matches.
   */
  verify(stored: string | undefined, secret: string): Promise<boolean>;
}

const ALGORITHM = 'hmac-sha256$';

/** The hashes of one pepper, computed synchronously (the pepper is loaded). */
export function pepperedHasher(pepper: Buffer) {
  const digest = (secret: string) => ALGORITHM + createHmac('sha256', pepper).update(secret, 'utf8').digest('base64url');
  const nothingMatches = ALGORITHM + randomBytes(32).toString('base64url');
  return {
    hash: digest,
    verify: (stored: string | undefined, secret: string) => constantEquals(stored ?? nothingMatches, digest(secret)),
  };
}

/** A hasher over a pepper loaded at the first use, once (a failed load is tried again at the next). */
export function clientSecretHasher(loadPepper: () => Promise<Buffer>): ClientSecretHasher {
  let loaded: Promise<ReturnType<typeof pepperedHasher>> | undefined;
  const hasher = () => {
    loaded ??= loadPepper()
      .then(pepperedHasher)
      .catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
    return loaded;
  };
  return {
    hash: async (secret) => (await hasher()).hash(secret),
    verify: async (stored, secret) => (await hasher()).verify(stored, secret),
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
    await writeFile(path, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
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

/** AWS Secrets Manager; lib/deps makes the client on first use, tests pass a fake. */
export type SecretsClient = Pick<SecretsManagerClient, 'send'>;

async function readPepperSecret(client: SecretsClient, secretId: string): Promise<Buffer> {
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  const pepper = (SecretString ?? '').trim();
  if (pepper.length < 32) throw new Error(`The client-secret pepper in secret ${secretId} is shorter than 32 characters`);
  return Buffer.from(pepper, 'utf8');
}

/**
 * The hasher of a configured pepper: from the environment, from its secret in AWS, or
 * locally from a file under .data/ that is generated on first use (like the signing
 * keys). Without one, every use fails (the functions that hash client secrets refuse
 * to start before: requireClientSecretPepper).
 */
export function clientSecretHasherFor(source: PepperSource, secrets: SecretsClient): ClientSecretHasher {
  switch (source.source) {
    case 'env':
      return clientSecretHasher(async () => Buffer.from(source.value, 'utf8'));
    case 'secretsmanager':
      return clientSecretHasher(() => readPepperSecret(secrets, source.secretId));
    case 'file':
      return clientSecretHasher(() => readOrCreatePepper(source.path));
    case 'missing':
      return clientSecretHasher(async () => {
        throw new ConfigError('Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID');
      });
  }
}
