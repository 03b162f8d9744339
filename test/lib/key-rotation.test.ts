import { describe, expect, it, vi } from 'vitest';
import { makeHandler as makeAuthorizer } from '../../functions/authorizer';
import { createLogger } from '../../lib/log';
import type { SecretsClient } from '../../lib/secrets/location';
import { activateKey, addKey, describeKeys, retireKey } from '../../lib/tokens/key-rotation';
import {
  KEYS_MAX_AGE_SECONDS,
  KEYS_REFRESH_SECONDS,
  KEYS_RETRY_SECONDS,
  secretsManagerKeyProvider,
} from '../../lib/tokens/secrets-manager-keys';
import type { SigningKeysDocument } from '../../lib/tokens/signing-keys';
import { noSecretWrites, testClock, testDeps } from '../helpers/deps';

describe('signing key rotation', () => {
  it('publishes a new key, then signs with it, then retires the old one', async () => {
    const first = await addKey(undefined, 'k1');
    expect(first.activeKid).toBe('k1');
    const published = await addKey(first, 'k2');
    expect([published.activeKid, published.keys.map((k) => k.kid)]).toEqual(['k1', ['k1', 'k2']]);
    const active = activateKey(published, 'k2');
    expect(active.activeKid).toBe('k2');
    const retired = retireKey(active, 'k1');
    expect([retired.activeKid, retired.keys.map((k) => k.kid)]).toEqual(['k2', ['k2']]);
    expect(describeKeys(retired)).toBe('k2 (active)');
  });

  it('refuses to retire the active key, or to touch keys that do not exist', async () => {
    const document = await addKey(undefined, 'k1');
    expect(() => retireKey(document, 'k1')).toThrow('Key k1 is the active key: activate another one first');
    expect(() => activateKey(document, 'nope')).toThrow('No key nope to activate');
    await expect(addKey(document, 'k1')).rejects.toThrow('A key k1 exists already');
  });

  it('never shows key material', async () => {
    const document = await addKey(undefined, 'k1');
    expect(describeKeys(document)).not.toContain(String(document.keys[0]?.d));
  });
});

describe('secretsManagerKeyProvider', () => {
  /** Secrets Manager cannot be reached from here: a fake client at the edge. */
  function fakeSecrets(document: SigningKeysDocument) {
    const state = { document, reads: 0, fail: false };
    const client: SecretsClient = {
      getSecretValue: async () => {
        state.reads++;
        if (state.fail) throw new Error('network down');
        return { SecretString: JSON.stringify(state.document), VersionId: undefined };
      },
      send: noSecretWrites,
    };
    return { client, state };
  }

  it('reads the keys once, then again in the background after the refresh period, keeping the old ones if the read fails', async () => {
    const clock = testClock();
    const { client, state } = fakeSecrets(await addKey(undefined, 'k1'));
    const provider = secretsManagerKeyProvider(
      client,
      'secret',
      clock,
      createLogger('error', () => {}),
    );
    expect((await provider.load()).kid).toBe('k1');
    await provider.load();
    expect(state.reads).toBe(1);

    state.document = activateKey(await addKey(state.document, 'k2'), 'k2');
    clock.advance(KEYS_REFRESH_SECONDS);
    // The request that finds the keys stale is served with them and starts the read.
    expect((await provider.load()).kid).toBe('k1');
    await vi.waitFor(async () => expect((await provider.load()).jwks.keys.map((k) => k.kid)).toEqual(['k1', 'k2']));
    expect((await provider.load()).kid).toBe('k2');
    expect(state.reads).toBe(2);

    state.fail = true;
    clock.advance(KEYS_REFRESH_SECONDS);
    expect((await provider.load()).kid).toBe('k2');
    await vi.waitFor(() => expect(state.reads).toBe(3));
    // A failed read is tried again after KEYS_RETRY_SECONDS, not at every request.
    for (let i = 0; i < 5; i++) expect((await provider.load()).kid).toBe('k2');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.reads).toBe(3);
    clock.advance(KEYS_RETRY_SECONDS);
    await provider.load();
    await vi.waitFor(() => expect(state.reads).toBe(4));

    // An instance idle for two refresh periods may have missed a published key: it waits for the read.
    state.fail = false;
    state.document = activateKey(await addKey(state.document, 'k3'), 'k3');
    clock.advance(2 * KEYS_REFRESH_SECONDS);
    expect((await provider.load()).kid).toBe('k3');
  });

  it('trusts keys it could not refresh for KEYS_MAX_AGE_SECONDS only, then fails closed (503, authorizer unavailable), and recovers', async () => {
    expect(KEYS_MAX_AGE_SECONDS).toBe(1800);
    const deps = await testDeps();
    const { client, state } = fakeSecrets(await addKey(undefined, 'k1'));
    deps.keys = secretsManagerKeyProvider(client, 'secret', deps.clock, deps.log);
    // The authorizer reads the public keys, here through the same provider.
    deps.publicKeys = deps.keys;
    const authorizer = makeAuthorizer(deps);
    const event = { headers: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln' }, requestContext: { requestId: 'r' } } as never;
    expect((await deps.keys.load()).kid).toBe('k1');
    expect(await authorizer(event)).toEqual({ isAuthorized: true, context: {} });

    state.fail = true;
    // Requests keep coming (the instance is not idle); every read fails.
    for (let elapsed = 0; elapsed + KEYS_RETRY_SECONDS < KEYS_MAX_AGE_SECONDS; elapsed += KEYS_RETRY_SECONDS) {
      deps.clock.advance(KEYS_RETRY_SECONDS);
      expect((await deps.keys.load()).kid).toBe('k1');
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    deps.clock.advance(KEYS_RETRY_SECONDS);
    await expect(deps.keys.load()).rejects.toMatchObject({ statusCode: 503, message: 'Service unavailable' });
    expect(await authorizer(event)).toEqual({ isAuthorized: true, context: { authError: 'unavailable' } });
    expect(deps.logs).toContainEqual(expect.objectContaining({ level: 'error', event: 'signing_keys_expired' }));
    // Within the retry period, no new read: failing closed does not hammer Secrets Manager.
    const reads = state.reads;
    await expect(deps.keys.load()).rejects.toMatchObject({ statusCode: 503 });
    expect(state.reads).toBe(reads);

    state.fail = false;
    deps.clock.advance(KEYS_RETRY_SECONDS);
    expect((await deps.keys.load()).kid).toBe('k1');
    expect(await authorizer(event)).toEqual({ isAuthorized: true, context: {} });
  });

  it('fails clearly when the secret holds no keys', async () => {
    const { client } = fakeSecrets({ activeKid: '', keys: [] });
    const lines: string[] = [];
    const provider = secretsManagerKeyProvider(
      client,
      'identity/keys',
      testClock(),
      createLogger('error', (line) => lines.push(line)),
    );
    await expect(provider.load()).rejects.toThrow('Secret identity/keys holds no signing keys: run scripts/rotate-signing-key add');
    // Counted as a refused document: the signing-keys alarm tells the operator (docs/guides/operators.md, First deploy).
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        event: 'signing_keys_rejected',
        reason: 'Secret identity/keys holds no signing keys: run scripts/rotate-signing-key add',
      }),
    ]);
  });
});
