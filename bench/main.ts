/**
 * `npm run bench` (bench/run.mjs builds, bundles and starts this on CPU 1).
 *
 * Starts DynamoDB Local (in memory), seeds the table, runs the bundled functions
 * behind bench/adapter.ts on CPU 0 and loads them with autocannon; then the peers
 * (oidc-provider, its client in memory and in DynamoDB), cold starts, framework
 * overhead. Prints the figures and the targets, writes them as JSON to
 * bench/results/, and stops everything it started.
 *
 *   npm run bench              the full run (about 5 minutes)
 *   npm run bench -- --quick   short runs and a smaller table, to try changes
 *   npm run bench -- --smoke   every stage once with tiny counts (CI, .ci/run): proves the
 *                              benchmark still runs; fails on any failed request; its
 *                              figures mean nothing; prints, writes no JSON
 *   npm run bench -- --profile also CPU-profiles the server in each measured run
 *                              (bench/.work/profiles/*.cpuprofile; see bench/profile-summary.mjs)
 *   npm run bench -- --functions-dir DIR
 *                              measures the bundles in DIR instead of dist/functions
 *                              (e.g. a variant build, to weigh a change before making it)
 *   npm run bench -- --cold-starts
 *                              only the cold starts (and the OAuth runs that make their events):
 *                              every bundle against an empty Node process; prints, writes no JSON
 *   npm run bench -- --cost    the cold starts and the merchant profile's operations (bench/cost.ts):
 *                              writes docs/cost.md (the cost per 1,000 MAU and the memory sizes)
 *   npm run bench -- --only TEXT[,TEXT...]
 *                              only the load scenarios whose name contains a TEXT (the OAuth
 *                              ones come together; the peer with the client_credentials one),
 *                              no cost growth, cold starts or overhead; prints, writes no JSON
 */
import { type ChildProcess, execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type Config, readConfig } from '../lib/config';
import { PAGE_SIZE as STAFF_PAGE_SIZE } from '../lib/console/admin/sections/staff';
import { argon2idHasher } from '../lib/crypto/password';
import { keys } from '../lib/store/keys';
import { ensureTable } from '../lib/store/table-setup';
import { ensureKeysFile, fileKeyProvider, type KeySet } from '../lib/tokens/signing-keys';
import type { User } from '../lib/users/user';
import { startDynamoDbLocal } from '../scripts/dynamodb-local';
import { routesFromServerlessYml } from '../scripts/lib/serverless-routes';
import { bundleFiles, localFunctionEnv, withContractRoutes } from './adapter';
import { adminListTargets, listRoundTrips } from './admin-lists';
import { auditCost } from './audit-cost';
import { type ColdStart, coldStarts, coldStartTable, coldStartTargets } from './cold-starts';
import { type CostOutcome, costStage } from './cost';
import { type DeliveryLatency, deliveryLatency, type OutboxCost, outboxCost } from './events';
import { seedOidcCallbacks } from './federation';
import { type ImportFigures, importStage } from './import';
import { seedInvitations } from './invitations';
import { type LoadResult, machineBusySeconds, measure, type Watched } from './load';
import { OAUTH_SCENARIOS, type OAuthOutcome, oauthScenarios, type PeerStore, peerTokenEndpoint, type Scenario } from './oauth';
import { seedPasskeySignIns } from './passkeys';
import { canPin, runPinned, startServer, stopAll, stopChild, tagged } from './processes';
import { fixed, table, whole } from './report';
import { seedSamlSignIns } from './saml';
import { seedScimTenant } from './scim';
import {
  accessTokenFor,
  batchWrite,
  browserSessionFor,
  type SeededSession,
  seedUsers,
  sessionFor,
  tenantItem,
  userItems,
  userRecord,
} from './seed';
import { PEER, STORED_PEER, tokenTargets } from './token-targets';

/** `--smoke`: every stage with tiny counts, so that CI notices when a stage stops working. */
const smoke = process.argv.includes('--smoke');
const quick = smoke || process.argv.includes('--quick');
const profiling = process.argv.includes('--profile');
const DEFAULT_FUNCTIONS = 'dist/functions';
/** Bundles to measure: this build's, or another build's (to compare a change before making it). */
const functionsSource = process.argv.includes('--functions-dir')
  ? (process.argv[process.argv.indexOf('--functions-dir') + 1] ?? '')
  : DEFAULT_FUNCTIONS;
/** `--only TEXT`: a partial run, to try a change on one scenario. */
const only = process.argv.includes('--only') ? (process.argv[process.argv.indexOf('--only') + 1] ?? '') : undefined;
/** `--cold-starts`: the cold starts alone (docs/performance.md), with the OAuth scenarios that make their events. */
/** `--cost`: the cold starts and the cost of the merchant profile (docs/cost.md). */
const costOnly = process.argv.includes('--cost');
const coldOnly = process.argv.includes('--cold-starts') || costOnly;
const wanted = (scenario: string) =>
  coldOnly ? OAUTH_SCENARIOS.includes(scenario) : only === undefined || only.split(',').some((text) => scenario.includes(text));
const settings = {
  durationSeconds: smoke ? 1 : quick ? 2 : 10,
  warmupSeconds: smoke ? 0 : quick ? 1 : 3,
  /** Load on the whole stack before the first measured run (JITs of V8 and of DynamoDB Local's JVM). */
  systemWarmupSeconds: smoke ? 0 : quick ? 2 : 10,
  connections: smoke ? 2 : 10,
  /** Login is measured one request at a time: its latency against one hash. */
  loginConnections: 1,
  /** At least 400: the cold starts take sessions 200-399 of it. */
  smallTable: smoke ? 400 : 1_000,
  largeTable: smoke ? 500 : quick ? 10_000 : 100_000,
  /**
   * Access tokens `me (tokens new to the instance)` sends in turn, each used once: more than
   * an instance remembers (4,096, docs/decisions/034-verified-token-memory.md), so none is recalled.
   */
  freshTokens: smoke ? 100 : 20_000,
  /** The cold-start figures are medians of at least 7 (docs/performance.md). */
  coldStartRuns: smoke ? 1 : costOnly ? 3 : quick ? 7 : 10,
  /** Invocations of each operation of the merchant profile (bench/cost.ts). */
  costCalls: smoke ? 3 : quick ? 500 : 1000,
  /** Passkey sign-ins made ready, each single-use. */
  passkeySignIns: smoke ? 200 : quick ? 10_000 : 40_000,
  /** Invitation links made ready, each single-use (one connection, Argon2id each: a few hundred a run). */
  invitations: smoke ? 200 : quick ? 1_000 : 3_000,
  /** Browsers that set off to the bench OIDC IdP, one per callback (docs/api.md 14.4). */
  oidcCallbacks: smoke ? 100 : quick ? 800 : 3_000,
  /** SAML sign-ins set off before the ACS is measured, each single-use (one connection: some 100 a second). */
  samlSignIns: smoke ? 300 : quick ? 1_000 : 3_000,
  /** Login events written to time one audit write. */
  auditEvents: smoke ? 50 : 2000,
  outboxWrites: smoke ? 40 : 1000,
  latencyChanges: smoke ? 5 : 200,
  introspectionTokens: smoke ? 50 : 1000,
  /** Users of the SCIM tenant (docs/api.md 13.3): the list with a filter at 10,000 users. */
  scimUsers: smoke ? 200 : 10_000,
  /** Rows of the one import call (docs/api.md 13.2: at most 1,000), and first sign-ins timed per imported format. */
  importRows: smoke ? 50 : 1000,
  importLogins: smoke ? 1 : 5,
  spareCodes: smoke ? 20 : 500,
};

export const TENANT = 'bench';
const OUT = 'bench/.work/out';

function say(message: string) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function machine() {
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    pinned: canPin,
    commit,
  };
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/**
 * Refresh tokens waiting to be used, one per session. A request takes the oldest;
 * its answer's new refresh token goes to the back, as a client would keep it. No
 * session is ever in flight twice, so no refresh is mistaken for reuse.
 */
class RefreshPool {
  private queue: string[];
  private head = 0;
  lost = 0;
  constructor(tokens: string[]) {
    this.queue = [...tokens];
  }
  get size() {
    return this.queue.length - this.head;
  }
  take(): string {
    if (this.head >= this.queue.length) throw new Error('The refresh-token pool ran dry');
    const token = this.queue[this.head++] as string;
    if (this.head > 50_000) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return token;
  }
  give(token: string) {
    this.queue.push(token);
  }
  /** Every token still usable, in queue order. */
  drain(): string[] {
    const rest = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    return rest;
  }
}

interface Api {
  url: string;
  watch?: Watched;
  /** With --profile: CPU-profiles the server during a measured run. */
  profile?: (label: string) => { before(): Promise<void>; after(): Promise<void> };
}

interface Phase {
  durationSeconds: number;
  warmupSeconds: number;
  /** Names the measured run (profiles); warm-ups have none. */
  label?: string;
}

const measured = (label: string): Phase => ({ durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds, label });

/** Sends a message to a child and waits for its answer carrying `key`. */
function ask(child: ChildProcess, message: object, key: string): Promise<void> {
  return new Promise((done) => {
    const listen = (answer: Record<string, unknown>) => {
      if (!(key in answer)) return;
      child.off('message', listen);
      done();
    };
    child.on('message', listen);
    child.send(message);
  });
}

/** A browser's user agent at the 256 characters a session keeps (docs/api.md 8.3): the most a refresh records. */
const LONG_USER_AGENT =
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36 ${'x'.repeat(256)}`.slice(0, 256);

function refreshScenario(api: Api, pool: RefreshPool, phase: Phase, headers: Record<string, string> = {}) {
  return measure({
    url: api.url,
    method: 'POST',
    path: '/auth/refresh',
    headers: { 'content-type': 'application/json', ...headers },
    connections: settings.connections,
    durationSeconds: phase.durationSeconds,
    warmupSeconds: phase.warmupSeconds,
    watch: api.watch,
    around: phase.label ? api.profile?.(phase.label) : undefined,
    next: () => {
      const token = pool.take();
      return { body: JSON.stringify({ refreshToken: token }), ticket: token };
    },
    onResponse: (status, body) => {
      if (status !== 200) {
        pool.lost++;
        return;
      }
      pool.give((JSON.parse(body) as { data: { refreshToken: string } }).data.refreshToken);
    },
  });
}

function meScenario(api: Api, tokens: string[], phase: Phase) {
  let next = 0;
  return measure({
    url: api.url,
    method: 'GET',
    path: '/auth/me',
    connections: settings.connections,
    durationSeconds: phase.durationSeconds,
    warmupSeconds: phase.warmupSeconds,
    watch: api.watch,
    around: phase.label ? api.profile?.(phase.label) : undefined,
    next: () => ({ headers: { authorization: `Bearer ${tokens[next++ % tokens.length]}` } }),
  });
}

function loginScenario(api: Api, username: string, password: string) {
  return measure({
    url: api.url,
    method: 'POST',
    path: '/auth/login',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, tenantId: TENANT }),
    connections: settings.loginConnections,
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
    watch: api.watch,
    around: api.profile?.('login'),
  });
}

/**
 * Other people's processes on this machine (a test suite, a build) take CPU from the
 * servers under test. Waits up to 90 s for the machine to be quiet; says so if not.
 */
async function waitForQuiet(): Promise<number | undefined> {
  const sample = async () => {
    const before = machineBusySeconds();
    const self = process.cpuUsage();
    await new Promise((done) => setTimeout(done, 2000));
    const after = machineBusySeconds();
    const own = process.cpuUsage(self);
    return before === undefined || after === undefined ? undefined : (100 * (after - before - (own.user + own.system) / 1e6)) / 2;
  };
  let busy = await sample();
  for (let waited = 0; busy !== undefined && busy > 20 && waited < 90; waited += 2) {
    if (waited % 10 === 0) say(`the machine is busy (${Math.round(busy)}% of a CPU used by other processes): waiting for it to calm down`);
    busy = await sample();
  }
  if (busy !== undefined && busy > 20) say(`WARNING: still ${Math.round(busy)}% of a CPU busy with other processes; figures will be low`);
  return busy;
}

/** How much a request got dearer on the large table: the worse of p50 latency and server CPU per request. */
function growthRatio(small: LoadResult, large: LoadResult | undefined): number {
  if (!large) return NaN;
  const cpu = (large.cpu.serverMsPerRequest ?? NaN) / (small.cpu.serverMsPerRequest ?? NaN);
  return Math.max(large.p50Ms / small.p50Ms, Number.isNaN(cpu) ? 0 : cpu);
}

/** The latency of one consistent GetItem on an idle DynamoDB Local, through the SDK (a floor under every database call). */
async function dynamoRoundTrip(doc: DynamoDBDocumentClient, table: string, user: User) {
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const start = performance.now();
    await doc.send(new GetCommand({ TableName: table, Key: keys.user(user.tenantId, user.id), ConsistentRead: true }));
    if (i >= 50) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50Ms: times[Math.floor(times.length / 2)] as number, p99Ms: times[Math.floor(times.length * 0.99)] as number };
}

async function signTokens(keySet: KeySet, config: Config, sessions: SeededSession[]): Promise<string[]> {
  const tokens: string[] = [];
  for (const session of sessions) tokens.push(await accessTokenFor(keySet, config, session.identity));
  return tokens;
}

/** The audit event's CPU per login, and its share of a login's server CPU when login ran. */
function auditLine(audit: Awaited<ReturnType<typeof auditCost>>, login: Scenario | undefined): string {
  const share =
    login && !('skipped' in login) && login.cpu.serverMsPerRequest
      ? ` = ${fixed((100 * audit.cpuMsPerEvent) / login.cpu.serverMsPerRequest, 1)}% of login's ${fixed(login.cpu.serverMsPerRequest, 2)} server CPU ms`
      : '';
  return `Audit write per login: ${fixed(audit.cpuMsPerEvent, 3)} CPU ms per event (${audit.events} events, 8 in flight)${share}`;
}

/** A scenario's load result, if it ran. */
const loadOf = (scenario: Scenario | undefined) => (scenario && !('skipped' in scenario) ? scenario : undefined);

/** What carrying its event adds to a login's write and to an admin change, and its share of a login's server CPU. */
function outboxLine(cost: OutboxCost, login: Scenario | undefined): string {
  const added = (pair: OutboxCost['login']) => pair.carried.cpuMsPerWrite - pair.plain.cpuMsPerWrite;
  const pair = (name: string, figures: OutboxCost['login']) =>
    `${name} ${fixed(figures.plain.cpuMsPerWrite, 3)} → ${fixed(figures.carried.cpuMsPerWrite, 3)} CPU ms (+${fixed(added(figures), 3)}; wall p50 ${fixed(figures.plain.wallP50Ms, 2)} → ${fixed(figures.carried.wallP50Ms, 2)} ms)`;
  const share =
    login && !('skipped' in login) && login.cpu.serverMsPerRequest
      ? ` = +${fixed((100 * added(cost.login)) / login.cpu.serverMsPerRequest, 1)}% of login's ${fixed(login.cpu.serverMsPerRequest, 2)} server CPU ms`
      : '';
  return `Event outbox per write: ${pair('login', cost.login)}${share}; ${pair('admin change', cost.adminChange)}`;
}

/** Change to webhook, locally. */
function latencyLine(latency: DeliveryLatency): string {
  return `Change to webhook, locally (stream read every 200 ms): p50 ${fixed(latency.p50Ms, 0)} ms, p99 ${fixed(latency.p99Ms, 0)} ms (${latency.changes} changes)`;
}

/** Refresh recording the device stays within 10% of refresh, server CPU ms per request, same run. */
function bookkeepingTarget(plain: Scenario | undefined, device: Scenario | undefined): Target {
  const target = 'refresh with device bookkeeping ≤ 1.10× refresh, server CPU ms/request (same run)';
  if (!plain || !device || 'skipped' in plain || 'skipped' in device) return { target, figure: 'not measured', pass: undefined };
  const ratio = (device.cpu.serverMsPerRequest ?? Number.NaN) / (plain.cpu.serverMsPerRequest ?? Number.NaN);
  return {
    target,
    figure: `${fixed(device.cpu.serverMsPerRequest, 3)} / ${fixed(plain.cpu.serverMsPerRequest, 3)} ms = ${fixed(ratio, 2)}×`,
    pass: Number.isFinite(ratio) ? ratio <= 1.1 : undefined,
  };
}

interface Target {
  target: string;
  figure: string;
  pass: boolean | undefined;
  note?: string;
}

async function main() {
  const startedAt = new Date();
  const info = machine();
  say(
    `${info.cpus} CPUs (${info.cpuModel}), Node ${info.node}, ${canPin ? 'servers pinned to CPU 0, DynamoDB Local and autocannon on CPU 1' : 'not pinned (no taskset or one CPU)'}`,
  );

  const work = resolve('bench/.work');
  const functionsDir = join(work, 'functions');
  // A copy of this build's bundles, so a rebuild elsewhere during the run cannot change them.
  await rm(functionsDir, { recursive: true, force: true });
  await cp(functionsSource, functionsDir, { recursive: true });
  await mkdir(join(work, 'logs'), { recursive: true });
  if (profiling) await mkdir(join(work, 'profiles'), { recursive: true });
  const built = [...bundleFiles(functionsDir).keys()];
  const routes = withContractRoutes(routesFromServerlessYml(await readFile('serverless.yml', 'utf8')), built);
  for (const route of routes.fromContract)
    say(`not in serverless.yml yet, routed as docs/api.md says: ${route.method} ${route.path} -> ${route.bundle}`);

  const tmp = await mkdtemp(join(tmpdir(), 'identity-bench-'));
  const keysFile = join(tmp, 'signing-keys.json');
  await ensureKeysFile(keysFile, 'bench-key-1');
  const keySet = await fileKeyProvider(keysFile).load();

  // A smoke run's figures mean nothing: no waiting for a quiet machine.
  const busyAtStart = smoke ? undefined : await waitForQuiet();

  say('starting DynamoDB Local (in memory)');
  const db = await startDynamoDbLocal();
  const stopEverything = async () => {
    await stopAll();
    await db.stop();
    await rm(tmp, { recursive: true, force: true });
  };
  const onSignal = () => {
    interrupted = true;
    say('interrupted: stopping what the benchmark started');
    void stopEverything().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...localFunctionEnv({ endpoint: db.endpoint, tableName: 'identity-bench', keysFile, workDir: tmp }),
      // As in Lambda: serverless.yml sets no --enable-source-maps (it costs cold starts).
      ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
      BENCH_FUNCTIONS_DIR: functionsDir,
      ...(smoke ? { BENCH_SMOKE: '1' } : {}),
    };
    const config = readConfig(env);
    const client = new DynamoDBClient({
      endpoint: db.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(client, config.tableName);
    const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

    // The Argon2id floor under login, alone on the server's CPU.
    say('timing one Argon2id hash');
    const argon2 = tagged<{ params: object; hashMs: number; verifyMs: number }>(
      (await runPinned(`${OUT}/argon2-probe.mjs`, env)).stdout,
      'argon2',
    );

    say(`seeding ${whole(settings.smallTable)} users with sessions`);
    const loginPassword = randomBytes(18).toString('base64url');
    const passwordHash = await argon2idHasher().hash(loginPassword);
    const loginUser = userRecord(TENANT, 'login-user', passwordHash);
    const admin = userRecord(TENANT, 'admin', passwordHash, 'ADMIN');
    const adminSession = sessionFor(admin, config);
    await batchWrite(doc, config.tableName, [
      tenantItem(TENANT),
      ...userItems(loginUser),
      ...userItems(admin, { lastSessionAt: Number(adminSession.item.createdAt) }),
      adminSession.item,
    ]);
    const small = await seedUsers(doc, config, TENANT, settings.smallTable, passwordHash);

    const roundTrip = await dynamoRoundTrip(doc, config.tableName, admin);
    say(`DynamoDB Local GetItem round trip: p50 ${fixed(roundTrip.p50Ms, 2)} ms`);

    const serverLog = openSync(join(work, 'logs', 'server.log'), 'w');
    say('starting the API (bench/adapter.ts) on the bundles in dist/functions');
    const server = await startServer<{ port: number; routes: string[]; missing: string[]; fromContract: string[] }>(
      `${OUT}/server.mjs`,
      env,
      serverLog,
    );
    const api: Api = {
      url: `http://127.0.0.1:${server.message.port}`,
      watch: { server: server.child.pid, database: db.pid },
      ...(profiling
        ? {
            profile: (label: string) => ({
              before: () => ask(server.child, { profile: 'start' }, 'profiling'),
              after: () => ask(server.child, { profile: 'stop', name: label }, 'profiled'),
            }),
          }
        : {}),
    };
    for (const missing of server.message.missing) say(`route without a built bundle, left out: ${missing}`);

    const scenarios: Record<string, Scenario> = {};
    /** The DynamoDB requests of one page of each admin list (bench/admin-lists.ts). */
    const listTrips: { admin?: number; console?: number } = {};
    const listTargets = () => [
      ...adminListTargets('admin: list 100 users', loadOf(scenarios['admin: list 100 users']), listTrips.admin, settings.connections),
      ...adminListTargets('tenant console (staff)', loadOf(scenarios['tenant console (staff)']), listTrips.console, settings.connections),
    ];
    /** The peers, one after the other on the server's CPU with the same load settings (after our server has stopped). */
    const peers = async (): Promise<Record<string, Scenario>> => {
      const ways: Array<[string, PeerStore]> = [
        [PEER, 'memory'],
        [STORED_PEER, 'dynamodb'],
      ];
      const results: Record<string, Scenario> = {};
      for (const [name, store] of ways) {
        say(name);
        const peerLog = openSync(join(work, 'logs', `peer-${store}.log`), 'w');
        try {
          results[name] = (await peerTokenEndpoint({ env, keysFile, settings, logFd: peerLog, store, databasePid: db.pid })).result;
        } finally {
          closeSync(peerLog);
        }
      }
      return results;
    };
    const run = async (name: string, work: () => Promise<LoadResult>, note?: string) => {
      say(`load: ${name}`);
      const result = await work();
      scenarios[name] = { ...result, ...(note ? { note } : {}) };
      say(
        `  ${whole(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms, 2)} ms, p99 ${fixed(result.p99Ms, 2)} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
      );
    };

    let audit: Awaited<ReturnType<typeof auditCost>> | undefined;
    const meTokensSmall = await signTokens(keySet, config, small);
    const pool = new RefreshPool(small.map((session) => session.refreshToken));
    // The first seconds of load run on cold JITs (V8's and DynamoDB Local's Java): not measured.
    if (!coldOnly && settings.systemWarmupSeconds > 0) {
      say('warming up the server and DynamoDB Local');
      await meScenario(api, meTokensSmall, { durationSeconds: settings.systemWarmupSeconds, warmupSeconds: 0 });
      await refreshScenario(api, pool, { durationSeconds: settings.systemWarmupSeconds / 2, warmupSeconds: 0 });
    }

    if (wanted('me')) {
      await run('me', () => meScenario(api, meTokensSmall, measured('me')), 'authorizer (ES256 verify, session read) + function');
      // The same callers, each request with a token the instance has not verified yet.
      const fresh = Array.from({ length: settings.freshTokens }, (_, i) => small[i % small.length] as SeededSession);
      const freshTokens = await signTokens(keySet, config, fresh);
      await run(
        'me (tokens new to the instance)',
        () => meScenario(api, freshTokens, measured('me-fresh')),
        'as me, every token seen for the first time: its ES256 verify not recalled',
      );
    }
    if (wanted('refresh'))
      await run('refresh', () => refreshScenario(api, pool, measured('refresh')), 'rotation: conditional update, user read, ES256 sign');
    // The same refresh recording the device (a 256-character user agent and the
    // source address, in the rotation's one write), in the same run.
    if (wanted('refresh'))
      await run(
        'refresh (device bookkeeping)',
        () => refreshScenario(api, pool, measured('refresh-device'), { 'user-agent': LONG_USER_AGENT }),
        'as refresh, recording a 256-char user agent',
      );
    if (wanted('login'))
      await run('login', () => loginScenario(api, loginUser.username, loginPassword), `Argon2id; ${settings.loginConnections} connection`);
    // A passkey sign-in (challenge used, passkey and user read, ECDSA verify, counter moved, session and ES256 token).
    if (wanted('passkey')) {
      say('seeding passkeys and single-use challenges');
      const passkeys = await seedPasskeySignIns(
        doc,
        config,
        TENANT,
        small.slice(0, 200).map((session) => session.identity),
        settings.passkeySignIns,
      );
      await run(
        'passkey sign-in',
        () =>
          measure({
            url: api.url,
            method: 'POST',
            path: '/auth/passkeys/authentication',
            headers: { 'content-type': 'application/json' },
            connections: settings.connections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            around: api.profile?.('passkey'),
            next: passkeys.next,
          }),
        'assertion check (ES256 verify), 2 conditional writes, session + token',
      );
    }
    // An invitation accepted (docs/api.md 13.1): Argon2id of the new password, the invitation
    // used with the user created in one transaction, then the session and ES256 token.
    if (wanted('invitation')) {
      say('seeding pending invitations');
      const invitations = await seedInvitations(doc, config, TENANT, settings.invitations);
      await run(
        'invitation acceptance',
        () =>
          measure({
            url: api.url,
            method: 'POST',
            path: '/auth/invitations/accept',
            headers: { 'content-type': 'application/json' },
            connections: settings.loginConnections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            around: api.profile?.('invitation'),
            next: invitations.next,
          }),
        `Argon2id, 1 transaction, session + token; ${settings.loginConnections} connection`,
      );
    }
    // A SAML sign-in at the ACS (docs/api.md 14.5): the XML signature check, the pending
    // request taken, the assertion ID recorded, the link read, then the session and consent.
    if (wanted('SAML')) {
      say(`setting off ${whole(settings.samlSignIns)} SAML sign-ins`);
      const saml = await seedSamlSignIns({
        url: api.url,
        config,
        tenantId: TENANT,
        adminToken: await accessTokenFor(keySet, config, adminSession.seeded.identity),
        count: settings.samlSignIns,
      });
      await run(
        'SAML ACS sign-in',
        () =>
          measure({
            url: api.url,
            method: 'POST',
            path: saml.path,
            connections: settings.loginConnections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            around: api.profile?.('saml'),
            next: saml.next,
          }),
        `signature check, 4 conditional writes, session; ${settings.loginConnections} connection, server CPU ms`,
      );
    }
    // An ADMIN's page of 100 users (the tenant index, one query, then each user's MFA methods).
    if (wanted('admin')) {
      const adminToken = await accessTokenFor(keySet, config, adminSession.seeded.identity);
      await run(
        'admin: list 100 users',
        () =>
          measure({
            url: api.url,
            method: 'GET',
            path: '/admin/users?limit=100',
            connections: settings.connections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            next: () => ({ headers: { authorization: `Bearer ${adminToken}` } }),
          }),
        'authorizer + tenant index query of 100 users with their activity, then their MFA methods',
      );
      if (functionsSource === DEFAULT_FUNCTIONS) listTrips.admin = await listRoundTrips(config, adminSession.seeded.identity, 100);
    }
    // The account page's security section (docs/api.md 15.2): the browser session checked and
    // touched, the user, its MFA methods, the tenant's branding, the page rendered with i18next.
    if (wanted('account page')) {
      const browser = browserSessionFor(loginUser, config);
      await batchWrite(doc, config.tableName, [browser.item]);
      await run(
        'account page (security)',
        () =>
          measure({
            url: api.url,
            method: 'GET',
            path: '/account/security',
            connections: settings.connections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            around: api.profile?.('account-page'),
            next: () => ({ headers: { cookie: browser.cookie, 'accept-language': 'de' } }),
          }),
        'browser session touched, user and MFA reads, tenant, server-rendered page in German',
      );
    }
    // The tenant console's staff page (docs/api.md 15.3) as an ADMIN's browser: the first page of the tenant's users.
    if (wanted('tenant console')) {
      const browser = browserSessionFor(admin, config);
      await batchWrite(doc, config.tableName, [browser.item]);
      await run(
        'tenant console (staff)',
        () =>
          measure({
            url: api.url,
            method: 'GET',
            path: '/admin/console/staff',
            connections: settings.connections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            around: api.profile?.('admin-console-page'),
            next: () => ({ headers: { cookie: browser.cookie } }),
          }),
        'browser session touched, ADMIN check, tenant, a page of users, server-rendered page',
      );
      if (functionsSource === DEFAULT_FUNCTIONS)
        listTrips.console = await listRoundTrips(config, adminSession.seeded.identity, STAFF_PAGE_SIZE);
    }
    // SCIM's list with a filter at 10,000 users (docs/api.md 13.3): token read, budget, one lookup.
    if (wanted('SCIM')) {
      say(`seeding ${whole(settings.scimUsers)} users of a SCIM tenant`);
      const scim = await seedScimTenant(doc, config, settings.scimUsers);
      await run(
        'SCIM list with a filter at 10,000 users',
        () =>
          measure({
            url: api.url,
            method: 'GET',
            path: '/scim/v2/Users',
            connections: settings.connections,
            durationSeconds: settings.durationSeconds,
            warmupSeconds: settings.warmupSeconds,
            watch: api.watch,
            around: api.profile?.('scim'),
            next: scim.next,
          }),
        'token read, request budget, one lookup (username, externalId or email index), server CPU ms',
      );
    }
    if (wanted('audit')) {
      say('audit: the CPU of one event write, alone');
      audit = await auditCost(config, TENANT, settings.auditEvents);
      say(`  ${fixed(audit.cpuMsPerEvent, 3)} CPU ms per event, ${fixed(audit.wallMsPerEvent, 2)} ms wall per event at 8 in flight`);
    }

    let outbox: OutboxCost | undefined;
    let latency: DeliveryLatency | undefined;
    if (wanted('events')) {
      say('events: a login write and an admin change, plain and carrying their event (the outbox)');
      outbox = await outboxCost(config, TENANT, settings.outboxWrites);
      say(`  ${outboxLine(outbox, undefined)}`);
      say('events: from a change to its webhook, through the stream as npm start reads it');
      latency = await deliveryLatency(env, TENANT, settings.latencyChanges);
      say(`  ${latencyLine(latency)}`);
    }

    let imported: ImportFigures | undefined;
    if (wanted('import')) {
      say(`import: ${whole(settings.importRows)} users in one call, then first sign-ins with imported hashes`);
      imported = await importStage({
        url: api.url,
        adminToken: await accessTokenFor(keySet, config, adminSession.seeded.identity),
        tenantId: TENANT,
        rows: settings.importRows,
        logins: settings.importLogins,
        normal: { username: loginUser.username, password: loginPassword },
      });
      say(`  ${whole(imported.usersPerSecond)} users/s (${fixed(imported.seconds, 2)} s for ${whole(imported.rows)} rows)`);
    }

    const user = small[0];
    if (!user) throw new Error('no seeded users');
    const withOAuth = OAUTH_SCENARIOS.some(wanted) || wanted(PEER);
    const oauth: OAuthOutcome = !withOAuth
      ? { scenarios: {}, coldStartEvents: {} }
      : await oauthScenarios({
          api,
          routes,
          functionsDir,
          settings,
          admin: { identity: adminSession.seeded.identity, token: await accessTokenFor(keySet, config, adminSession.seeded.identity) },
          user: { identity: user.identity, token: meTokensSmall[0] ?? '' },
          tenantId: TENANT,
          issuer: config.issuer,
          say,
        });
    for (const [name, scenario] of Object.entries(oauth.scenarios)) {
      scenarios[name] = scenario;
      if ('skipped' in scenario) say(`skipped: ${name}: ${scenario.skipped}`);
      else say(`  ${name}: ${whole(scenario.requestsPerSecond)} req/s, p50 ${fixed(scenario.p50Ms, 2)} ms, non-2xx ${scenario.non2xx}`);
    }

    // A federated sign-in's return (docs/api.md 14.4): the pending sign-in taken, the IdP's code
    // redeemed and its ID token checked, the linked user signed in; last, since it gives the
    // tenant a connection (its hosted sign-in asks for the identifier first from then on).
    if (wanted('OIDC')) {
      say(`setting off ${whole(settings.oidcCallbacks)} browsers to a bench OIDC IdP`);
      const adminToken = await accessTokenFor(keySet, config, adminSession.seeded.identity);
      const oidc = await seedOidcCallbacks(api.url, config, TENANT, adminToken, settings.oidcCallbacks);
      try {
        await run(
          'OIDC callback',
          () =>
            measure({
              url: api.url,
              method: 'GET',
              path: '/sso/oidc/callback',
              connections: settings.connections,
              durationSeconds: settings.durationSeconds,
              warmupSeconds: settings.warmupSeconds,
              watch: api.watch,
              around: api.profile?.('oidc-callback'),
              next: oidc.next,
              check: (body) => body.includes('value="allow"'),
            }),
          'pending sign-in taken, token request to the IdP, ID token (ES256) checked, linked user, session, consent page; server CPU ms',
        );
      } finally {
        await oidc.close();
      }
    }

    /**
     * Every bundle's cold start, with sessions (identities) of `seeded` and 200 unused refresh
     * tokens of `tokens`. Only users without an authenticator app: theirs is a placeholder
     * (bench/seed.ts), and enabling, verifying or adding a factor would meet it (step-up, or
     * a secret that cannot be opened) instead of the request measured.
     */
    const coldStartsOf = (seeded: SeededSession[], tokens: RefreshPool) => {
      const identities = seeded
        .slice(200, 400)
        .filter((session) => !session.withTotp)
        .map((session) => session.identity);
      return coldStarts({
        functionsDir,
        routes,
        env,
        runs: settings.coldStartRuns,
        keySet,
        config,
        sessions: tokens
          .drain()
          .filter((token) => !identities.some((identity) => token.split('.')[1] === identity.sessionId))
          .slice(0, 200),
        identities,
        admin: adminSession.seeded.identity,
        login: { username: loginUser.username, password: loginPassword, tenantId: TENANT },
        oauth: oauth.coldStartEvents,
        tmp,
        profile: profiling,
        say,
      });
    };

    /** The merchant profile's cost (bench/cost.ts), with a refresh token no cold start or logout of it uses. */
    const costOf = async (cold: ColdStart[], refreshToken: string): Promise<CostOutcome> => {
      say('cost: the merchant profile, one operation at a time');
      const outcome = await costStage({
        functionsDir,
        env,
        dynamoEndpoint: db.endpoint,
        serverlessYml: await readFile('serverless.yml', 'utf8'),
        tmp,
        calls: settings.costCalls,
        login: { username: loginUser.username, password: loginPassword, tenantId: TENANT },
        refreshToken,
        member: { identity: user.identity, token: meTokensSmall[0] ?? '' },
        admin: adminSession.seeded.identity,
        endable: small.slice(100, 200).map((session) => session.identity),
        cold,
        run:
          `\`npm run bench -- ${process.argv.slice(2).join(' ')}\` on ${startedAt.toISOString().slice(0, 16)} UTC, commit ${info.commit}, ` +
          `${info.cpus} CPUs (${info.cpuModel}), Node ${info.node}, load average ${loadavg()[0]?.toFixed(1)} at the start of the cost stage`,
        say,
      });
      const file = costOnly && !smoke ? 'docs/cost.md' : join(work, 'cost.md');
      await writeFile(file, outcome.markdown);
      say(`cost: written to ${file}`);
      return outcome;
    };
    /** A refresh token of a session that neither the cold starts (200-399) nor the cost's logouts (100-199) end. */
    const spareRefreshToken = (tokens: RefreshPool) => {
      const ended = new Set(small.slice(100, 400).map((session) => session.identity.sessionId));
      for (;;) {
        const token = tokens.take();
        if (!ended.has(token.split('.')[1] ?? '')) return token;
        tokens.give(token);
      }
    };

    if (coldOnly) {
      await stopChild(server.child);
      closeSync(serverLog);
      const costToken = costOnly ? spareRefreshToken(pool) : undefined;
      say(`cold starts: every bundle, median of ${settings.coldStartRuns}`);
      const cold = await coldStartsOf(small, pool);
      const cost = costToken ? await costOf(cold, costToken) : undefined;
      const targets = [...coldStartTargets(cold), ...(cost?.targets ?? [])];
      process.stdout.write(
        `Cold starts only (--cold-starts)${quick ? ', QUICK' : ''}, commit ${info.commit}` +
          (functionsSource === 'dist/functions' ? '' : `, bundles from ${functionsSource}`) +
          `\nMachine: ${info.cpus} CPUs, ${info.cpuModel}, ${info.memoryGiB} GiB, Node ${info.node}, ${info.platform}\n` +
          `${coldStartTable(cold, settings.coldStartRuns, canPin ? '0' : '-')}\n` +
          `${table(
            'Targets',
            ['target', 'figure', 'result'],
            targets.map((t) => [t.target, t.figure, t.pass ? 'PASS' : 'MISS']),
          )}\n`,
      );
      return;
    }

    if (only !== undefined) {
      await stopChild(server.child);
      closeSync(serverLog);
      if (wanted(PEER) || wanted('token (client_credentials)')) Object.assign(scenarios, await peers());
      const rows = Object.entries(scenarios).map(([name, scenario]) =>
        'skipped' in scenario
          ? [name, '-', '-', '-', '-', `skipped: ${scenario.skipped}`]
          : [
              name,
              whole(scenario.requestsPerSecond),
              fixed(scenario.p50Ms, 2),
              fixed(scenario.cpu.serverMsPerRequest, 3),
              String(scenario.non2xx + scenario.errors + scenario.wrong),
              `other CPU ${Math.round(scenario.cpu.otherPercent ?? 0)}%`,
            ],
      );
      const login = scenarios.login;
      const floors = [
        `Argon2id hash ${fixed(argon2.hashMs, 2)} ms` +
          (login && !('skipped' in login) ? `; login p50 = ${fixed(login.p50Ms / argon2.hashMs, 2)}x the hash` : ''),
        `DynamoDB Local GetItem round trip p50 ${fixed(roundTrip.p50Ms, 2)} ms`,
        ...(audit ? [auditLine(audit, login)] : []),
        ...(outbox ? [outboxLine(outbox, login)] : []),
        ...(latency ? [latencyLine(latency)] : []),
      ];
      process.stdout.write(
        `${table(
          `Partial run (--only ${only})${quick ? ', QUICK' : ''}, commit ${info.commit}`,
          ['scenario', 'req/s', 'p50 ms', 'server CPU ms/req', 'failed', 'disturbance'],
          rows,
        )}\n${floors.join('\n')}\n${table(
          'Targets',
          ['target', 'figure', 'result'],
          [...tokenTargets(scenarios), ...listTargets()].map((t) => [
            t.target,
            t.figure,
            t.pass === undefined ? 'SKIPPED' : t.pass ? 'PASS' : 'MISS',
          ]),
        )}\n`,
      );
      return;
    }

    // Cost growth: the same me and refresh with a hundred times the users and sessions.
    say(`seeding up to ${whole(settings.largeTable)} users with sessions`);
    const seedStart = Date.now();
    const grown = await seedUsers(doc, config, TENANT, settings.largeTable - settings.smallTable, passwordHash, 'grown');
    const seedSeconds = (Date.now() - seedStart) / 1000;
    say(`  ${whole((grown.length * 3) / seedSeconds)} items/s`);
    const everyone = [...small, ...grown];
    // As many callers as on the small table, drawn from the whole one: what grows is the
    // table, not how often an instance has seen each token (decision 034).
    const meTokensLarge = await signTokens(keySet, config, shuffle([...everyone]).slice(0, meTokensSmall.length));
    const largePool = new RefreshPool(shuffle([...pool.drain(), ...grown.map((session) => session.refreshToken)]));
    const growth: Record<string, LoadResult> = {};
    say(`load: me with ${whole(settings.largeTable)} users`);
    growth.me = await meScenario(api, meTokensLarge, measured('me-large'));
    say(`load: refresh with ${whole(settings.largeTable)} users`);
    growth.refresh = await refreshScenario(api, largePool, measured('refresh-large'));

    await stopChild(server.child);
    closeSync(serverLog);

    const peer = await peers();

    say(`cold starts: every bundle, median of ${settings.coldStartRuns}`);
    const costToken = spareRefreshToken(largePool);
    const cold: ColdStart[] = await coldStartsOf(everyone, largePool);
    const cost = await costOf(cold, costToken);

    say('framework overhead (stub store, tight loop)');
    const overhead = tagged<Record<string, number>>((await runPinned(`${OUT}/overhead.mjs`, env)).stdout, 'overhead');

    client.destroy();

    // ---- figures and targets ----
    const pct = (value: number | undefined) => (value === undefined ? '-' : `${Math.round(value)}%`);
    const loadRow = (name: string, scenario: Scenario | undefined) =>
      !scenario
        ? [name, '-', '-', '-', '-', '-', '-', '-', '-', 'not run']
        : 'skipped' in scenario
          ? [name, '-', '-', '-', '-', '-', '-', '-', '-', `skipped: ${scenario.skipped}`]
          : [
              name,
              whole(scenario.requestsPerSecond),
              fixed(scenario.p50Ms, 2),
              fixed(scenario.p99Ms, 2),
              whole(scenario.requests),
              String(scenario.non2xx + scenario.errors + scenario.wrong),
              pct(scenario.cpu.serverPercent),
              fixed(scenario.cpu.serverMsPerRequest, 3),
              `${pct(scenario.cpu.databasePercent)} / ${pct(scenario.cpu.loadPercent)} / ${pct(scenario.cpu.otherPercent)}`,
              scenario.note ?? '',
            ];
    const loadHeader = [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'requests',
      'failed',
      'server CPU',
      'server CPU ms/req',
      'DB / load / other CPU',
      'what a request does',
    ];
    const out: string[] = [];
    out.push(
      `Identity service benchmark — ${startedAt.toISOString()} — commit ${info.commit}${quick ? ' — QUICK RUN (not for comparison)' : ''}` +
        (functionsSource === 'dist/functions' ? '' : ` — bundles from ${functionsSource}`),
      `Machine: ${info.cpus} CPUs, ${info.cpuModel}, ${info.memoryGiB} GiB, Node ${info.node}, ${info.platform}`,
      `Load: autocannon, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s; ` +
        (canPin ? 'server on CPU 0, DynamoDB Local + autocannon on CPU 1' : 'NOT pinned'),
    );
    out.push(
      table(`Scenarios (table of ${whole(settings.smallTable)} users and sessions)`, loadHeader, [
        ...Object.entries(scenarios).map(([name, scenario]) => loadRow(name, scenario)),
        ...Object.entries(peer).map(([name, scenario]) => loadRow(name, scenario)),
      ]),
      "CPU columns: share of one CPU during the measured run; server CPU ms/req = the server process's CPU time per answered request\n" +
        '(1000 / that = what one core could answer if nothing else limited it). DB = DynamoDB Local, load = autocannon, other = the rest of the machine.',
    );
    const ours = scenarios['token (client_credentials)'];
    const mine = ours && !('skipped' in ours) ? ours : undefined;
    const peerRuns = [peer[PEER], peer[STORED_PEER]].map((run) => (run && !('skipped' in run) ? run : undefined));
    const [inMemory] = peerRuns;
    const tokenRatio = mine && inMemory ? mine.requestsPerSecond / inMemory.requestsPerSecond : undefined;
    const figureRow = (label: string, value: (run: LoadResult) => number, format: (n: number) => string) => [
      label,
      mine ? format(value(mine)) : '-',
      ...peerRuns.map((run) => (run ? format(value(run)) : '-')),
      ...peerRuns.map((run) => (run && mine ? `${fixed(value(mine) / value(run), 2)}x` : '-')),
    ];
    out.push(
      table(
        'Token endpoint, ours / oidc-provider (client in memory; client in DynamoDB)',
        ['figure', 'ours', 'in memory', 'in DynamoDB', 'ours/in memory', 'ours/in DynamoDB'],
        [
          figureRow('req/s', (run) => run.requestsPerSecond, whole),
          figureRow(
            'p50 ms',
            (run) => run.p50Ms,
            (n) => fixed(n, 2),
          ),
          figureRow(
            'server CPU ms/req',
            (run) => run.cpu.serverMsPerRequest ?? Number.NaN,
            (n) => fixed(n, 3),
          ),
        ],
      ),
    );
    const smallMe = scenarios.me as LoadResult;
    const smallRefresh = scenarios.refresh as LoadResult;
    const growthRows = [
      ['me', smallMe, growth.me],
      ['refresh', smallRefresh, growth.refresh],
    ] as const;
    out.push(
      table(
        `Cost growth: the same load on ${whole(settings.smallTable)} and on ${whole(settings.largeTable)} users and sessions`,
        [
          'scenario',
          'req/s small',
          'req/s large',
          'p50 ms small',
          'p50 ms large',
          'server CPU ms/req small',
          'server CPU ms/req large',
          'worst ratio',
          'failed',
        ],
        growthRows.map(([name, a, b]) => [
          name,
          whole(a.requestsPerSecond),
          whole(b?.requestsPerSecond),
          fixed(a.p50Ms, 2),
          fixed(b?.p50Ms, 2),
          fixed(a.cpu.serverMsPerRequest, 3),
          fixed(b?.cpu.serverMsPerRequest, 3),
          `${fixed(growthRatio(a, b), 2)}x`,
          String((b?.non2xx ?? 0) + (b?.errors ?? 0)),
        ]),
      ),
    );
    out.push(coldStartTable(cold, settings.coldStartRuns, canPin ? '0' : '-'));
    out.push(
      table(
        'Framework overhead per request (middy + zod + envelope, stub store)',
        ['path', 'µs/request'],
        [
          ['GET /auth/me (authorizer context → envelope)', fixed(overhead.me, 1)],
          ['POST /auth/login, valid body (parse, validate, stub refuses: 429)', fixed(overhead.loginValidBody, 1)],
          ['POST /auth/login, invalid body (400)', fixed(overhead.loginInvalidBody, 1)],
        ],
      ),
    );
    out.push(
      table(
        'Floors: what no request can be faster than',
        ['figure', 'ms'],
        [
          [
            `Argon2id hash, configured parameters (${Object.entries(argon2.params)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}), CPU 0`,
            fixed(argon2.hashMs, 2),
          ],
          ['Argon2id verify, CPU 0', fixed(argon2.verifyMs, 2)],
          ['DynamoDB Local consistent GetItem round trip, idle, p50 (p99)', `${fixed(roundTrip.p50Ms, 2)} (${fixed(roundTrip.p99Ms, 2)})`],
        ],
      ),
    );
    if (audit) out.push(auditLine(audit, scenarios.login));
    if (outbox) out.push(outboxLine(outbox, scenarios.login));
    if (latency) out.push(latencyLine(latency));
    if (imported)
      out.push(
        table(
          `User import (docs/api.md 13.2): one call of ${whole(imported.rows)} rows, then sign-ins one at a time`,
          ['figure', 'value'],
          [
            ['users per second, server side (the call’s wall time)', whole(imported.usersPerSecond)],
            ['seconds for the call', fixed(imported.seconds, 2)],
            ...Object.entries(imported.firstLoginMs).map(([format, ms]) => [`first sign-in, imported ${format}, p50 ms`, fixed(ms, 1)]),
            ['sign-in with the service’s Argon2id, p50 ms', fixed(imported.loginMs, 1)],
          ],
        ),
      );

    const login = scenarios.login as LoadResult;
    const slowest = cold.reduce((a, b) => (b.firstInvocationMs > a.firstInvocationMs ? b : a));
    const maxOverhead = Math.max(...Object.values(overhead));
    const growthWorst = Math.max(...growthRows.map(([, a, b]) => growthRatio(a, b)));
    const targets: Target[] = [
      {
        target: 'token endpoint (client_credentials) ≥ 1.0× oidc-provider req/s (client in memory)',
        figure:
          tokenRatio === undefined ? (ours && 'skipped' in ours ? `skipped: ${ours.skipped}` : 'not measured') : `${fixed(tokenRatio, 2)}×`,
        pass: tokenRatio === undefined ? undefined : tokenRatio >= 1,
      },
      {
        target: 'refresh ≥ 1,000 req/s (one core)',
        figure: `${whole(smallRefresh.requestsPerSecond)} req/s`,
        pass: smallRefresh.requestsPerSecond >= 1000,
      },
      bookkeepingTarget(scenarios.refresh, scenarios['refresh (device bookkeeping)']),
      {
        target: 'me ≥ 2,000 req/s (one core)',
        figure: `${whole(smallMe.requestsPerSecond)} req/s`,
        pass: smallMe.requestsPerSecond >= 2000,
      },
      {
        target: 'login p50 ≤ 1.2× one Argon2id hash',
        figure: `${fixed(login.p50Ms, 1)} ms = ${fixed(login.p50Ms / argon2.hashMs, 2)}× ${fixed(argon2.hashMs, 1)} ms`,
        pass: login.p50Ms <= 1.2 * argon2.hashMs,
      },
      ...tokenTargets({ ...scenarios, ...peer }),
      ...coldStartTargets(cold),
      {
        target: 'every cold load + first invocation ≤ 80 ms',
        figure: `slowest ${slowest.bundle} ${fixed(slowest.firstInvocationMs)} ms`,
        pass: slowest.firstInvocationMs <= 80,
      },
      { target: 'framework overhead ≤ 0.1 ms per request', figure: `worst ${fixed(maxOverhead / 1000, 3)} ms`, pass: maxOverhead <= 100 },
      ...listTargets(),
      ...cost.targets,
      {
        target: `me/refresh p50 and server CPU/request @${whole(settings.largeTable)} ≤ 1.25× @${whole(settings.smallTable)}`,
        figure: `worst ${fixed(growthWorst, 2)}×`,
        pass: growthWorst <= 1.25,
      },
    ];
    const failures = Object.entries(scenarios).filter(([, s]) => !('skipped' in s) && s.non2xx + s.errors + s.wrong > 0);
    out.push(
      table(
        'Targets',
        ['target', 'figure', 'result'],
        targets.map((t) => [t.target, t.figure, t.pass === undefined ? 'SKIPPED' : t.pass ? 'PASS' : 'MISS']),
      ),
    );
    const disturbed = [
      ...Object.entries(scenarios),
      ...Object.entries(peer),
      ['me (large table)', growth.me] as const,
      ['refresh (large table)', growth.refresh] as const,
    ].filter(([, s]) => s && !('skipped' in s) && (s.cpu.otherPercent ?? 0) > 15);
    if (disturbed.length > 0) {
      out.push(
        `\nWARNING: other processes on this machine used over 15% of a CPU during ${disturbed.map(([name]) => name).join(', ')}: those figures are low.`,
      );
    }
    if (failures.length > 0)
      out.push(`\nWARNING: failed requests in ${failures.map(([name]) => name).join(', ')} (see bench/.work/logs/server.log)`);
    const printed = `${out.join('\n')}\n`;
    process.stdout.write(printed);

    if (smoke) {
      // Every stage ran; each must also have answered as it should.
      const measuredRuns = [
        ...Object.entries(scenarios),
        ...Object.entries(peer),
        ['me (large table)', growth.me] as const,
        ['refresh (large table)', growth.refresh] as const,
      ];
      const broken = measuredRuns.flatMap(([name, run]) =>
        !run
          ? [`${name}: not run`]
          : 'skipped' in run
            ? [`${name}: skipped (${run.skipped})`]
            : run.non2xx + run.errors + run.wrong > 0
              ? [`${name}: ${run.requests} answered, ${run.non2xx} non-2xx, ${run.errors} errors, ${run.wrong} wrong`]
              : [],
      );
      // A request slower than the 1-s run is not counted: on a busy machine a slow scenario may answer none.
      for (const [name, run] of measuredRuns)
        if (run && !('skipped' in run) && run.requests === 0) say(`smoke run: ${name} answered no request within its run`);
      broken.push(...cost.failed);
      if (broken.length > 0) throw new Error(`smoke run: ${broken.join('; ')} (see bench/.work/logs/)`);
      say(`smoke run: every stage ran (${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s in all); no JSON written`);
      return;
    }

    const results = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      quick,
      functionsDir: functionsSource,
      machine: { ...info, otherProcessesCpuPercentAtStart: busyAtStart },
      settings,
      argon2,
      import: imported,
      dynamoDbRoundTrip: roundTrip,
      scenarios,
      peer,
      tokenRatio,
      growth: {
        table: { small: settings.smallTable, large: settings.largeTable },
        seedItemsPerSecond: (grown.length * 3) / seedSeconds,
        me: growth.me,
        refresh: growth.refresh,
      },
      coldStart: cold,
      overheadMicroseconds: overhead,
      targets,
      routes: server.message.routes,
      missingRoutes: server.message.missing,
      routesFromContract: server.message.fromContract,
    };
    await mkdir('bench/results', { recursive: true });
    const name = `bench/results/${startedAt.toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`;
    await writeFile(`${name}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
    await rename(`${name}.tmp`, name);
    say(`results written to ${name} (${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s in all)`);
  } finally {
    await stopEverything();
  }
}

/** Set on Ctrl-C: the failures that follow (servers gone) are not worth printing. */
let interrupted = false;

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (interrupted) return;
    process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
