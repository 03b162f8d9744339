import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Clock } from '../clock';
import type { Logger } from '../log';
import { type KeyProvider, type KeySet, keySetFromDocument, type SigningKeysDocument } from './signing-keys';

/** How long a Lambda instance uses the keys it read before reading them again. */
export const KEYS_REFRESH_SECONDS = 300;

type SecretsClient = Pick<SecretsManagerClient, 'send'>;

// The SDK package is imported on first use (lib/deps makes the client the same way), so
// that functions that never read the secret, and local runs, do not load it at cold start.

export async function readKeysSecret(client: SecretsClient, secretId: string): Promise<SigningKeysDocument | undefined> {
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) return undefined;
  const document = JSON.parse(SecretString) as SigningKeysDocument;
  return document.keys?.length ? document : undefined;
}

export async function writeKeysSecret(client: SecretsClient, secretId: string, document: SigningKeysDocument): Promise<void> {
  const { PutSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(document) }));
}

/** After a failed refresh, how long the keys already read are used before trying again. */
export const KEYS_RETRY_SECONDS = 30;

/**
 * Signing keys from AWS Secrets Manager: read at cold start, then again every
 * KEYS_REFRESH_SECONDS so that a rotation reaches running instances. A refresh runs in
 * the background: requests go on with the keys already read, so neither the read's
 * latency nor an outage of Secrets Manager (a failed read is tried again after
 * KEYS_RETRY_SECONDS, the old keys kept) reaches them. The first read, and one after
 * an instance was idle for more than two refresh periods, are waited for.
 */
export function secretsManagerKeyProvider(client: SecretsClient, secretId: string, clock: Clock, log: Logger): KeyProvider {
  let current: { keys: KeySet; readAt: number } | undefined;
  let reading: Promise<KeySet> | undefined;

  const read = async () => {
    const document = await readKeysSecret(client, secretId);
    if (!document) throw new Error(`Secret ${secretId} holds no signing keys: run scripts/rotate-signing-key add`);
    const keys = await keySetFromDocument(document);
    current = { keys, readAt: clock.now() };
    return keys;
  };

  return {
    load() {
      if (current && clock.now() - current.readAt < KEYS_REFRESH_SECONDS * 1000) return Promise.resolve(current.keys);
      reading ??= read()
        .catch((error: unknown) => {
          if (!current) throw error;
          log.error('signing_keys_refresh_failed', { error });
          current = { keys: current.keys, readAt: clock.now() - (KEYS_REFRESH_SECONDS - KEYS_RETRY_SECONDS) * 1000 };
          return current.keys;
        })
        .finally(() => {
          reading = undefined;
        });
      // Keys read within two refresh periods are served while the read runs: the rotation
      // procedure waits that long (README) between publishing a key and signing with it,
      // so they know every key in use. Older ones (an instance idle that long) wait for it.
      return current && clock.now() - current.readAt < 2 * KEYS_REFRESH_SECONDS * 1000 ? Promise.resolve(current.keys) : reading;
    },
  };
}
