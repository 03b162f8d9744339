import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, PutSecretValueCommand, UpdateSecretVersionStageCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { clientSecretHasher, parsePeppers } from '../../lib/oauth/client-secret';
import {
  ConcurrentChangeError,
  fileLocation,
  type SecretLocation,
  type SecretsClient,
  sdkSecretsClient,
  secretsManagerLocation,
} from '../../lib/secrets/location';
import { addKey } from '../../lib/tokens/key-rotation';
import { peppersDocument, rotate, signingKeysDocument } from '../../scripts/lib/rotation';

/**
 * `npm run keys` wrote the secret without a version check (two
 * operators could lose each other's change) and overwrote a local key file it could not
 * read with a fresh one (every key in it lost).
 */

/** Secrets Manager's versions and staging labels, as far as the tool uses them. */
function fakeSecretsManager(initial: string) {
  const versions = new Map<string, { text: string; stages: Set<string> }>([['v0', { text: initial, stages: new Set(['AWSCURRENT']) }]]);
  const holder = (stage: string) => [...versions].find(([, version]) => version.stages.has(stage))?.[0];
  const client: SecretsClient = sdkSecretsClient({
    send: async (command: unknown) => {
      if (command instanceof GetSecretValueCommand) {
        const id = holder('AWSCURRENT')!;
        return { SecretString: versions.get(id)!.text, VersionId: id };
      }
      if (command instanceof PutSecretValueCommand) {
        const id = command.input.ClientRequestToken ?? randomUUID();
        for (const stage of command.input.VersionStages ?? ['AWSCURRENT'])
          for (const version of versions.values()) version.stages.delete(stage);
        versions.set(id, { text: command.input.SecretString!, stages: new Set(command.input.VersionStages ?? ['AWSCURRENT']) });
        return { VersionId: id };
      }
      if (command instanceof UpdateSecretVersionStageCommand) {
        const { VersionStage, MoveToVersionId, RemoveFromVersionId } = command.input;
        const attached = holder(VersionStage!);
        if (attached !== undefined && attached !== RemoveFromVersionId) {
          throw Object.assign(new Error(`The staging label ${VersionStage} is attached to another version`), {
            name: 'InvalidParameterException',
          });
        }
        if (attached) versions.get(attached)!.stages.delete(VersionStage!);
        versions.get(MoveToVersionId!)!.stages.add(VersionStage!);
        return {};
      }
      throw new Error('unexpected command');
    },
  } as never);
  return { client, current: () => versions.get(holder('AWSCURRENT')!)!.text };
}

/** A location where, between the first read and its write, another operator does `meanwhile`. */
function racing(location: SecretLocation, meanwhile: () => Promise<void>): SecretLocation {
  let raced = false;
  return {
    ...location,
    async read() {
      const read = await location.read();
      if (!raced) {
        raced = true;
        await meanwhile();
      }
      return read;
    },
  };
}

const kids = (text: string) => (JSON.parse(text) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
const quiet = () => undefined;

describe('npm run keys: writes with a version check', () => {
  it('refuses to write the secret when another operator changed it since it was read, and loses nothing', async () => {
    const sm = fakeSecretsManager(JSON.stringify(await addKey(undefined, 'k1')));
    const secret = secretsManagerLocation(sm.client, 'identity-service/prod/signing-keys');
    const first = racing(secret, () => rotate(signingKeysDocument, secret, 'add', 'k-other', quiet));
    await expect(rotate(signingKeysDocument, first, 'add', 'k-mine', quiet)).rejects.toThrow(
      new ConcurrentChangeError(
        'The secret identity-service/prod/signing-keys changed since it was read: nothing was changed, run the command again',
      ),
    );
    expect(kids(sm.current())).toEqual(['k1', 'k-other']);
    // Run again: it now builds on the other operator's change.
    await rotate(signingKeysDocument, secret, 'add', 'k-mine', quiet);
    expect(kids(sm.current())).toEqual(['k1', 'k-other', 'k-mine']);
  });

  it('refuses to write the local file when it changed since it was read', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'keys-')), 'signing-keys.json');
    const file = fileLocation(path);
    await rotate(signingKeysDocument, file, 'add', 'k1', quiet);
    const first = racing(file, () => rotate(signingKeysDocument, file, 'add', 'k-other', quiet));
    await expect(rotate(signingKeysDocument, first, 'add', 'k-mine', quiet)).rejects.toThrow(ConcurrentChangeError);
    expect(kids(readFileSync(path, 'utf8'))).toEqual(['k1', 'k-other']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('npm run keys: never overwrites what it cannot read', () => {
  it.each([
    ['not JSON', '{"activeKid":"k1","keys":[{"kid":"k1","d":'],
    ['JSON that is no keys document', '[1, 2, 3]'],
    ['a key that fails validation', JSON.stringify({ activeKid: 'k1', keys: [{ kid: 'k1', kty: 'EC', crv: 'P-256' }] })],
  ])('refuses to change a local file holding %s, and leaves it as it was', async (_, content) => {
    const path = join(mkdtempSync(join(tmpdir(), 'keys-')), 'signing-keys.json');
    writeFileSync(path, content);
    for (const command of ['add', 'activate', 'retire']) {
      await expect(rotate(signingKeysDocument, fileLocation(path), command, 'k2', quiet)).rejects.toThrow(
        new RegExp(
          `^The file ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be used \\(.+\\): nothing was changed\\. Fix it, or move it away to start again\\.$`,
        ),
      );
    }
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('starts a new file when there is none, and prints key ids only', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'keys-')), 'nested', 'signing-keys.json');
    const printed: string[] = [];
    await rotate(signingKeysDocument, fileLocation(path), 'add', 'k1', (line) => printed.push(line));
    await rotate(signingKeysDocument, fileLocation(path), 'add', 'k2', (line) => printed.push(line));
    await rotate(signingKeysDocument, fileLocation(path), 'show', undefined, (line) => printed.push(line));
    expect(printed).toEqual(['k1 (active)', 'k1 (active)\nk2 (published)', 'k1 (active)\nk2 (published)']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('npm run keys --pepper: the client-secret peppers', () => {
  const hasherOf = (text: string, legacy: 'utf8' | 'base64url') => clientSecretHasher(async () => parsePeppers(text, legacy, 'test'));

  it.each([
    ['Secrets Manager (a generated string: its UTF-8 bytes)', 'utf8' as const, 'a'.repeat(20) + randomUUID().replace(/-/g, '')],
    ['the local file (one base64url line)', 'base64url' as const, `${randomBytes(32).toString('base64url')}\n`],
  ])('turns a plain value of %s into a document with the same key, named legacy', async (_, legacy, plain) => {
    const before = await hasherOf(plain, legacy).hash('a client secret');
    const sm = fakeSecretsManager(plain);
    const location =
      legacy === 'utf8'
        ? secretsManagerLocation(sm.client, 'pepper')
        : fileLocation(join(mkdtempSync(join(tmpdir(), 'pepper-')), 'pepper'));
    if (legacy === 'base64url') await location.write(plain, undefined);
    const printed: string[] = [];
    await rotate(peppersDocument(legacy), location, 'add', 'p2', (line) => printed.push(line));
    expect(printed).toEqual(['legacy (current)\np2 (verifies only)']);
    const text = (await location.read()).text!;
    expect(JSON.parse(text)).toEqual({ current: 'legacy', peppers: { legacy: expect.any(String), p2: expect.any(String) } });
    // One encoding in documents: the key's bytes in base64url, whatever the old value's encoding was.
    const key = Buffer.from(plain.trim(), legacy);
    expect((JSON.parse(text) as { peppers: Record<string, string> }).peppers.legacy).toBe(key.toString('base64url'));
    // The same key: what the old value hashed verifies, and is rehashed once p2 is current.
    expect(await hasherOf(text, legacy).check(before, 'a client secret')).toEqual({ matches: true });
    await rotate(peppersDocument(legacy), location, 'activate', 'p2', () => undefined);
    expect(await hasherOf((await location.read()).text!, legacy).check(before, 'a client secret')).toMatchObject({
      matches: true,
      rehashed: expect.stringMatching(/^hmac-sha256\$p2\$/),
    });
    await expect(rotate(peppersDocument(legacy), location, 'retire', 'p2', () => undefined)).rejects.toThrow(
      'Pepper p2 is the current pepper: activate another one first',
    );
    await rotate(peppersDocument(legacy), location, 'retire', 'legacy', (line) => printed.push(line));
    expect(printed.at(-1)).toBe('p2 (current)');
  });

  it('refuses to change a pepper file it cannot read', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pepper-')), 'pepper');
    writeFileSync(path, '{"current":"p1","peppers":{"p1":');
    await expect(rotate(peppersDocument('base64url'), fileLocation(path), 'add', 'p2', quiet)).rejects.toThrow(
      /cannot be used \(The client-secret pepper document in the pepper document is not valid JSON\): nothing was changed/,
    );
    expect(readFileSync(path, 'utf8')).toBe('{"current":"p1","peppers":{"p1":');
  });
});
