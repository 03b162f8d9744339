import { describe, expect, it } from 'vitest';
import * as mfaEnable from '../../functions/enable-mfa';
import * as login from '../../functions/login';
import * as me from '../../functions/me';
import * as mfaVerify from '../../functions/verify-mfa';
import { ConfigError, readConfig, requireMfaConfig } from '../../lib/config';
import { testDeps } from '../helpers/deps';
import { LAMBDA_SETTINGS } from '../helpers/lambda-env';

describe('readConfig: MFA', () => {
  it('defaults to the outbox and a key file under .data/ (local development)', () => {
    expect(readConfig({}).mfa).toEqual({
      delivery: { kind: 'outbox' },
      dataKeys: { source: 'file', path: '.data/mfa-key.json' },
      totpIssuer: 'Identity Service',
      smsCountries: 'any',
    });
  });

  it('reads SNS/SES delivery with its sender, KMS with its key, and the issuer', () => {
    const env = {
      MFA_DELIVERY: 'aws',
      MFA_EMAIL_FROM: 'Acme <no-reply@acme.example>',
      MFA_KEY_SOURCE: 'kms',
      KMS_KEY_ID: 'alias/identity-mfa',
      TOTP_ISSUER: 'Acme',
    };
    expect(readConfig(env).mfa).toEqual({
      delivery: { kind: 'aws', emailFrom: 'Acme <no-reply@acme.example>' },
      dataKeys: { source: 'kms', keyId: 'alias/identity-mfa' },
      totpIssuer: 'Acme',
      smsCountries: 'any',
    });
  });

  it('allows the outbox and the key file in serverless-offline (Lambda on DynamoDB Local)', () => {
    const config = readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'identity-service-dev-login', DYNAMODB_ENDPOINT: 'http://localhost:8000' });
    expect(config.mfa).toMatchObject({ delivery: { kind: 'outbox' }, dataKeys: { source: 'file' } });
    expect(() => requireMfaConfig(config)).not.toThrow();
  });

  // In AWS Lambda against the real table (with what else AWS needs, e.g. the OAuth pepper).
  const inLambda = {
    AWS_LAMBDA_FUNCTION_NAME: 'identity-service-prod-login',
    ...LAMBDA_SETTINGS,
    DYNAMODB_ENDPOINT: '',
    OAUTH_CLIENT_SECRET_PEPPER: 'p'.repeat(32),
  };

  it('leaves MFA missing in AWS Lambda without its variables: other functions start, the MFA functions refuse to', () => {
    const config = readConfig(inLambda);
    expect(config.mfa).toEqual({
      delivery: { kind: 'missing' },
      dataKeys: { source: 'missing' },
      totpIssuer: 'Identity Service',
      smsCountries: ['+1'],
    });
    expect(() => requireMfaConfig(config)).toThrow(
      new ConfigError('Missing environment variable MFA_DELIVERY: in AWS Lambda set it to "aws" (with MFA_EMAIL_FROM)'),
    );
    const withDelivery = readConfig({ ...inLambda, MFA_DELIVERY: 'aws', MFA_EMAIL_FROM: 'a@b.example' });
    expect(() => requireMfaConfig(withDelivery)).toThrow(
      new ConfigError('Missing environment variable MFA_KEY_SOURCE: in AWS Lambda set it to "kms" (with KMS_KEY_ID)'),
    );
    const complete = readConfig({
      ...inLambda,
      MFA_DELIVERY: 'aws',
      MFA_EMAIL_FROM: 'a@b.example',
      MFA_KEY_SOURCE: 'kms',
      KMS_KEY_ID: 'k',
    });
    expect(() => requireMfaConfig(complete)).not.toThrow();
  });

  it('fails the cold start of login, enableMFA and verifyMFA only', async () => {
    const deps = { ...(await testDeps()), config: readConfig(inLambda) };
    for (const fn of [login, mfaEnable, mfaVerify]) expect(() => fn.makeHandler(deps)).toThrow(ConfigError);
    expect(() => me.makeHandler(deps)).not.toThrow();
  });
  it.each([
    [{ MFA_DELIVERY: 'sms' }, 'Environment variable MFA_DELIVERY must be one of outbox, aws, got "sms"'],
    [{ MFA_KEY_SOURCE: 'env' }, 'Environment variable MFA_KEY_SOURCE must be one of file, kms, got "env"'],
    [{ MFA_DELIVERY: 'aws' }, 'Missing environment variable MFA_EMAIL_FROM'],
    [{ MFA_DELIVERY: 'aws', MFA_EMAIL_FROM: 'nobody' }, 'Environment variable MFA_EMAIL_FROM must be an email address, got "nobody"'],
    [{ MFA_KEY_SOURCE: 'kms' }, 'Missing environment variable KMS_KEY_ID'],
    [
      { ...inLambda, MFA_DELIVERY: 'outbox' },
      'Environment variable MFA_DELIVERY must be "aws" in AWS Lambda: the outbox is for local development only',
    ],
    [
      { ...inLambda, MFA_KEY_SOURCE: 'file' },
      'Environment variable MFA_KEY_SOURCE must be "kms" in AWS Lambda: the key file is for local development only',
    ],
  ])('refuses %j', (env, message) => {
    expect(() => readConfig(env)).toThrow(new ConfigError(message));
  });
});
