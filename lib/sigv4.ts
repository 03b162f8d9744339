import { createHash, createHmac } from 'node:crypto';

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

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** Signing keys by secret, day, region and service: derived once a day, as the SDK's signer caches them. */
const signingKeys = new Map<string, Buffer>();

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const cacheKey = `${secret}|${day}|${region}|${service}`;
  let key = signingKeys.get(cacheKey);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    if (signingKeys.size > 16) signingKeys.clear();
    signingKeys.set(cacheKey, key);
  }
  return key;
}

/**
 * The headers of a POST signed with AWS Signature Version 4 (header form): every
 * header given, `host`, `x-amz-date` and the session token are signed. The SDK's signer
 * (@smithy/signature-v4) gives the same signature for the same request and time
 * (test/lib/sigv4.test.ts). Synchronous node:crypto: WebCrypto answers every HMAC
 * asynchronously, and aws4fetch's signer builds a `Headers`, whose first use loads
 * Node's fetch implementation (35-70 ms of a cold start, docs/decisions/001-lean-dynamodb-client.md).
 */
export function signPost(
  request: UnsignedPost,
  scope: { region: string; service: string },
  credentials: AwsCredentials,
  now: Date = new Date(),
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.host,
    'x-amz-date': amzDate,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = [
    'POST',
    '/',
    '',
    ...names.map((name) => `${name}:${String(headers[name]).trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    sha256Hex(request.body),
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, credentialScope, sha256Hex(canonical)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, day, scope.region, scope.service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
