import aws4 from 'aws4';

/** AWS credentials: in Lambda, the function role's, from its environment. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
  /** When temporary credentials expire; undefined for the Lambda environment's (they last as long as it). */
  expiration?: Date | undefined;
}

/** A POST to the root path of an AWS JSON endpoint, before signing. */
export interface UnsignedPost {
  host: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/**
 * The headers of a POST signed with AWS Signature Version 4 (header form) by `aws4`:
 * every header given, `host`, `x-amz-date` and the session token are signed. The SDK's
 * signer (@smithy/signature-v4) gives the same signature for the same request and time
 * (test/lib/dynamo-client.test.ts). `aws4` signs synchronously on node:crypto and caches
 * the derived signing keys; why it replaced a hand-written signer, and what it costs a
 * cold start: docs/decisions/010-sigv4-signer.md.
 */
export function signPost(
  request: UnsignedPost,
  scope: { region: string; service: string },
  credentials: AwsCredentials,
  now: Date = new Date(),
): Record<string, string> {
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.host,
    'x-amz-date': now.toISOString().replace(/[:-]|\.\d{3}/g, ''),
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  // aws4 adds `Authorization` to the headers it is given: a copy, so the answer has one authorization header.
  const signed = aws4.sign(
    {
      method: 'POST',
      host: request.host,
      path: '/',
      headers: { ...headers },
      body: request.body,
      region: scope.region,
      service: scope.service,
    },
    { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
  );
  return { ...headers, authorization: String(signed.headers?.Authorization) };
}
