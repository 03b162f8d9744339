import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config';
import { clientSecretHasher, clientSecretHasherFor, type SecretsClient } from '../../lib/oauth/client-secret';
import { noSecretsManager } from '../helpers/deps';
import { newSecret } from './fixtures';

/** Secrets Manager cannot be reached from here: a fake client at the edge, counting reads. */
function fakeSecrets(values: Record<string, string>) {
  const reads: string[] = [];
  const client: SecretsClient = {
    send: async (command: unknown) => {
      if (!(command instanceof GetSecretValueCommand)) throw new Error('unexpected command');
      const id = String(command.input.SecretId);
      reads.push(id);
      return { SecretString: values[id] };
    },
  };
  return { client, reads };
}

describe('client secret hashes', () => {
  const pepper = Buffer.alloc(32, 7);
  it('verifies the right secret only, and nothing against a missing hash', async () => {
    const hasher = clientSecretHasher(async () => pepper);
    const stored = await hasher.hash('s'.repeat(40));
    expect(stored).toMatch(/^hmac-sha256\$[A-Za-z0-9_-]{43}$/);
    expect(await hasher.verify(stored, 's'.repeat(40))).toBe(true);
    expect(await hasher.verify(stored, 's'.repeat(41))).toBe(false);
    expect(await hasher.verify(undefined, 's'.repeat(40))).toBe(false);
  });
  it('depends on the pepper: a copy of the table alone cannot check guesses', async () => {
    expect(await clientSecretHasher(async () => pepper).hash('secret')).not.toBe(await clientSecretHasher(async () => Buffer.alloc(32, 8)).hash('secret'));
  });
  it('generates a local pepper file once (mode 0600) and reuses it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pepper-')), 'sub', 'pepper');
    const first = clientSecretHasherFor({ source: 'file', path }, noSecretsManager);
    const stored = await first.hash('a secret');
    const content = readFileSync(path, 'utf8');
    expect(Buffer.from(content.trim(), 'base64url')).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = clientSecretHasherFor({ source: 'file', path }, noSecretsManager);
    expect(await second.verify(stored, 'a secret')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});

describe('the client-secret hasher port (issue 18, item 3)', () => {
  it('reads the pepper in AWS from its Secrets Manager secret once, at the first use', async () => {
    const aws = { AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_REGION: 'eu-west-1', MFA_DELIVERY: 'aws', MFA_EMAIL_FROM: 'a@example.com', MFA_KEY_SOURCE: 'kms', KMS_KEY_ID: 'k' };
    const source = readConfig({ ...aws, OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: 'identity-service/prod/pepper' }).oauthClientSecretPepper;
    expect(source).toEqual({ source: 'secretsmanager', secretId: 'identity-service/prod/pepper', region: 'eu-west-1' });
    expect(readConfig({ OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: 'x', DYNAMODB_ENDPOINT: 'http://localhost:8000', AWS_LAMBDA_FUNCTION_NAME: 'f' }).oauthClientSecretPepper.source).toBe('file');

    const pepper = newSecret();
    const { client, reads } = fakeSecrets({ 'identity-service/prod/pepper': pepper });
    const hasher = clientSecretHasherFor(source, client);
    expect(reads).toEqual([]);
    const stored = await hasher.hash('a client secret');
    await hasher.verify(stored, 'a client secret');
    expect(reads).toEqual(['identity-service/prod/pepper']);
    expect(stored).toBe(await clientSecretHasher(async () => Buffer.from(pepper, 'utf8')).hash('a client secret'));

    const short = clientSecretHasherFor({ source: 'secretsmanager', secretId: 'short', region: 'eu-west-1' }, fakeSecrets({ short: 'too short' }).client);
    await expect(short.hash('x')).rejects.toThrow('The client-secret pepper in secret short is shorter than 32 characters');
  });

  it('tries a failed load again at the next use', async () => {
    let fail = true;
    const hasher = clientSecretHasher(async () => {
      if (fail) {
        fail = false;
        throw new Error('network down');
      }
      return Buffer.alloc(32, 1);
    });
    await expect(hasher.hash('x')).rejects.toThrow('network down');
    expect(await hasher.hash('x')).toMatch(/^hmac-sha256\$/);
  });

  it('refuses every use when no pepper is configured', async () => {
    const hasher = clientSecretHasherFor({ source: 'missing' }, noSecretsManager);
    await expect(hasher.verify('hmac-sha256$x', 'x')).rejects.toThrow('Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID');
  });
});
