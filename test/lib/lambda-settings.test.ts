import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, REQUIRED_IN_LAMBDA, readConfig } from '../../lib/config';
import { LAMBDA_SETTINGS } from '../helpers/lambda-env';

const IN_LAMBDA = { AWS_LAMBDA_FUNCTION_NAME: 'identity-service-prod-hostedPasskeysPage', ...LAMBDA_SETTINGS };

describe('settings whose defaults are for local development only (lib/config.ts)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it.each(REQUIRED_IN_LAMBDA)('fails the configuration in AWS Lambda without %s, naming it', (name) => {
    expect(() => readConfig({ ...IN_LAMBDA, [name]: undefined })).toThrow(
      new ConfigError(`Missing environment variable ${name}: in AWS Lambda it has no default`),
    );
    expect(() => readConfig({ ...IN_LAMBDA, [name]: ' ' })).toThrow(`Missing environment variable ${name}`);
  });

  it('reads them in AWS Lambda when set', () => {
    const config = readConfig(IN_LAMBDA);
    expect(config).toMatchObject({
      tableName: 'identity-service-prod',
      issuer: 'https://id.example.com',
      corsAllowedOrigins: ['https://app.example.com'],
      signingKeys: { source: 'secretsmanager', secretId: 'identity-service/prod/signing-keys' },
      webauthn: { rpId: 'example.com', origins: ['https://id.example.com'], rpName: 'Identity Service' },
    });
  });

  it('keeps the local defaults outside AWS Lambda: locally, in serverless-offline, on DynamoDB Local', () => {
    const lambdaWithout = { AWS_LAMBDA_FUNCTION_NAME: 'identity-service-dev-login' };
    const local = { DYNAMODB_ENDPOINT: 'http://localhost:8000' };
    for (const env of [{}, { ...lambdaWithout, IS_OFFLINE: 'true', ...local }, { ...lambdaWithout, ...local }]) {
      expect(readConfig(env), JSON.stringify(env)).toMatchObject({
        tableName: 'identity',
        issuer: 'http://localhost:3000',
        corsAllowedOrigins: ['http://localhost:5173'],
        signingKeys: { source: 'file' },
        webauthn: { rpId: 'localhost', origins: ['http://localhost:3000'] },
      });
    }
  });

  it('counts IS_OFFLINE alone as AWS Lambda: a deployed function given it by mistake keeps no local default', () => {
    expect(() => readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'identity-service-dev-login', IS_OFFLINE: 'true' })).toThrow(
      new ConfigError('Missing environment variable TABLE_NAME: in AWS Lambda it has no default'),
    );
  });

  it('fails the cold start of a function in AWS Lambda without WEBAUTHN_RP_ID, and starts it with every setting', async () => {
    for (const [name, value] of Object.entries(IN_LAMBDA)) vi.stubEnv(name, value);
    vi.stubEnv('DYNAMODB_ENDPOINT', undefined);
    vi.stubEnv('IS_OFFLINE', undefined);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('WEBAUTHN_RP_ID', undefined);
    await expect(import('../../functions/hosted-passkeys-page')).rejects.toThrow(
      new ConfigError('Missing environment variable WEBAUTHN_RP_ID: in AWS Lambda it has no default'),
    );
    vi.resetModules();
    vi.stubEnv('WEBAUTHN_RP_ID', LAMBDA_SETTINGS.WEBAUTHN_RP_ID);
    const started = await import('../../functions/hosted-passkeys-page');
    expect(started.handler).toEqual(expect.any(Function));
  });
});
