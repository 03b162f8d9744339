import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awsJsonCall, KMS } from '../../lib/aws';
import { createLogger } from '../../lib/log';
import { kmsDataKeys } from '../../lib/mfa/kms-data-keys';
import { secretsManagerReader } from '../../lib/secrets/secrets-manager';
import type { AwsCredentials } from '../../lib/sigv4';
import { secretsManagerKeyProvider } from '../../lib/tokens/secrets-manager-keys';
import { generateSigningKey } from '../../lib/tokens/signing-keys';
import { noSecretWrites, testClock } from '../helpers/deps';
import { Sha256 } from '../helpers/sdk-sha256';

/*
 * Secrets Manager and KMS cannot be reached from here: a fake of their JSON endpoint checks
 * what the functions send them without the SDK (AWS's JSON protocol 1.1,
 * docs/decisions/036-lean-secret-reads.md) and the signature, which the SDK's own signer
 * recomputes.
 */

const credentials: AwsCredentials = {
  accessKeyId: 'ASIAEXAMPLE',
  secretAccessKey: 'role/secret+key',
  sessionToken: 'IQoJb3JpZ2luX2VjE//session==',
};

interface Received {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

/** The request's signature is the one the SDK's own signer makes for it. */
async function expectSignedAsTheSdk(request: Received, service: string) {
  expect(request.headers['x-amz-security-token']).toBe(credentials.sessionToken);
  const date = String(request.headers['x-amz-date']);
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const host = String(request.headers.host);
  const headers = {
    'content-type': String(request.headers['content-type']),
    'content-length': String(request.headers['content-length']),
    'x-amz-target': String(request.headers['x-amz-target']),
    host,
  };
  const sdk = await new SignatureV4({ credentials, region: 'eu-west-1', service, sha256: Sha256, applyChecksum: false }).sign(
    { method: 'POST', protocol: 'http:', hostname: host, path: '/', query: {}, headers, body: request.body },
    { signingDate },
  );
  expect(request.headers.authorization).toBe(sdk.headers.authorization);
  expect(request.headers.authorization).toContain(`/eu-west-1/${service}/aws4_request`);
}

describe("services of AWS's JSON protocol against a fake endpoint", () => {
  let server: Server;
  let endpoint: string;
  let received: Received[] = [];
  let answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method,
          path: request.url,
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const answer = answers.shift() ?? { status: 500, body: { __type: 'InternalServiceError', Message: 'no answer queued' } };
        response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'req-1', ...answer.headers });
        response.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
  beforeEach(() => {
    received = [];
    answers = [];
  });

  describe('Secrets Manager (secretsManagerReader)', () => {
    const reader = () => secretsManagerReader({ region: 'eu-west-1', endpoint, credentials: async () => credentials });

    it('sends one GetSecretValue signed as the SDK signs it, and answers the string and version', async () => {
      answers.push({
        status: 200,
        body: {
          ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:keys',
          Name: 'keys',
          SecretString: '{"a":1}',
          VersionId: 'v-1',
          VersionStages: ['AWSCURRENT'],
        },
      });
      expect(await reader()('identity-service/prod/signing-keys')).toEqual({ SecretString: '{"a":1}', VersionId: 'v-1' });

      expect(received).toHaveLength(1);
      const [request] = received as [Received];
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/');
      expect(request.headers['content-type']).toBe('application/x-amz-json-1.1');
      expect(request.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
      expect(request.headers['x-amz-security-token']).toBe(credentials.sessionToken);
      expect(JSON.parse(request.body)).toEqual({ SecretId: 'identity-service/prod/signing-keys' });

      await expectSignedAsTheSdk(request, 'secretsmanager');
    });

    it('names an error as the SDK does, and does not retry what cannot succeed', async () => {
      answers.push({
        status: 400,
        body: { __type: 'ResourceNotFoundException', Message: "Secrets Manager can't find the specified secret." },
      });
      await expect(reader()('missing')).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
        $metadata: { httpStatusCode: 400, attempts: 1 },
      });
      expect(received).toHaveLength(1);
    });

    it('names an error from its X-Amzn-ErrorType header or a qualified __type, as the SDK does, and tries again after a 429', async () => {
      answers.push(
        {
          status: 400,
          body: {},
          headers: { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/' },
        },
        { status: 429, body: { message: 'Too many requests' } },
        { status: 400, body: { __type: 'com.amazonaws.secretsmanager#DecryptionFailure', Message: 'cannot decrypt' } },
      );
      await expect(reader()('keys')).rejects.toMatchObject({
        name: 'DecryptionFailure',
        message: 'cannot decrypt',
        $metadata: { attempts: 3 },
      });
      expect(received).toHaveLength(3);
    });

    it('tries again after a server error or throttling', async () => {
      answers.push(
        { status: 500, body: { __type: 'InternalServiceError', Message: 'try again' } },
        { status: 400, body: { __type: 'ThrottlingException', Message: 'Rate exceeded' } },
        { status: 200, body: { SecretString: 'text', VersionId: 'v-2' } },
      );
      expect(await reader()('keys')).toEqual({ SecretString: 'text', VersionId: 'v-2' });
      expect(received).toHaveLength(3);
    });

    it('gives the signing keys a function reads at its first request', async () => {
      const key = await generateSigningKey('k1');
      answers.push({ status: 200, body: { SecretString: JSON.stringify({ activeKid: 'k1', keys: [key] }), VersionId: 'v-3' } });
      const keys = secretsManagerKeyProvider(
        { getSecretValue: reader(), send: noSecretWrites },
        'identity-service/prod/signing-keys',
        testClock(),
        createLogger('error', () => {}),
      );
      expect((await keys.load()).kid).toBe('k1');
      expect(JSON.parse(received[0]?.body ?? '')).toEqual({ SecretId: 'identity-service/prod/signing-keys' });
    });
  });

  describe('KMS (the MFA data keys)', () => {
    const kms = () => kmsDataKeys(awsJsonCall(KMS, { region: 'eu-west-1', endpoint, credentials: async () => credentials }), 'alias/mfa');

    it("asks for a data key and decrypts another instance's, binary members in base64, signed as the SDK signs it", async () => {
      const plaintext = randomBytes(32);
      const blob = randomBytes(150);
      answers.push(
        {
          status: 200,
          body: {
            CiphertextBlob: blob.toString('base64'),
            Plaintext: plaintext.toString('base64'),
            KeyId: 'arn:aws:kms:eu-west-1:1:key/k',
          },
        },
        { status: 200, body: { Plaintext: plaintext.toString('base64'), KeyId: 'arn:aws:kms:eu-west-1:1:key/k' } },
      );
      const current = await kms().current();
      expect(current.key.equals(plaintext)).toBe(true);
      expect(Buffer.from(current.id, 'base64url').equals(blob)).toBe(true);
      expect((await kms().find(current.id)).equals(plaintext)).toBe(true);

      expect(received.map((request) => request.headers['x-amz-target'])).toEqual(['TrentService.GenerateDataKey', 'TrentService.Decrypt']);
      expect(JSON.parse(received[0]?.body ?? '')).toEqual({
        KeyId: 'alias/mfa',
        KeySpec: 'AES_256',
        EncryptionContext: { purpose: 'identity-service-mfa' },
      });
      expect(JSON.parse(received[1]?.body ?? '')).toEqual({
        KeyId: 'alias/mfa',
        CiphertextBlob: blob.toString('base64'),
        EncryptionContext: { purpose: 'identity-service-mfa' },
      });
      for (const request of received) {
        expect(request.headers['content-type']).toBe('application/x-amz-json-1.1');
        await expectSignedAsTheSdk(request, 'kms');
      }
    });

    it("refuses an answer without the key, and names KMS's errors as the SDK does", async () => {
      answers.push({ status: 200, body: { KeyId: 'k' } });
      await expect(kms().current()).rejects.toThrow('KMS returned no CiphertextBlob');
      answers.push({ status: 400, body: { __type: 'InvalidCiphertextException', message: 'The ciphertext is invalid.' } });
      await expect(kms().find(randomBytes(150).toString('base64url'))).rejects.toMatchObject({
        name: 'InvalidCiphertextException',
        $metadata: { httpStatusCode: 400, attempts: 1 },
      });
    });
  });
});
