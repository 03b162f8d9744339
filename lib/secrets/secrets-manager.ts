import { awsJsonCall, SECRETS_MANAGER } from '../aws';
import type { AwsCredentials } from '../sigv4';
import type { SecretValue } from './location';

/**
 * GetSecretValue without the SDK: one POST of AWS's JSON protocol (`awsJsonCall`). Every
 * function that signs or verifies tokens reads its keys so at its first request, where
 * loading the SDK's client cost about 70 ms of CPU (docs/decisions/036-lean-secret-reads.md).
 * The writes (key and pepper rotation, run by operators) keep the SDK's client.
 */
export function secretsManagerReader(settings: {
  region: string;
  credentials: () => Promise<AwsCredentials>;
  endpoint?: string;
}): (secretId: string) => Promise<SecretValue> {
  const call = awsJsonCall(SECRETS_MANAGER, settings);
  return async (secretId) => {
    const body = await call('GetSecretValue', { SecretId: secretId });
    return {
      SecretString: typeof body.SecretString === 'string' ? body.SecretString : undefined,
      VersionId: typeof body.VersionId === 'string' ? body.VersionId : undefined,
    };
  };
}
