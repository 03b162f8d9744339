import { AWS_RETRIES, AWS_TIMEOUTS } from '../aws';
import type { AwsCredentials } from '../sigv4';
import { type AwsJsonService, createDynamoClient, type DocumentClient } from '../store/dynamo-client';
import type { SecretValue } from './location';

/** Secrets Manager on AWS's JSON protocol (1.1). */
export const SECRETS_MANAGER: AwsJsonService = {
  signingName: 'secretsmanager',
  label: 'Secrets Manager',
  targetPrefix: 'secretsmanager',
  contentType: 'application/x-amz-json-1.1',
};

/**
 * GetSecretValue without the SDK: one POST, signed with lib/sigv4.ts and sent by the
 * stores' client of AWS's JSON protocol (its retries, timeouts and errors named as the
 * SDK names them: `ResourceNotFoundException`). Every function that signs or verifies
 * tokens reads its keys so at its first request, where loading the SDK's client cost about
 * 70 ms of CPU (docs/decisions/036-lean-secret-reads.md). The writes (key and pepper
 * rotation, run by operators) keep the SDK's client.
 */
export function secretsManagerReader(settings: {
  region: string;
  credentials: () => Promise<AwsCredentials>;
  /** A fake's URL in tests; unset in AWS (`https://secretsmanager.<region>.amazonaws.com`). */
  endpoint?: string;
}): (secretId: string) => Promise<SecretValue> {
  // Made on the first read: a function whose keys are a file (locally) never loads node:https for it.
  let client: DocumentClient | undefined;
  return (secretId) => {
    client ??= createDynamoClient({ ...AWS_RETRIES, ...AWS_TIMEOUTS, ...settings, service: SECRETS_MANAGER });
    return client.send({
      operation: 'GetSecretValue',
      input: { SecretId: secretId },
      request: () => ({ SecretId: secretId }),
      answer: (body: Record<string, unknown>): SecretValue => ({
        SecretString: typeof body.SecretString === 'string' ? body.SecretString : undefined,
        VersionId: typeof body.VersionId === 'string' ? body.VersionId : undefined,
      }),
    });
  };
}
