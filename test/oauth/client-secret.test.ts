import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { readConfig } from '../../lib/config';
import { createLogger } from '../../lib/log';
import { clientSecretHasher, clientSecretHasherFor, PEPPER_REFRESH_SECONDS } from '../../lib/oauth/client-secret';
import type { SecretsClient } from '../../lib/secrets/location';
import { noSecretsManager, noSecretWrites, testClock } from '../helpers/deps';
import { LAMBDA_SETTINGS } from '../helpers/lambda-env';
import { newSecret } from '../helpers/oauth';

/** Secrets Manager cannot be reached from here: a fake client at the edge, counting reads. */
function fakeSecrets(values: Record<string, string>) {
  const reads: string[] = [];
  const client: SecretsClient = {
    getSecretValue: async (id) => {
      reads.push(id);
      return { SecretString: values[id], VersionId: undefined };
    },
    send: noSecretWrites,
  };
  return { client, reads };
}

describe('client secret hashes', () => {
  const pepper = Buffer.alloc(32, 7);
  const peppers = (key: Buffer) => async () => ({ current: 'p1', keys: new Map([['p1', key]]) });
  it('verifies the right secret only, and nothing against a missing hash', async () => {
    const hasher = clientSecretHasher(peppers(pepper));
    const stored = await hasher.hash('s'.repeat(40));
    expect(stored).toMatch(/^hmac-sha256\$p1\$[A-Za-z0-9_-]{43}$/);
    expect(await hasher.check(stored, 's'.repeat(40))).toEqual({ matches: true });
    expect(await hasher.check(stored, 's'.repeat(41))).toEqual({ matches: false });
    expect(await hasher.check(undefined, 's'.repeat(40))).toEqual({ matches: false });
  });
  it('depends on the pepper: a copy of the table alone cannot check guesses', async () => {
    expect(await clientSecretHasher(peppers(pepper)).hash('secret')).not.toBe(
      await clientSecretHasher(peppers(Buffer.alloc(32, 8))).hash('secret'),
    );
  });
  it('generates a local pepper file once (mode 0600) and reuses it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pepper-')), 'sub', 'pepper');
    const first = clientSecretHasherFor({ source: 'file', path }, noSecretsManager);
    const stored = await first.hash('a secret');
    const content = readFileSync(path, 'utf8');
    const created = JSON.parse(content) as { current: string; peppers: Record<string, string> };
    expect(Buffer.from(created.peppers[created.current]!, 'base64url')).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = clientSecretHasherFor({ source: 'file', path }, noSecretsManager);
    expect(await second.check(stored, 'a secret')).toEqual({ matches: true });
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});

describe('the client-secret hasher port', () => {
  it('reads the pepper in AWS from its Secrets Manager secret once, at the first use', async () => {
    const aws = {
      AWS_LAMBDA_FUNCTION_NAME: 'f',
      ...LAMBDA_SETTINGS,
      AWS_REGION: 'eu-west-1',
      MFA_DELIVERY: 'aws',
      MFA_EMAIL_FROM: 'a@example.com',
      MFA_KEY_SOURCE: 'kms',
      KMS_KEY_ID: 'k',
    };
    const source = readConfig({ ...aws, OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: 'identity-service/prod/pepper' }).oauthClientSecretPepper;
    expect(source).toEqual({ source: 'secretsmanager', secretId: 'identity-service/prod/pepper', region: 'eu-west-1' });
    expect(
      readConfig({ OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: 'x', DYNAMODB_ENDPOINT: 'http://localhost:8000', AWS_LAMBDA_FUNCTION_NAME: 'f' })
        .oauthClientSecretPepper.source,
    ).toBe('file');

    const pepper = newSecret();
    const { client, reads } = fakeSecrets({ 'identity-service/prod/pepper': pepper });
    const hasher = clientSecretHasherFor(source, client);
    expect(reads).toEqual([]);
    const stored = await hasher.hash('a client secret');
    await hasher.check(stored, 'a client secret');
    expect(reads).toEqual(['identity-service/prod/pepper']);
    expect(stored).toBe(await clientSecretHasherFor({ source: 'env', value: pepper }, noSecretsManager).hash('a client secret'));

    const short = clientSecretHasherFor(
      { source: 'secretsmanager', secretId: 'short', region: 'eu-west-1' },
      fakeSecrets({ short: 'too short' }).client,
    );
    await expect(short.hash('x')).rejects.toThrow('The client-secret pepper in secret short is shorter than 32 characters');
  });

  it('tries a failed load again at the next use', async () => {
    let fail = true;
    const hasher = clientSecretHasher(async () => {
      if (fail) {
        fail = false;
        throw new Error('network down');
      }
      return { current: 'p1', keys: new Map([['p1', Buffer.alloc(32, 1)]]) };
    });
    await expect(hasher.hash('x')).rejects.toThrow('network down');
    expect(await hasher.hash('x')).toMatch(/^hmac-sha256\$p1\$/);
  });

  it('refuses every use when no pepper is configured', async () => {
    const hasher = clientSecretHasherFor({ source: 'missing' }, noSecretsManager);
    await expect(hasher.check('hmac-sha256$x', 'x')).rejects.toThrow('Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID');
  });
});

describe('client-secret pepper rotation', () => {
  const pepper = () => randomBytes(32);
  /** The pepper document: every live pepper by id (base64url), and the one new hashes use. */
  const document = (current: string, peppers: Record<string, Buffer>) =>
    JSON.stringify({ current, peppers: Object.fromEntries(Object.entries(peppers).map(([id, key]) => [id, key.toString('base64url')])) });
  const fromEnv = (text: string) => clientSecretHasherFor({ source: 'env', value: text }, noSecretsManager);

  it('stores the pepper id with each hash, and verifies under every live pepper', async () => {
    const [p1, p2] = [pepper(), pepper()];
    const before = fromEnv(document('p1', { p1 }));
    const stored = await before.hash('a client secret');
    expect(stored).toMatch(/^hmac-sha256\$p1\$[A-Za-z0-9_-]{43}$/);
    const after = fromEnv(document('p2', { p1, p2 }));
    expect(await after.hash('a client secret')).toMatch(/^hmac-sha256\$p2\$[A-Za-z0-9_-]{43}$/);
    expect(await after.check(stored, 'a client secret')).toEqual({ matches: true, rehashed: await after.hash('a client secret') });
    expect(await after.check(stored, 'another secret')).toEqual({ matches: false });
    expect(await after.check(await after.hash('a client secret'), 'a client secret')).toEqual({ matches: true });
    // Once p1 is retired, what only p1 made verifies no more.
    expect(await fromEnv(document('p2', { p2 })).check(stored, 'a client secret')).toEqual({ matches: false });
    expect(await fromEnv(document('p2', { p2 })).check(undefined, 'a client secret')).toEqual({ matches: false });
  });

  it('still verifies hashes without a pepper id (hmac-sha256$<mac>) with the pepper they were made with, and rehashes them', async () => {
    const legacy = 'a legacy pepper string of more than thirty-two characters';
    const old = `hmac-sha256$${createHmac('sha256', Buffer.from(legacy, 'utf8')).update('a client secret', 'utf8').digest('base64url')}`;
    // The configuration as it was: a plain string is the pepper named `legacy`.
    const unchanged = fromEnv(legacy);
    expect(await unchanged.check(old, 'a client secret')).toEqual({ matches: true, rehashed: await unchanged.hash('a client secret') });
    expect(await unchanged.hash('x')).toMatch(/^hmac-sha256\$legacy\$/);
    // After a rotation the old hashes verify with the pepper named legacy, not the current one.
    const rotated = fromEnv(document('p2', { legacy: Buffer.from(legacy, 'utf8'), p2: pepper() }));
    expect(await rotated.check(old, 'a client secret')).toMatchObject({
      matches: true,
      rehashed: expect.stringMatching(/^hmac-sha256\$p2\$/),
    });
    expect(await rotated.check(old, 'another secret')).toEqual({ matches: false });
  });

  it('reads one pepper document the same from every source: the environment, Secrets Manager and the local file', async () => {
    const p1 = pepper();
    const text = document('p1', { p1 });
    const path = join(mkdtempSync(join(tmpdir(), 'pepper-')), 'pepper');
    writeFileSync(path, text);
    const hashes = await Promise.all(
      [
        fromEnv(text),
        clientSecretHasherFor({ source: 'secretsmanager', secretId: 'pepper', region: 'eu-west-1' }, fakeSecrets({ pepper: text }).client),
        clientSecretHasherFor({ source: 'file', path }, noSecretsManager),
      ].map((hasher) => hasher.hash('a client secret')),
    );
    expect(new Set(hashes).size).toBe(1);
    expect(hashes[0]).toBe(`hmac-sha256$p1$${createHmac('sha256', p1).update('a client secret', 'utf8').digest('base64url')}`);
  });

  it('generates a new local pepper file as a document (base64url, 256 bits), and reads an old one-line file as before', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pepper-')), 'pepper');
    await clientSecretHasherFor({ source: 'file', path }, noSecretsManager).hash('x');
    const created = JSON.parse(readFileSync(path, 'utf8')) as { current: string; peppers: Record<string, string> };
    expect(Buffer.from(created.peppers[created.current]!, 'base64url')).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const oldFile = join(mkdtempSync(join(tmpdir(), 'pepper-')), 'pepper');
    const key = pepper();
    writeFileSync(oldFile, `${key.toString('base64url')}\n`);
    const made = `hmac-sha256$${createHmac('sha256', key).update('s', 'utf8').digest('base64url')}`;
    expect(await clientSecretHasherFor({ source: 'file', path: oldFile }, noSecretsManager).check(made, 's')).toMatchObject({
      matches: true,
    });
    expect(readFileSync(oldFile, 'utf8')).toBe(`${key.toString('base64url')}\n`);
  });

  it('reads the peppers again every 5 minutes, so a warm instance learns a new pepper and forgets a retired one', async () => {
    const [p1, p2] = [pepper(), pepper()];
    const secret = { pepper: document('p1', { p1 }) };
    const { client, reads } = fakeSecrets(secret);
    const clock = testClock();
    const log = createLogger('error', () => undefined);
    const hasher = clientSecretHasherFor({ source: 'secretsmanager', secretId: 'pepper', region: 'eu-west-1' }, client, { clock, log });
    const underP1 = await hasher.hash('s');
    secret.pepper = document('p2', { p1, p2 });
    clock.advance(PEPPER_REFRESH_SECONDS);
    await hasher.hash('s');
    await vi.waitFor(async () => expect(await hasher.hash('s')).toMatch(/^hmac-sha256\$p2\$/));
    expect(await hasher.check(underP1, 's')).toMatchObject({ matches: true });
    secret.pepper = document('p2', { p2 });
    clock.advance(PEPPER_REFRESH_SECONDS);
    await hasher.hash('s');
    await vi.waitFor(async () => expect(await hasher.check(underP1, 's')).toEqual({ matches: false }));
    expect(reads).toHaveLength(3);
  });

  it.each([
    [
      'a current pepper that is not among them',
      { current: 'p9', peppers: { p1: 'A'.repeat(43) } },
      'Client-secret peppers: the current pepper is not among them',
    ],
    ['a pepper under 256 bits', { current: 'p1', peppers: { p1: 'A'.repeat(40) } }, 'Client-secret pepper p1 is shorter than 256 bits'],
    [
      'an id with a $',
      { current: 'p$1', peppers: { p$1: 'A'.repeat(43) } },
      'Client-secret peppers: ids are 1 to 64 letters, digits, _ or -',
    ],
    ['no peppers', { current: 'p1' }, 'Client-secret peppers: the document must be { current, peppers: { <id>: <base64url> } }'],
  ])('refuses a document with %s, without quoting it', async (_, value, message) => {
    await expect(fromEnv(JSON.stringify(value)).hash('x')).rejects.toThrow(message);
  });
});
