import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { epochSeconds } from '../../lib/clock';
import { publicKeysPath } from '../../lib/config';
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS } from '../../lib/oauth/access-token';
import { clientSecretHasherFor, PEPPER_REFRESH_SECONDS } from '../../lib/oauth/client-secret';
import { fileLocation } from '../../lib/secrets/location';
import { signAccessToken } from '../../lib/tokens/access-token';
import { KEYS_REFRESH_SECONDS } from '../../lib/tokens/secrets-manager-keys';
import { fileKeyProvider, filePublicKeyProvider, keySetFromDocument, parseSigningKeys } from '../../lib/tokens/signing-keys';
import { peppersDocument, rotate, signingKeysDocument, withPublicKeys } from '../../scripts/lib/rotation';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { noSecretsManager, type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { basic, form, newSecret } from '../helpers/oauth';

/**
 * The key and pepper rotation runbooks of docs/guides/operators.md, run end to end on
 * the functions and DynamoDB Local with the local files (the commands are the tool's own
 * code, `npm run keys` is its command line), the clock moved by the runbooks' waits.
 */
const runbooks = readFileSync('docs/guides/operators.md', 'utf8');
const section = (title: string) =>
  runbooks.slice(runbooks.indexOf(`### ${title}\n`), runbooks.indexOf('\n### ', runbooks.indexOf(`### ${title}\n`) + 1));
const waits = (title: string) => [...section(title).matchAll(/# wait >= (\d+) minutes/g)].map((match) => Number(match[1]) * 60);
const quiet = () => undefined;

function localStack(deps: TestDeps) {
  const dir = mkdtempSync(join(tmpdir(), 'runbook-'));
  const keysPath = join(dir, 'signing-keys.json');
  const pepperPath = join(dir, 'oauth-client-secret-pepper');
  deps.keys = fileKeyProvider(keysPath, deps.clock, deps.log);
  // The verifiers (authorizer, jwks) read the public keys file that `npm run keys` writes beside it.
  deps.publicKeys = filePublicKeyProvider(publicKeysPath(keysPath), deps.clock, deps.log);
  deps.clientSecretHasher = clientSecretHasherFor({ source: 'file', path: pepperPath }, noSecretsManager, {
    clock: deps.clock,
    log: deps.log,
  });
  const keys = withPublicKeys(fileLocation(keysPath), fileLocation(publicKeysPath(keysPath)));
  return { keys, pepper: fileLocation(pepperPath), app: testApp(deps) };
}

describe("operators' runbook: signing key rotation (add, activate, retire)", () => {
  it('documents waits that cover the real caching', async () => {
    const deps = nearRealTime(await testDeps());
    const { keys, app } = localStack(deps);
    await rotate(signingKeysDocument, keys, 'add', 'k1', quiet);
    const maxAge = Number(/max-age=(\d+)/.exec((await app.request('jwks')).headers['Cache-Control'] ?? '')?.[1]);
    expect(maxAge).toBe(300);
    const [publish, retire] = waits('Key rotation');
    // An instance serves a key set up to two refresh periods old, then the JWKS is cached.
    expect(publish).toBeGreaterThanOrEqual(2 * KEYS_REFRESH_SECONDS + maxAge);
    // The old key signs on instances that have not read the activation yet, then its longest token lives on.
    expect(retire).toBeGreaterThanOrEqual(2 * KEYS_REFRESH_SECONDS + OAUTH_ACCESS_TOKEN_TTL_SECONDS);
  });

  it('keeps everyone logged in, publishes before signing, and refuses the old key once retired', async () => {
    const deps = nearRealTime(await testDeps());
    const { keys, app } = localStack(deps);
    const [publish, retire] = waits('Key rotation') as [number, number];
    await rotate(signingKeysDocument, keys, 'add', 'key-1', quiet);
    const tenantId = uniqueTenant('runbook');
    const admin = await registerAdmin(app, tenantId);
    const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
    expect(kidOf(admin.token)).toBe('key-1');
    const oldKeys = await keySetFromDocument(parseSigningKeys((await keys.read()).text!));

    // 1. publish
    await rotate(signingKeysDocument, keys, 'add', 'key-2', quiet);
    deps.clock.advance(publish);
    expect((await app.request('jwks')).body.keys.map((key: { kid: string }) => key.kid)).toEqual(['key-1', 'key-2']);
    const login = async () => app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } });
    const beforeActivation = await login();
    expect(kidOf(beforeActivation.body.data.token)).toBe('key-1');

    // 2. activate: new tokens are signed with key-2, tokens of key-1 still work
    await rotate(signingKeysDocument, keys, 'activate', 'key-2', quiet);
    deps.clock.advance(KEYS_REFRESH_SECONDS);
    await vi.waitFor(async () => expect((await deps.keys.load()).kid).toBe('key-2'));
    expect((await app.request('me', { token: beforeActivation.body.data.token })).status).toBe(200);
    const refreshed = await app.request('refreshToken', { body: { refreshToken: beforeActivation.body.data.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(kidOf(refreshed.body.data.token)).toBe('key-2');

    // 3. retire key-1 after the longest token's life
    deps.clock.advance(retire);
    await rotate(signingKeysDocument, keys, 'retire', 'key-1', quiet);
    deps.clock.advance(KEYS_REFRESH_SECONDS);
    await vi.waitFor(async () => expect((await app.request('jwks')).body.keys.map((key: { kid: string }) => key.kid)).toEqual(['key-2']));
    // Nobody was logged out: the session refreshes and works.
    const again = await app.request('refreshToken', { body: { refreshToken: refreshed.body.data.refreshToken } });
    expect(again.status).toBe(200);
    expect((await app.request('me', { token: again.body.data.token })).status).toBe(200);
    // A token signed with the retired key, for that live session, is refused.
    const { sid } = JSON.parse(Buffer.from(String(again.body.data.token).split('.')[1]!, 'base64url').toString()) as { sid: string };
    const identity = {
      userId: admin.user.id,
      username: 'admin',
      role: 'ADMIN' as const,
      tenantId,
      shopId: admin.user.shopId,
      sessionId: sid,
      amr: ['pwd' as const],
      authTime: 1_700_000_000,
    };
    const forged = await signAccessToken(
      oldKeys,
      { issuer: deps.config.issuer, audience: deps.config.accessTokenAudience, ttlSeconds: 900 },
      identity,
      'forged',
      epochSeconds(deps.clock),
    );
    expect((await app.request('me', { token: forged.token })).status).toBe(401);
  });
});

describe("operators' runbook: client-secret pepper rotation (new pepper, clients still work, old pepper removed)", () => {
  it('documents a wait that covers the refresh of every instance', () => {
    const [learn] = waits('Client-secret pepper rotation');
    expect(learn).toBeGreaterThanOrEqual(2 * PEPPER_REFRESH_SECONDS);
  });

  it('keeps every client that authenticates working, and drops the old pepper', async () => {
    const deps = nearRealTime(await testDeps());
    const { keys, pepper, app } = localStack(deps);
    const [learn] = waits('Client-secret pepper rotation') as [number];
    await rotate(signingKeysDocument, keys, 'add', 'k1', quiet);
    const tenantId = uniqueTenant('runbook');
    const admin = await registerAdmin(app, tenantId);
    const register = async () => {
      const client = { id: `runbook-${newSecret().slice(0, 8)}`, secret: newSecret() };
      const body = {
        client_id: client.id,
        client_secret: client.secret,
        redirect_uri: 'https://app.example.com/cb',
        grant_types: 'client_credentials',
        scope: 'orders:read',
        tenant_id: tenantId,
      };
      expect((await app.request('createOAuth2Client', { token: admin.token, body })).status).toBe(201);
      return client;
    };
    const token = async (client: { id: string; secret: string }) => {
      const request = form({ grant_type: 'client_credentials', scope: 'orders:read' });
      return (
        await app.request('oauth2Token', { ...request, headers: { ...request.headers, authorization: basic(client.id, client.secret) } })
      ).status;
    };
    const active = await register();
    const idle = await register();
    expect(await token(active)).toBe(200);
    const [original] = (await showPeppers(pepper)).map((line) => line.split(' ')[0]!);
    const hashOf = async (clientId: string) => (await deps.store.oauthClients.find(clientId))?.secretHash;
    expect(await hashOf(active.id)).toMatch(new RegExp(`^hmac-sha256\\$${original}\\$`));

    // 1. a new pepper every instance learns
    await rotate(peppersDocument('base64url'), pepper, 'add', 'pepper-2', quiet);
    deps.clock.advance(learn);
    expect(await token(active)).toBe(200);

    // 2. make it current: the next authentication rewrites the hash
    await rotate(peppersDocument('base64url'), pepper, 'activate', 'pepper-2', quiet);
    deps.clock.advance(learn);
    expect(await token(active)).toBe(200);
    deps.clock.advance(60);
    expect(await hashOf(active.id)).toMatch(/^hmac-sha256\$pepper-2\$/);
    expect(await hashOf(idle.id)).toMatch(new RegExp(`^hmac-sha256\\$${original}\\$`));

    // 3. retire the old pepper: the client that authenticated still works, the idle one does not (the runbook)
    await rotate(peppersDocument('base64url'), pepper, 'retire', original!, quiet);
    deps.clock.advance(learn);
    expect(await token(active)).toBe(200);
    expect(await token(idle)).toBe(401);
    expect(await showPeppers(pepper)).toEqual(['pepper-2 (current)']);
  });
});

async function showPeppers(location: ReturnType<typeof fileLocation>): Promise<string[]> {
  const lines: string[] = [];
  await rotate(peppersDocument('base64url'), location, 'show', undefined, (line) => lines.push(...line.split('\n')));
  return lines;
}
