import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureKeysFile } from '../../lib/tokens/signing-keys';
import { freePort } from '../../scripts/dynamodb-local';
import { uniqueTenant } from '../helpers/deps';

/**
 * The service as `npm start` serves it: the esbuild bundles in dist/, run by
 * serverless-offline from serverless.yml, with the authorizer in front, against the
 * run's DynamoDB Local.
 */
describe('the local stack (serverless-offline)', () => {
  let api: ChildProcess;
  let base: string;

  beforeAll(async () => {
    execFileSync('node', ['scripts/build.mjs'], { stdio: 'inherit' });
    const keysFile = join(mkdtempSync(join(tmpdir(), 'identity-keys-')), 'signing-keys.json');
    await ensureKeysFile(keysFile, 'e2e-key');
    const [httpPort, lambdaPort] = [await freePort(), await freePort()];
    base = `http://localhost:${httpPort}`;
    api = spawn(
      'node_modules/.bin/serverless',
      ['offline', 'start', '--stage', 'dev', '--httpPort', String(httpPort), '--lambdaPort', String(lambdaPort)],
      {
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
          TABLE_NAME: inject('tableName'),
          SIGNING_KEYS_SOURCE: 'file',
          SIGNING_KEYS_FILE: keysFile,
          ISSUER: base,
          AWS_REGION: 'us-east-1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    await new Promise<void>((ready, fail) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`serverless-offline did not start:\n${output}`)), 45_000);
      const watch = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Server ready')) {
          clearTimeout(timer);
          ready();
          if (process.env.E2E_VERBOSE) { api.stdout?.on('data', (c: Buffer) => process.stdout.write(c)); api.stderr?.on('data', (c: Buffer) => process.stderr.write(c)); }
        }
      };
      api.stdout?.on('data', watch);
      api.stderr?.on('data', watch);
      api.once('exit', (code) => fail(new Error(`serverless-offline exited with ${code}:\n${output}`)));
    });
  }, 90_000);

  afterAll(async () => {
    if (api && api.exitCode === null) {
      const exited = new Promise((done) => api.once('exit', done));
      api.kill('SIGTERM');
      await exited;
    }
  });

  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const get = (path: string, token?: string) => fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('serves register → login → me → refresh → logout as the contract says', async () => {
    const tenantId = uniqueTenant('e2e');
    const password = 'e2e passphrase that is long';

    const registered = await post('/auth/register', { username: 'eve', password, role: 'ADMIN', tenantId });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('cache-control')).toBe('no-store');

    const login = await post('/auth/login', { username: 'eve', password, tenantId });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { data: { token: string; refreshToken: string; user: { id: string } } };

    const me = await get('/auth/me', session.data.token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ success: true, data: { user: { userId: session.data.user.id, username: 'eve', tenantId, role: 'ADMIN' } } });

    const refreshed = await post('/auth/refresh', { refreshToken: session.data.refreshToken });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { data: { token: string } };

    const logout = await post('/auth/logout', {}, next.data.token);
    expect(await logout.json()).toEqual({ success: true, data: { message: 'Logged out' } });
    const after = await get('/auth/me', next.data.token);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ success: false, error: 'Unauthorized' });
  });

  it('answers 401 in the envelope without a token, and 400 for bad JSON', async () => {
    const me = await get('/auth/me');
    expect([me.status, await me.json()]).toEqual([401, { success: false, error: 'Unauthorized' }]);
    const bad = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' });
    expect([bad.status, await bad.json()]).toEqual([400, { success: false, error: 'Invalid JSON body' }]);
  });

  it('publishes the JWKS', async () => {
    const jwks = await get('/.well-known/jwks.json');
    expect(await jwks.json()).toEqual({ keys: [expect.objectContaining({ kid: 'e2e-key', kty: 'EC', crv: 'P-256' })] });
  });
});
