import type { AwsCredentials } from './sigv4';
import { type AwsJsonService, createDynamoClient } from './store/dynamo-client';
/**
 * How every AWS client of the service (DynamoDB, Secrets Manager, KMS, SNS, SES) waits:
 * fail fast when a service is unreachable or hangs, instead of running into the Lambda
 * timeout (10 s), where API Gateway would answer for us. Three attempts of at most 1 s
 * to connect and 2 s to answer (about 6 s, with the backoff between them a little more)
 * end before it in the usual case of a hung or refused connection.
 */
export const AWS_RETRIES = { maxAttempts: 3 } as const;
export const AWS_TIMEOUTS = { connectionTimeoutMs: 1000, requestTimeoutMs: 2000 } as const;

/**
 * The SDK client settings for the rarely used clients (lib/deps.ts loads each on first
 * use, and its HTTP handler with it). Since @smithy/node-http-handler 4.x a
 * requestTimeout only logs a warning unless throwOnRequestTimeout is set
 * (test/security/outage.test.ts, hung database).
 */
export async function awsClientSettings(region: string) {
  const { NodeHttpHandler } = await import('@smithy/node-http-handler');
  return {
    region,
    ...AWS_RETRIES,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: AWS_TIMEOUTS.connectionTimeoutMs,
      requestTimeout: AWS_TIMEOUTS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  };
}

/**
 * One operation of a service of AWS's JSON protocol (Secrets Manager, KMS), signed and
 * sent without the SDK by the stores' client (its retries, timeouts and errors named as the
 * SDK names them; docs/decisions/036-lean-secret-reads.md). The client loads node:https at
 * its first request (docs/decisions/037-built-ins-on-first-use.md): a function that never
 * calls the service never loads it for it.
 */
export function awsJsonCall(
  service: AwsJsonService,
  settings: {
    region: string;
    credentials: () => Promise<AwsCredentials>;
    /** A fake's URL in tests; unset in AWS (`https://<signingName>.<region>.amazonaws.com`). */
    endpoint?: string;
  },
): (operation: string, input: Record<string, unknown>) => Promise<Record<string, unknown>> {
  const client = createDynamoClient({ ...AWS_RETRIES, ...AWS_TIMEOUTS, ...settings, service });
  return (operation, input) => client.send({ operation, input, request: () => input, answer: (body: Record<string, unknown>) => body });
}

/** Secrets Manager: GetSecretValue at a function's first request (lib/secrets/secrets-manager.ts). */
export const SECRETS_MANAGER: AwsJsonService = {
  signingName: 'secretsmanager',
  label: 'Secrets Manager',
  targetPrefix: 'secretsmanager',
  contentType: 'application/x-amz-json-1.1',
};

/** KMS: the MFA data keys (lib/mfa/kms-data-keys.ts). */
export const KMS: AwsJsonService = {
  signingName: 'kms',
  label: 'KMS',
  targetPrefix: 'TrentService',
  contentType: 'application/x-amz-json-1.1',
};
