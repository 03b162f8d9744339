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
