import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ensureKeysFile } from '../../lib/tokens/signing-keys';
import { freePort } from '../../scripts/dynamodb-local';
import { buildDist } from './built-dist';

/** A running local stack: its base URL and how to stop it. */
export interface LocalStack {
  base: string;
  /** The serverless-offline process (stopped by its PID). */
  api: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The service as `npm start` serves it: the esbuild bundles in dist/ (built once a run), run by
 * serverless-offline from serverless.yml on free ports, with the authorizer in front,
 * against the run's DynamoDB Local (`tableName`, default the run's table). Keys are
 * generated in a temporary directory (mode 0700), removed by `stop`.
 */
export async function startLocalStack(options: { tableName?: string; env?: NodeJS.ProcessEnv; keyId?: string } = {}): Promise<LocalStack> {
  buildDist();
  const dataDir = mkdtempSync(join(tmpdir(), 'identity-keys-'));
  const keysFile = join(dataDir, 'signing-keys.json');
  await ensureKeysFile(keysFile, options.keyId ?? 'e2e-key');
  const [httpPort, lambdaPort] = [await freePort(), await freePort()];
  const base = `http://localhost:${httpPort}`;
  const api = spawn(
    process.execPath,
    [
      'node_modules/.bin/serverless',
      'offline',
      'start',
      '--stage',
      'dev',
      '--httpPort',
      String(httpPort),
      '--lambdaPort',
      String(lambdaPort),
    ],
    {
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
        TABLE_NAME: options.tableName ?? inject('tableName'),
        SIGNING_KEYS_SOURCE: 'file',
        SIGNING_KEYS_FILE: keysFile,
        MFA_DELIVERY: 'outbox',
        MFA_KEY_SOURCE: 'file',
        MFA_KEY_FILE: join(dataDir, 'mfa-key.json'),
        OAUTH_CLIENT_SECRET_PEPPER_FILE: join(dataDir, 'oauth-client-secret-pepper'),
        ISSUER: base,
        AWS_REGION: 'us-east-1',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stop = async () => {
    if (api.exitCode === null && api.signalCode === null) {
      const exited = new Promise((done) => api.once('exit', done));
      api.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((ready, fail) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`serverless-offline did not start:\n${output}`)), 45_000);
      const watch = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Server ready')) {
          clearTimeout(timer);
          ready();
          if (process.env.E2E_VERBOSE) {
            api.stdout?.on('data', (c: Buffer) => process.stdout.write(c));
            api.stderr?.on('data', (c: Buffer) => process.stderr.write(c));
          }
        }
      };
      api.stdout?.on('data', watch);
      api.stderr?.on('data', watch);
      api.once('exit', (code) => fail(new Error(`serverless-offline exited with ${code}:\n${output}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, api, stop };
}
