/**
 * Framework overhead per request: a function's whole middy chain (envelope, body
 * limit, identity, parsing, zod validation, reply) around a handler whose own work
 * is nothing, in a tight loop against an in-memory stub store. The bundles are the
 * ones in BENCH_FUNCTIONS_DIR (their `makeHandler` export), so this is the shipped
 * code. Prints JSON: microseconds per request, median of several rounds.
 */
import { performance } from 'node:perf_hooks';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { systemClock } from '../lib/clock';
import { readConfig } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import type { Deps } from '../lib/deps';
import { toAuthorizerContext } from '../lib/http/identity';
import { createLogger } from '../lib/log';
import { generateKeySet } from '../lib/tokens/signing-keys';
import { bundleFiles, lambdaContext, loadBundle, proxyEvent } from './adapter';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The error lines logged. A stub missing on a measured path can be an error the function
 * logs and survives (an audit event lost): measured, it would time the error's stack
 * rather than the path, so `time` refuses it.
 */
const loggedErrors: string[] = [];

/**
 * Deps whose store is an in-memory stub: nothing on the measured paths reaches a
 * database. Only the members those paths call exist; anything else throws.
 */
async function stubDeps(): Promise<Deps> {
  const keySet = await generateKeySet('overhead');
  const store = {
    // The source is under its limit, the account's attempt budget refuses: login stops
    // right after validation, before any hashing.
    attempts: {
      peek: async () => ({ allowed: true, remaining: Number.POSITIVE_INFINITY }),
      reserve: async () => ({ allowed: false, retryAfterSeconds: 60 }),
      clear: async () => undefined,
    },
    // An empty user table.
    users: { findByUsername: async () => undefined, findById: async () => undefined },
    // The refused sign-in's event (docs/events.md), written beside its audit event.
    events: { write: async () => undefined },
    audit: { record: async () => undefined },
  };
  const absent = (what: string) =>
    new Proxy(
      {},
      {
        get: (_target, name) => (typeof name === 'string' ? () => Promise.reject(new Error(`${what}.${name} is not stubbed`)) : undefined),
      },
    );
  const stubbed: Partial<Deps> = {
    config: readConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com' }),
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger('info', (line) => {
      if (line.startsWith('{"level":"error"')) loggedErrors.push(line);
    }),
    store: new Proxy(store, {
      get: (target, name: string) => (target as Record<string, unknown>)[name] ?? absent(`store.${name}`),
    }) as unknown as Deps['store'],
    hasher: absent('hasher') as Deps['hasher'],
    keys: { load: async () => keySet },
    // No device cookie on the measured requests: an unknown source.
    deviceTokens: { verify: async () => undefined, issue: () => Promise.reject(new Error('deviceTokens.issue is not stubbed')) },
    publicKeys: { load: async () => keySet } as Deps['publicKeys'],
  };
  // A dependency the measured paths start to use fails with its name (`npm run bench -- --smoke` in CI).
  return new Proxy(stubbed, {
    get: (target, name: string) => (target as Record<string, unknown>)[name] ?? absent(name),
  }) as Deps;
}

/** BENCH_SMOKE=1 (`npm run bench -- --smoke`): a few calls, to prove the stage runs; the figure means nothing. */
const smoke = process.env.BENCH_SMOKE === '1';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Microseconds per call of `handler` on fresh copies of `event` (copying not timed). */
async function time(handler: Handler, event: APIGatewayProxyEventV2, expectStatus: number): Promise<number> {
  const context = lambdaContext('overhead');
  const check = await handler(structuredClone(event), context);
  if (check.statusCode !== expectStatus) throw new Error(`expected ${expectStatus}, got ${check.statusCode}: ${check.body}`);
  if (loggedErrors.length > 0) throw new Error(`the measured path logged an error: ${loggedErrors[0]?.slice(0, 300)}`);
  const batch = smoke ? 100 : 10_000;
  const rounds: number[] = [];
  for (let round = 0; round < (smoke ? 3 : 7); round++) {
    const events = Array.from({ length: batch }, () => structuredClone(event));
    const start = performance.now();
    for (const copy of events) await handler(copy, context);
    rounds.push(((performance.now() - start) * 1000) / batch);
  }
  // The first rounds warm the JIT up.
  return median(rounds.slice(smoke ? 1 : 2));
}

async function main() {
  const dir = process.env.BENCH_FUNCTIONS_DIR;
  if (!dir) throw new Error('BENCH_FUNCTIONS_DIR is not set');
  const files = bundleFiles(dir);
  const load = async (bundle: string) => {
    const file = files.get(bundle);
    if (!file) throw new Error(`no bundle ${bundle} in ${dir}`);
    return (await loadBundle<{ makeHandler: (deps: Deps) => Handler }>(file)).makeHandler;
  };
  const deps = await stubDeps();

  const meEvent = proxyEvent({ method: 'GET', url: '/auth/me', headers: { host: 'api.example.com', 'user-agent': 'bench' }, body: '' });
  (meEvent.requestContext as unknown as { authorizer: unknown }).authorizer = {
    lambda: toAuthorizerContext({
      userId: 'u-1',
      username: 'alice',
      role: 'OPERATOR',
      tenantId: 'bench',
      shopId: 'shop-1',
      sessionId: 's-1',
      amr: ['pwd'],
      authTime: 1_700_000_000,
    }),
  };
  const loginEvent = proxyEvent({
    method: 'POST',
    url: '/auth/login',
    headers: { host: 'api.example.com', 'content-type': 'application/json', 'user-agent': 'bench' },
    body: JSON.stringify({ username: 'alice', password: 'a password of ordinary length', tenantId: 'bench' }),
  });
  const invalidLoginEvent = { ...loginEvent, body: JSON.stringify({ username: 'alice', password: '' }) };

  const results = {
    // GET /auth/me: identity from the authorizer context, the envelope; the handler only echoes.
    me: await time((await load('me'))(deps), meEvent, 200),
    // POST /auth/login: JSON parsing and zod validation of a valid body, then the stub
    // attempt counter refuses (429): no hashing, no database.
    loginValidBody: await time((await load('login'))(deps), loginEvent, 429),
    // POST /auth/login with a body that fails validation (400).
    loginInvalidBody: await time((await load('login'))(deps), invalidLoginEvent, 400),
  };
  process.stdout.write(`\n@@overhead ${JSON.stringify(results)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`overhead: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
