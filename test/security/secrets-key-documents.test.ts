import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileDataKeys } from '../../lib/mfa/file-data-keys';
import { secretBox } from '../../lib/mfa/secret-box';
import { clientSecretHasherFor } from '../../lib/oauth/client-secret';
import type { SecretsClient } from '../../lib/secrets/location';
import { KEYS_REFRESH_SECONDS, secretsManagerKeyProvider, secretsManagerPublicKeyProvider } from '../../lib/tokens/secrets-manager-keys';
import { fileKeyProvider, filePublicKeyProvider, generateSigningKey } from '../../lib/tokens/signing-keys';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { noSecretsManager, noSecretWrites, type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { newTotpSecret } from '../helpers/mfa';
import { basic, form } from '../helpers/oauth';
import { captureOutput } from '../helpers/secret-search';

/**
 * V8's JSON.parse error quotes about ten characters either side of the
 * fault, so a malformed key document put fragments of private keys into
 * `signing_keys_refresh_failed`, `authorizer_failed` and `unhandled_error`. Every secret
 * document (signing keys from Secrets Manager or a file, the MFA key file, the
 * client-secret pepper) is broken next to its key material, run through the functions
 * that read it, and every log line and all output is searched for any 8 characters of it.
 */
const dir = mkdtempSync(join(tmpdir(), 'malformed-'));
const FRAGMENT = 8;

/** Whether any FRAGMENT-character piece of `secret` appears in `text`. */
function fragmentsIn(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let at = 0; at + FRAGMENT <= secret.length; at++) {
    const piece = secret.slice(at, at + FRAGMENT);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

/** Two ways a hand-edited JSON document goes wrong right at its key material (V8 quotes both). */
const breakings = [
  ['unquoted', (json: string, secret: string) => json.replace(`"${secret}"`, secret)],
  ['a stray character before it', (json: string, secret: string) => json.replace(`"${secret}"`, `x"${secret}"`)],
] as const;

function secretsManager(text: () => string): SecretsClient {
  return {
    getSecretValue: async () => ({ SecretString: text(), VersionId: 'v1' }),
    send: noSecretWrites,
  };
}

interface Case {
  /** The key material that must not appear. */
  secret: string;
  /** Runs the functions that read the broken document; returns the events that must have been logged. */
  run(deps: TestDeps): Promise<string[]>;
}

const signingKeyDocument = async () => {
  const key = await generateSigningKey('k1');
  return { key, secret: String(key.d), json: JSON.stringify({ activeKid: 'k1', keys: [key] }) };
};

const cases: Array<[string, (breaking: (json: string, secret: string) => string) => Promise<Case>]> = [
  [
    'signing keys from Secrets Manager, at cold start',
    async (breaking) => {
      const { secret, json } = await signingKeyDocument();
      return {
        secret,
        async run(deps) {
          deps.keys = secretsManagerKeyProvider(
            secretsManager(() => breaking(json, secret)),
            'keys',
            deps.clock,
            deps.log,
          );
          // jwks and the authorizer read the public keys: the same broken text there.
          deps.publicKeys = secretsManagerPublicKeyProvider(
            secretsManager(() => breaking(json, secret)),
            'keys-public',
            deps.clock,
            deps.log,
          );
          const app = testApp(deps);
          expect((await app.request('jwks')).status).toBe(500);
          expect((await app.request('me', { token: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })).status).toBe(503);
          return ['unhandled_error', 'authorizer_failed'];
        },
      };
    },
  ],
  [
    'signing keys from Secrets Manager, at a background refresh',
    async (breaking) => {
      const { secret, json } = await signingKeyDocument();
      let text = json;
      return {
        secret,
        async run(deps) {
          deps.keys = secretsManagerKeyProvider(
            secretsManager(() => text),
            'keys',
            deps.clock,
            deps.log,
          );
          expect((await deps.keys.load()).kid).toBe('k1');
          text = breaking(json, secret);
          deps.clock.advance(KEYS_REFRESH_SECONDS);
          await deps.keys.load();
          await vi.waitFor(() => expect(deps.logs.some((line) => String(line.event).startsWith('signing_keys_'))).toBe(true));
          return [];
        },
      };
    },
  ],
  [
    'the signing keys file',
    async (breaking) => {
      const { secret, json } = await signingKeyDocument();
      const path = join(dir, `keys-${randomBytes(4).toString('hex')}.json`);
      writeFileSync(path, breaking(json, secret));
      return {
        secret,
        async run(deps) {
          deps.keys = fileKeyProvider(path);
          // jwks reads the public keys: the same broken file there.
          deps.publicKeys = filePublicKeyProvider(path);
          expect((await testApp(deps).request('jwks')).status).toBe(500);
          return ['unhandled_error'];
        },
      };
    },
  ],
  [
    'the MFA key file',
    async (breaking) => {
      const secret = randomBytes(32).toString('base64url');
      const path = join(dir, `mfa-${randomBytes(4).toString('hex')}.json`);
      writeFileSync(path, breaking(JSON.stringify({ current: 'local1', keys: { local1: secret } }), secret));
      return {
        secret,
        async run(deps) {
          const admin = await registerAdmin(testApp(deps), uniqueTenant('malformed'));
          deps.mfaSecrets = secretBox(fileDataKeys(path));
          const response = await testApp(deps).request('enableMFA', {
            token: admin.token,
            body: { method: 'TOTP', secret: newTotpSecret() },
          });
          expect(response.status).toBe(500);
          return ['unhandled_error'];
        },
      };
    },
  ],
  [
    'the client-secret pepper file',
    async (breaking) => {
      const secret = randomBytes(32).toString('base64url');
      const path = join(dir, `pepper-${randomBytes(4).toString('hex')}`);
      writeFileSync(path, breaking(JSON.stringify({ current: 'p1', peppers: { p1: secret } }), secret));
      return {
        secret,
        async run(deps) {
          deps.clientSecretHasher = clientSecretHasherFor({ source: 'file', path }, noSecretsManager);
          const request = form({ grant_type: 'client_credentials' });
          const response = await testApp(deps).request('oauth2Token', {
            ...request,
            headers: { ...request.headers, authorization: basic('some-client', 'x'.repeat(40)) },
          });
          expect(response.status).toBe(500);
          return ['unhandled_error'];
        },
      };
    },
  ],
  [
    'the client-secret pepper from Secrets Manager',
    async (breaking) => {
      const secret = randomBytes(32).toString('base64url');
      const text = breaking(JSON.stringify({ current: 'p1', peppers: { p1: secret } }), secret);
      return {
        secret,
        async run(deps) {
          deps.clientSecretHasher = clientSecretHasherFor(
            { source: 'secretsmanager', secretId: 'pepper', region: 'eu-west-1' },
            secretsManager(() => text),
          );
          const request = form({ grant_type: 'client_credentials' });
          const response = await testApp(deps).request('oauth2Token', {
            ...request,
            headers: { ...request.headers, authorization: basic('some-client', 'x'.repeat(40)) },
          });
          expect(response.status).toBe(500);
          return ['unhandled_error'];
        },
      };
    },
  ],
];

describe('secrets in the logs of malformed key documents', () => {
  let output: ReturnType<typeof captureOutput>;
  beforeAll(() => {
    output = captureOutput();
  });
  afterAll(() => output?.stop());

  describe.each(breakings)('a document broken by %s key material', (_, breaking) => {
    it.each(cases)('%s: logs the failure, with no 8 characters of the key material', async (__, make) => {
      const { secret, run } = await make(breaking);
      const deps = nearRealTime(await testDeps());
      const events = await run(deps);
      for (const event of events) expect(deps.logs.map((line) => line.event)).toContain(event);
      const errors = deps.logs.filter((line) => line.level === 'error');
      expect(errors.length).toBeGreaterThan(0);
      expect(fragmentsIn(deps.logText(), secret)).toEqual([]);
      expect(fragmentsIn(output.text(), secret)).toEqual([]);
      // The search finds what is there.
      expect(fragmentsIn(`..${secret.slice(3, 3 + FRAGMENT)}..`, secret)).toHaveLength(1);
    });
  });
});
