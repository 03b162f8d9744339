import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDist } from '../helpers/built-dist';

/*
 * The functions reach DynamoDB through lib/store/dynamo-client.ts, not the SDK's client,
 * whose loading was most of a cold start (docs/decisions/001-lean-dynamodb-client.md). Table creation
 * (lib/store/table-setup.ts) keeps the SDK: only the local stack, scripts and tests use it.
 */
const SDK_DYNAMO = /from '@aws-sdk\/(lib-dynamodb|client-dynamodb)'|import\('@aws-sdk\/(lib-dynamodb|client-dynamodb)'\)/;
const ALLOWED = ['lib/store/table-setup.ts'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

describe("the functions' DynamoDB client", () => {
  it("is lib/store/commands.ts and dynamo-client.ts: no file of lib/ or functions/ imports the SDK's DynamoDB packages", () => {
    const offending = [...sources('lib'), ...sources('functions')].filter(
      (file) => !ALLOWED.includes(file) && SDK_DYNAMO.test(readFileSync(file, 'utf8')),
    );
    expect(offending).toEqual([]);
    const setupUsers = [...sources('lib'), ...sources('functions')].filter((file) => readFileSync(file, 'utf8').includes("/table-setup'"));
    expect(setupUsers).toEqual([]);
  });

  // dist/, built once for the files of the `stack` project, which hold its lock meanwhile
  // (vitest.config.ts); its bundles find their external packages as in the deployed package.
  const functionsDir = join('dist', 'functions');

  it('loads no AWS SDK package when a function bundle loads, configured as in AWS', () => {
    buildDist();
    const bundles = readdirSync(functionsDir).filter((name) => name.endsWith('.cjs'));
    expect(bundles.length).toBeGreaterThan(30);
    // One process requires every bundle and says which packages each one loaded.
    const probe = `
      const loaded = {};
      for (const bundle of ${JSON.stringify(bundles)}) {
        const before = new Set(Object.keys(require.cache));
        require(require('node:path').resolve(${JSON.stringify(functionsDir)}, bundle));
        loaded[bundle] = Object.keys(require.cache).filter((file) => !before.has(file) && /node_modules\\/@(aws-sdk|smithy|aws-crypto)\\//.test(file));
      }
      process.stdout.write(JSON.stringify(loaded));
    `;
    const output = execFileSync(process.execPath, ['-e', probe], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        AWS_LAMBDA_FUNCTION_NAME: 'lean-dynamo-check',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'not-a-secret',
        TABLE_NAME: 'identity',
        ISSUER: 'https://id.example.com',
        CORS_ALLOWED_ORIGINS: 'https://app.example.com',
        WEBAUTHN_RP_ID: 'example.com',
        WEBAUTHN_ORIGINS: 'https://id.example.com',
        SIGNING_KEYS_SOURCE: 'secretsmanager',
        SIGNING_KEYS_SECRET_ID: 'signing-keys',
        MFA_DELIVERY: 'aws',
        MFA_EMAIL_FROM: 'codes@example.com',
        MFA_KEY_SOURCE: 'kms',
        KMS_KEY_ID: 'alias/mfa',
        OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: 'client-secret-pepper',
        // The event functions' own (serverless.yml): the bus and the delivery queue.
        EVENT_BUS_NAME: 'identity-events',
        DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries',
      },
    });
    const loaded = JSON.parse(output) as Record<string, string[]>;
    expect(Object.keys(loaded).sort()).toEqual(bundles.sort());
    // The SMS spend-limit custom resource runs at deploy time only, never on a request: SNS is what it is for.
    const requestPaths = Object.entries(loaded).filter(([bundle]) => bundle !== 'sms-spend-limit.cjs');
    expect(requestPaths.filter(([, files]) => files.length > 0)).toEqual([]);
  }, 60_000);
});
