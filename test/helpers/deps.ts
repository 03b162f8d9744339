import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { deviceTokens } from '../../lib/abuse/device-token';
import { quotaDelivery } from '../../lib/abuse/send-quota';
import type { Clock } from '../../lib/clock';
import { readConfig } from '../../lib/config';
import { type Argon2Params, argon2idHasher } from '../../lib/crypto/password';
import { cryptoRandom } from '../../lib/crypto/random';
import { type Deps, dynamoStores } from '../../lib/deps';
import { createLogger } from '../../lib/log';
import { type MfaOutbox, outboxDelivery } from '../../lib/mfa/delivery';
import { secretBox } from '../../lib/mfa/secret-box';
import { clientSecretHasher, pepperLoader } from '../../lib/oauth/client-secret';
import { dpopNonces } from '../../lib/oauth/dpop-nonce';
import type { SecretsClient } from '../../lib/secrets/location';
import { createDynamo, type Dynamo } from '../../lib/store/dynamo';
import { dynamoMfaOutbox } from '../../lib/store/mfa';
import { cachedKeyProvider, generateKeySet, type KeySet } from '../../lib/tokens/signing-keys';
import { memoryDataKeys } from './memory-data-keys';

/** A clock tests move by hand: no sleeping for time to pass. */
export interface TestClock extends Clock {
  advance(seconds: number): void;
  set(ms: number): void;
}

/**
 * Starts at the current second: DynamoDB Local deletes items whose TTL has passed in
 * real time, so records a test writes must not be born in the past.
 */
export function testClock(start = Math.floor(Date.now() / 1000) * 1000): TestClock {
  let now = start;
  return {
    now: () => now,
    advance: (seconds) => {
      now += seconds * 1000;
    },
    set: (ms) => {
      now = ms;
    },
  };
}

export interface TestDeps extends Deps {
  clock: TestClock;
  /** Every log line written, parsed. */
  logs: Array<Record<string, unknown>>;
  /** Every log line written, as text (for searching secrets). */
  logText: () => string;
  keySet: KeySet;
  /** Where SMS/EMAIL codes go in tests (the local outbox on DynamoDB Local). */
  outbox: MfaOutbox;
  /** The DynamoDB client of the stores and the outbox (tests watch its commands). */
  dynamo: Dynamo;
}

let sharedKeys: Promise<KeySet> | undefined;
/** The OAuth client-secret pepper document of this test file's deps: random per run, never a literal. */
const clientSecretPepper = JSON.stringify({ current: 'test-1', peppers: { 'test-1': cryptoRandom.token(32) } });

/** Tests reach no Secrets Manager: a pepper or key that would be read from it fails loudly. */
export const noSecretsManager: SecretsClient = {
  getSecretValue: async () => {
    throw new Error('Tests reach no AWS Secrets Manager: pass a fake client');
  },
  send: (async () => {
    throw new Error('Tests reach no AWS Secrets Manager: pass a fake client');
  }) as SecretsClient['send'],
};

/** A fake's `send`, for a test that reads only: any write fails the test. */
export const noSecretWrites = (async () => {
  throw new Error('unexpected write to Secrets Manager');
}) as SecretsClient['send'];

/**
 * Argon2id at its lowest sensible cost (1 MiB, one pass): still the real algorithm and the
 * real PHC strings, so every code path of hashing, verifying and rehashing runs, at a
 * fraction of the production cost. The cost is encoded in each stored hash, so verifying
 * needs no parameters.
 */
export const TEST_ARGON2ID: Argon2Params = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

export interface TestDepsOptions {
  /**
   * Hash as production does (`argon2idHasher()`, OWASP_ARGON2ID) instead of with
   * TEST_ARGON2ID: only for tests whose subject is hashing itself (its parameters, its timing).
   */
  productionHashing?: boolean;
  /**
   * Answer a forgotten password no sooner than production does (FORGOT_ANSWER_FLOOR_MS,
   * 400 ms) instead of at once: only for tests whose subject is that timing.
   */
  productionTiming?: boolean;
  /** On the project's table with its stream on (test/helpers/published-events.ts follows it). */
  streamed?: boolean;
}

/**
 * Real dependencies on the run's DynamoDB Local, with a test clock and captured logs;
 * passwords hashed with TEST_ARGON2ID unless `productionHashing` is asked for.
 */
export async function testDeps(env: Record<string, string> = {}, options: TestDepsOptions = {}): Promise<TestDeps> {
  const config = readConfig({
    TABLE_NAME: inject(options.streamed ? 'streamedTableName' : 'tableName'),
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    CORS_ALLOWED_ORIGINS: 'https://app.example.com',
    OAUTH_CLIENT_SECRET_PEPPER: clientSecretPepper,
    // The suite shares one table and reuses a few phone numbers across its tenants: the
    // service-wide and per-destination quotas are raised (test/abuse/ checks them).
    SEND_QUOTA_GLOBAL: '1000000',
    SEND_QUOTA_PER_DESTINATION: '1000',
    SEND_QUOTA_NEW_TENANTS: '1000000',
    SEND_QUOTA_PER_NEW_TENANT: '1000',
    // Every test request comes from the fixture's one address: the per-source limit of
    // failed logins is raised (test/abuse/lockout.test.ts checks it with addresses of its own).
    LOGIN_FAILURES_PER_SOURCE: '10000000',
    CLIENT_AUTH_FAILURES_PER_SOURCE: '10000000',
    ...env,
  });
  // With an RS256 key for the ID tokens of clients that ask for it (docs/api.md 11.4).
  sharedKeys ??= generateKeySet('test-key-1', 'test-rsa-1');
  const keySet = await sharedKeys;
  const lines: string[] = [];
  const parsed: Array<Readonly<Record<string, unknown>>> = [];
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const clock = testClock();
  const outbox = dynamoMfaOutbox(dynamo);
  const store = dynamoStores(dynamo, { random: cryptoRandom, clock });
  const peppers = pepperLoader(config.oauthClientSecretPepper, noSecretsManager);
  return {
    config,
    clock,
    random: cryptoRandom,
    log: createLogger('debug', (line) => lines.push(line)),
    store,
    hasher: options.productionHashing ? argon2idHasher() : argon2idHasher(TEST_ARGON2ID),
    keys: cachedKeyProvider(async () => keySet),
    // The same keys' public half (a KeySet is a PublicKeySet); test/security/secrets-key-documents.test.ts splits them.
    publicKeys: cachedKeyProvider(async () => keySet),
    keySet,
    // TOTP secrets sealed under an in-memory key; codes delivered to the outbox.
    mfaSecrets: secretBox(memoryDataKeys()),
    // As in production, behind the send quotas.
    mfaDelivery: quotaDelivery(outboxDelivery(outbox, clock), store.attempts, clock, config.sendQuotas, store.tenants),
    outbox,
    clientSecretHasher: clientSecretHasher(peppers),
    deviceTokens: deviceTokens(peppers, cryptoRandom),
    dpopNonces: dpopNonces(peppers),
    forgotAnswerFloorMs: options.productionTiming ? undefined : 0,
    get logs() {
      // Each line parsed once: tests read the log again and again as it grows.
      for (let next = parsed.length; next < lines.length; next++) parsed.push(Object.freeze(JSON.parse(lines[next] as string)));
      return [...parsed];
    },
    logText: () => lines.join('\n'),
    dynamo,
  };
}

/** A tenant id no other test uses, so tests share one table without seeing each other; canonical (docs/api.md 10.2). */
export function uniqueTenant(prefix = 'tenant'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}
