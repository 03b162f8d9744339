import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { publicKeysPath, readConfig } from '../../lib/config';
import { fileLocation } from '../../lib/secrets/location';
import {
  cachedKeyProvider,
  ensureKeysFile,
  filePublicKeyProvider,
  generateSigningKey,
  keySetFromDocument,
  parsePublicKeys,
  parseSigningKeys,
  publicKeySetFromDocument,
  publicKeysOf,
  type SigningKeysDocument,
} from '../../lib/tokens/signing-keys';
import { rotate, signingKeysDocument, withPublicKeys } from '../../scripts/lib/rotation';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { oauthTenant, type TestClient, tokenRequest } from '../helpers/oauth';

/**
 * The functions that only verify tokens (the authorizer, jwks, revoke,
 * introspect) read the public keys document and never load the private keys; `npm run
 * keys` writes that document beside the keys at every step. The IAM side (no verifying
 * role can read the private secret) is test/deploy/package.test.ts.
 */
const dir = mkdtempSync(join(tmpdir(), 'verify-only-'));
const quiet = () => undefined;

describe('verify-only functions with the public keys alone', () => {
  let signer: App;
  let verifier: App;
  let deps: TestDeps;
  let session: string;
  let client: TestClient;
  beforeAll(async () => {
    deps = await testDeps();
    const document: SigningKeysDocument = { activeKid: 'split-1', keys: [await generateSigningKey('split-1')] };
    const keySet = await keySetFromDocument(document);
    const publicSet = publicKeySetFromDocument(publicKeysOf(document));
    signer = testApp({ ...deps, keys: cachedKeyProvider(async () => keySet), publicKeys: { load: async () => publicSet } });
    // Loading the private keys here fails the test: the verifiers must not need them.
    const noPrivateKeys = {
      load: async (): Promise<never> => {
        throw new Error('a verify-only function loaded the private signing keys');
      },
    };
    verifier = testApp({ ...deps, keys: noPrivateKeys, publicKeys: { load: async () => publicSet } });
    session = (await registerAdmin(signer, uniqueTenant('split'))).token;
    client = (await oauthTenant(signer)).client;
  });

  it('the authorizer accepts a session token, jwks serves the keys without d', async () => {
    expect((await verifier.request('me', { token: session })).status).toBe(200);
    const jwks = await verifier.request('jwks');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toEqual([expect.objectContaining({ kid: 'split-1', kty: 'EC', crv: 'P-256' })]);
    expect(jwks.body.keys[0]).not.toHaveProperty('d');
  });

  it('introspect and revoke verify an access token', async () => {
    const issued = await signer.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }));
    const token = issued.body.access_token as string;
    const introspected = await verifier.request('introspect', tokenRequest(client, { token }));
    expect(introspected.body).toMatchObject({ active: true, client_id: client.clientId });
    expect((await verifier.request('revoke', tokenRequest(client, { token }))).status).toBe(200);
    expect((await verifier.request('introspect', tokenRequest(client, { token }))).body).toEqual({ active: false });
  });
});

describe('the public keys document', () => {
  it('is written by every step of npm run keys, first, with the public parts only', async () => {
    const keysPath = join(dir, 'rotate-keys.json');
    const publicPath = publicKeysPath(keysPath);
    expect(publicPath).toBe(join(dir, 'rotate-keys.public.json'));
    const location = withPublicKeys(fileLocation(keysPath), fileLocation(publicPath));
    const published = () => parsePublicKeys(readFileSync(publicPath, 'utf8')).keys.map((key) => key.kid);
    await rotate(signingKeysDocument, location, 'add', 'k1', quiet);
    expect(published()).toEqual(['k1']);
    await rotate(signingKeysDocument, location, 'add', 'k2', quiet);
    await rotate(signingKeysDocument, location, 'activate', 'k2', quiet);
    expect(published()).toEqual(['k1', 'k2']);
    await rotate(signingKeysDocument, location, 'retire', 'k1', quiet);
    expect(published()).toEqual(['k2']);
    const text = readFileSync(publicPath, 'utf8');
    expect(JSON.parse(text)).toEqual(publicKeysOf(parseSigningKeys(readFileSync(keysPath, 'utf8'))));
    expect(text).not.toContain('"d"');
    // `publish` writes it again from the keys (a new deployment's empty secret, a lost file).
    writeFileSync(publicPath, '{"keys":[]}');
    await rotate(signingKeysDocument, location, 'publish', undefined, quiet);
    expect(published()).toEqual(['k2']);
  });

  it('refuses a document with private key material, so the private one pasted in its place never reaches a verifier', async () => {
    const deps = nearRealTime(await testDeps());
    const privateDocument = { activeKid: 'k', keys: [await generateSigningKey('k')] };
    expect(() => parsePublicKeys(JSON.stringify(privateDocument))).toThrow('Public key k holds private key material');
    const path = join(dir, 'pasted.public.json');
    writeFileSync(path, JSON.stringify({ keys: privateDocument.keys }));
    await expect(filePublicKeyProvider(path, deps.clock, deps.log).load()).rejects.toThrow('Public key k holds private key material');
    expect(deps.logs).toContainEqual(
      expect.objectContaining({ event: 'signing_keys_rejected', reason: 'Public key k holds private key material' }),
    );
    expect(deps.logText()).not.toContain(String(privateDocument.keys[0]!.d));
  });

  it('is created beside the local keys file, also for a keys file made before it existed', async () => {
    const keysPath = join(dir, 'local', 'signing-keys.json');
    expect(await ensureKeysFile(keysPath, 'local-1')).toBe('created');
    const publicPath = publicKeysPath(keysPath);
    expect(parsePublicKeys(readFileSync(publicPath, 'utf8')).keys.map((key) => key.kid)).toEqual(['local-1', 'local-1-rs256']);
    const older = join(dir, 'older-keys.json');
    writeFileSync(older, readFileSync(keysPath));
    expect(existsSync(publicKeysPath(older))).toBe(false);
    expect(await ensureKeysFile(older, 'unused')).toBe('exists');
    expect(parsePublicKeys(readFileSync(publicKeysPath(older), 'utf8')).keys.map((key) => key.kid)).toEqual(['local-1', 'local-1-rs256']);
  });

  it('is configured beside the keys: the file .public.json, the secret <id>-public', () => {
    expect(readConfig({}).signingKeys).toEqual({
      source: 'file',
      path: '.data/signing-keys.json',
      publicPath: '.data/signing-keys.public.json',
    });
    expect(readConfig({ SIGNING_KEYS_SOURCE: 'secretsmanager', SIGNING_KEYS_SECRET_ID: 'identity/keys' }).signingKeys).toEqual({
      source: 'secretsmanager',
      secretId: 'identity/keys',
      publicSecretId: 'identity/keys-public',
    });
  });
});
