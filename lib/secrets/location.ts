import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** What GetSecretValue answers of the secret's current version. */
export interface SecretValue {
  SecretString: string | undefined;
  VersionId: string | undefined;
}

/**
 * AWS Secrets Manager: reads through GetSecretValue without the SDK (lib/secrets/secrets-manager.ts),
 * writes through the SDK's client (`send`), which lib/deps loads on the first write only.
 * Tests pass a fake.
 */
export interface SecretsClient {
  getSecretValue(secretId: string): Promise<SecretValue>;
  send: SecretsManagerClient['send'];
}

/** A client of the SDK's alone (the operators' scripts): it reads through GetSecretValueCommand. */
export function sdkSecretsClient(client: Pick<SecretsManagerClient, 'send'>): SecretsClient {
  return {
    async getSecretValue(secretId) {
      const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
      const { SecretString, VersionId } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      return { SecretString, VersionId };
    },
    send: client.send.bind(client) as SecretsManagerClient['send'],
  };
}

/** A secret's text as read, and the version it was read at (undefined: there is none yet). */
export interface SecretText {
  text: string | undefined;
  version: string | undefined;
}

/** Where a secret document lives: a Secrets Manager secret, or a file (local development). */
export interface SecretLocation {
  /** For messages: `secret <id>` or `file <path>`. */
  name: string;
  read(): Promise<SecretText>;
  /**
   * Replaces the document if it is still at `expected` (the version read before);
   * otherwise throws ConcurrentChangeError and leaves it as it is, so that two
   * operators changing it at once cannot lose each other's change.
   */
  write(text: string, expected: string | undefined): Promise<void>;
}

export class ConcurrentChangeError extends Error {
  override name = 'ConcurrentChangeError';
}

/** The label a new version carries until it is made current (it then keeps it, harmlessly). */
const STAGED = 'identity-service-staged';

/**
 * A Secrets Manager secret. A write is compare-and-swap: the new version is stored
 * with a label of its own (PutSecretValue with a fresh ClientRequestToken), then
 * AWSCURRENT is moved to it from the version that was read (UpdateSecretVersionStage
 * with RemoveFromVersionId), which Secrets Manager refuses if AWSCURRENT has moved
 * since: then nothing changed that readers see.
 */
export function secretsManagerLocation(client: SecretsClient, secretId: string): SecretLocation {
  const name = `secret ${secretId}`;
  return {
    name,
    async read() {
      const { SecretString, VersionId } = await client.getSecretValue(secretId);
      return { text: SecretString, version: VersionId };
    },
    async write(text, expected) {
      const { PutSecretValueCommand, UpdateSecretVersionStageCommand } = await import('@aws-sdk/client-secrets-manager');
      const token = randomUUID();
      const { VersionId } = await client.send(
        new PutSecretValueCommand({ SecretId: secretId, SecretString: text, ClientRequestToken: token, VersionStages: [STAGED] }),
      );
      try {
        await client.send(
          new UpdateSecretVersionStageCommand({
            SecretId: secretId,
            VersionStage: 'AWSCURRENT',
            MoveToVersionId: VersionId ?? token,
            RemoveFromVersionId: expected,
          }),
        );
      } catch (error) {
        if (error instanceof Error && (error.name === 'InvalidParameterException' || error.name === 'InvalidRequestException')) {
          throw new ConcurrentChangeError(`The ${name} changed since it was read: nothing was changed, run the command again`);
        }
        throw error;
      }
    },
  };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * A local file (mode 0600). A write checks that the file is still what was read and
 * replaces it in one rename, so no reader ever sees half a document.
 */
export function fileLocation(path: string): SecretLocation {
  const name = `file ${path}`;
  return {
    name,
    async read() {
      const text = await readText(path);
      return { text, version: text === undefined ? undefined : digest(text) };
    },
    async write(text, expected) {
      const now = await readText(path);
      if ((now === undefined ? undefined : digest(now)) !== expected) {
        throw new ConcurrentChangeError(`The ${name} changed since it was read: nothing was changed, run the command again`);
      }
      await mkdir(dirname(path), { recursive: true });
      const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await writeFile(draft, text, { mode: 0o600, flag: 'wx' });
      try {
        await rename(draft, path);
      } catch (error) {
        await unlink(draft).catch(() => undefined);
        throw error;
      }
    },
  };
}
