/**
 * What serverless.yml gives every function and AWS Lambda insists on (lib/config.ts,
 * REQUIRED_IN_LAMBDA): the base of a configuration read as in AWS Lambda.
 */
export const LAMBDA_SETTINGS = {
  TABLE_NAME: 'identity-service-prod',
  ISSUER: 'https://id.example.com',
  CORS_ALLOWED_ORIGINS: 'https://app.example.com',
  SIGNING_KEYS_SOURCE: 'secretsmanager',
  SIGNING_KEYS_SECRET_ID: 'identity-service/prod/signing-keys',
  WEBAUTHN_RP_ID: 'example.com',
  WEBAUTHN_ORIGINS: 'https://id.example.com',
} as const;
