import { NodeHttpHandler } from '@smithy/node-http-handler';

/**
 * Settings every AWS SDK client of the service uses (DynamoDB, Secrets Manager, KMS,
 * SNS, SES): fail fast when a service is unreachable or hangs, instead of running into
 * the Lambda timeout (10 s), where API Gateway would answer for us. Three attempts of at
 * most 1 s to connect and 2 s to answer (about 6 s, with the SDK's backoff between
 * them a little more) end before it in the usual case of a hung or refused connection. Since
 * @smithy/node-http-handler 4.x a requestTimeout only logs a warning unless
 * throwOnRequestTimeout is set (test/security/outage.test.ts, hung database).
 */
export function awsClientSettings(region: string) {
  return {
    region,
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true }),
  };
}
