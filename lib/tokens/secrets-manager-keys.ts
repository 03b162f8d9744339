import type { Clock } from '../clock';
import type { Logger } from '../log';
import { type SecretsClient, secretsManagerLocation } from '../secrets/location';
import { SECRET_REFRESH } from '../secrets/refreshed';
import { type KeyProvider, type PublicKeyProvider, refreshedKeyProvider, refreshedPublicKeyProvider } from './signing-keys';

/** How long a Lambda instance uses the keys it read before reading them again. */
export const KEYS_REFRESH_SECONDS = SECRET_REFRESH.refreshSeconds;
/** After a failed refresh, how long the keys already read are used before trying again. */
export const KEYS_RETRY_SECONDS = SECRET_REFRESH.retrySeconds;
/**
 * How long an instance trusts keys it could not read again: after that it answers 503
 * (the authorizer: unavailable) rather than accept a key that may have been retired.
 */
export const KEYS_MAX_AGE_SECONDS = SECRET_REFRESH.maxAgeSeconds;

/**
 * Signing keys from AWS Secrets Manager: read at the first use, then again every
 * KEYS_REFRESH_SECONDS in the background so that a rotation reaches running instances
 * (lib/secrets/refreshed.ts). A document that fails validation never replaces the keys
 * in use; keys that cannot be refreshed are trusted for KEYS_MAX_AGE_SECONDS.
 */
export function secretsManagerKeyProvider(client: SecretsClient, secretId: string, clock: Clock, log: Logger): KeyProvider {
  const secret = secretsManagerLocation(client, secretId);
  return refreshedKeyProvider(
    async () => (await secret.read()).text,
    `Secret ${secretId} holds no signing keys: run scripts/rotate-signing-key add`,
    clock,
    log,
  );
}

/**
 * The public keys from AWS Secrets Manager (the public keys document `npm run keys`
 * writes beside the signing keys), for the functions that only verify; refreshed as the
 * signing keys are.
 */
export function secretsManagerPublicKeyProvider(client: SecretsClient, secretId: string, clock: Clock, log: Logger): PublicKeyProvider {
  const secret = secretsManagerLocation(client, secretId);
  return refreshedPublicKeyProvider(
    async () => (await secret.read()).text,
    `Secret ${secretId} holds no public keys: run scripts/rotate-signing-key publish`,
    clock,
    log,
  );
}
