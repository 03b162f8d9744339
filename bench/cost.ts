/**
 * What the service costs a merchant to run on AWS, per 1,000 monthly active users, from
 * figures measured in the run (`npm run bench -- --cost` writes docs/cost.md):
 *
 * - each operation of the merchant profile below runs in a fresh process on CPU 0
 *   (bench/cost-probe.ts, one bundle as one Lambda instance): its CPU ms per invocation
 *   and the process's peak RSS;
 * - its DynamoDB traffic passes through a counting proxy in front of DynamoDB Local,
 *   which asks every command for `ReturnConsumedCapacity: TOTAL` (DynamoDB Local answers
 *   with DynamoDB's rules: 4 KB per read unit, 1 KB per write unit, twice in a
 *   transaction): read and write request units, round trips, and the outbox writes that
 *   become events (docs/events.md);
 * - every bundle's cold process (bench/cold-starts.ts) gives its peak RSS and first
 *   invocation, which size memory (docs/decisions/030-memory-sizes.md).
 *
 * The prices are constants below with where they were read; the profile is stated here
 * and printed into the document.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import type { Identity } from '../lib/tokens/access-token';
import { authorizerEvent, bundleFiles } from './adapter';
import type { ColdStart } from './cold-starts';
import { json, withContext } from './cold-starts';
import type { ProbeFigures, ProbeInput } from './cost-probe';
import { pinned, SERVER_CPU, tagged } from './processes';
import { fixed, whole } from './report';

/** The merchant this document prices: a shop whose staff sign in for their shifts. */
export const MERCHANT_PROFILE = {
  /** Staff accounts of one merchant; each is a monthly active user. */
  staff: 10,
  shiftsPerMonth: 22,
  shiftHours: 8,
  /** The app refreshes its access token every 15 minutes of a shift. */
  refreshEveryMinutes: 15,
  /** Sign-ins per staff member and shift (start of shift, a second device or after a break); each reads `me` once. */
  signInsPerShift: 2,
  /** Requests of the merchant's app through the session authorizer, per staff member and shift. */
  apiCallsPerShift: 200,
  /** The manager's admin calls per merchant and shift (a page of the staff list each). */
  adminCallsPerMerchantPerShift: 10,
  /** Second-factor codes sent by SMS, per staff member and month (a new device). */
  smsPerStaffPerMonth: 1,
  /** Emails (codes, notices) per staff member and month. */
  emailsPerStaffPerMonth: 2,
} as const;

/** What the cost model assumes besides the profile (not measured here; say so where used). */
export const ASSUMPTIONS = {
  /** Share of invocations that start a new Lambda instance (a cold start, billed since 2025 with its INIT phase). */
  coldStartShare: 0.01,
  /** Wall time of one DynamoDB round trip inside a region, waited for (billed, but no CPU). */
  dynamoRoundTripMs: 4,
  /** The publisher (publish-events) is invoked once per outbox write at this rate and takes one PutEvents round trip. */
  publishMsPerEvent: 30,
  publishMemoryMB: 256,
  /** Table storage per active user: user, username record, sessions and a month of audit events. */
  storageKiBPerUser: 100,
  /** Lambda's CPU share: 1,769 MB is one vCPU; below it, CPU time stretches by 1769 / memory. */
  oneVcpuMB: 1769,
} as const;

const READ = '2026-11-26';
/** Known list prices not re-read on that date (each under 1% of the total but SMS): check them before relying on their rows. */
const UNREAD = 'not re-read';
/**
 * List prices, USD, US East (N. Virginia), first tier, read on 2026-11-26 from the pages
 * named or from copies that quote them (the pages render their prices by script). The service deploys to eu-west-1 by default, whose prices the same pages give
 * (they differ by region; Cognito's are compared in the same region).
 */
export const PRICES = {
  lambdaArmGbSecond: { usd: 0.0000133334, source: 'https://aws.amazon.com/lambda/pricing/', read: READ },
  lambdaRequest: { usd: 0.2 / 1e6, source: 'https://aws.amazon.com/lambda/pricing/', read: READ },
  httpApiRequest: { usd: 1.0 / 1e6, source: 'https://aws.amazon.com/api-gateway/pricing/', read: READ },
  dynamoReadUnit: { usd: 0.125 / 1e6, source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/', read: READ },
  dynamoWriteUnit: { usd: 0.625 / 1e6, source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/', read: READ },
  dynamoStorageGbMonth: { usd: 0.25, source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/', read: UNREAD },
  eventBridgeEvent: { usd: 1.0 / 1e6, source: 'https://aws.amazon.com/eventbridge/pricing/', read: READ },
  sqsRequest: { usd: 0.4 / 1e6, source: 'https://aws.amazon.com/sqs/pricing/', read: UNREAD },
  kmsRequest: { usd: 0.03 / 1e4, source: 'https://aws.amazon.com/kms/pricing/', read: UNREAD },
  secretsManagerCall: { usd: 0.05 / 1e4, source: 'https://aws.amazon.com/secrets-manager/pricing/', read: READ },
  sesEmail: { usd: 0.1 / 1e3, source: 'https://aws.amazon.com/ses/pricing/', read: UNREAD },
  /** SMS prices depend on the destination country; this is an order of magnitude for Europe. */
  snsSms: { usd: 0.08, source: 'https://aws.amazon.com/sns/sms-pricing/', read: `${UNREAD}: an order of magnitude` },
} as const;

/** Per-MAU prices of the hosted alternatives (beyond their free tiers), same reading. */
export const PEERS = [
  { name: 'Cognito Lite', usdPerMau: 0.0055, source: 'https://aws.amazon.com/cognito/pricing/' },
  { name: 'Cognito Essentials (the default tier)', usdPerMau: 0.015, source: 'https://aws.amazon.com/cognito/pricing/' },
  { name: 'Cognito Plus', usdPerMau: 0.02, source: 'https://aws.amazon.com/cognito/pricing/' },
  { name: 'Auth0 B2C Essentials ($35 a month for up to 500 MAU)', usdPerMau: 35 / 500, source: 'https://auth0.com/pricing' },
  { name: 'Auth0 B2C Professional ($240 a month for up to 500 MAU)', usdPerMau: 240 / 500, source: 'https://auth0.com/pricing' },
] as const;
/** The aim: at most a tenth of Cognito's price per MAU (its default tier). */
const TARGET_SHARE = 0.1;
const COGNITO = PEERS[1];

// ---------------------------------------------------------------- serverless.yml

export interface FunctionSettings {
  functionName: string;
  bundle: string;
  /** Its own `memorySize`, or the provider's. */
  memoryMB: number;
  /** Packages the native Argon2 binding: it hashes passwords. */
  hashes: boolean;
  /** Secrets Manager reads at a cold start (signing keys, the pepper). */
  secretReads: number;
  /** Whether it may decrypt the MFA data key (KMS) at its first MFA use. */
  kms: boolean;
}

/** Every function of serverless.yml with its memory size and what its cold start calls (a reader for the file's shapes). */
export function functionSettings(serverlessYml: string): FunctionSettings[] {
  const lines = serverlessYml.split(/\r?\n/);
  const providerAt = lines.findIndex((line) => /^provider:\s*$/.test(line));
  let providerMemory = 1024;
  for (let i = providerAt + 1; i < lines.length && !/^\S/.test(lines[i] ?? ''); i++) {
    const size = /^ {2}memorySize:\s*(\d+)/.exec(lines[i] ?? '')?.[1];
    if (size) providerMemory = Number(size);
  }
  const start = lines.findIndex((line) => /^functions:\s*$/.test(line));
  const blocks: Array<{ name: string; text: string[] }> = [];
  for (let i = start + 1; i < lines.length && !/^\S/.test(lines[i] ?? ''); i++) {
    const name = /^ {2}([A-Za-z0-9_-]+):\s*$/.exec(lines[i] ?? '')?.[1];
    if (name) blocks.push({ name, text: [] });
    else blocks.at(-1)?.text.push(lines[i] ?? '');
  }
  return blocks.flatMap(({ name, text }) => {
    const body = text.join('\n');
    const bundle = /handler:\s*dist\/functions\/([\w-]+)\.handler/.exec(body)?.[1];
    if (!bundle) return [];
    const size = /^ {4}memorySize:\s*(\d+)/m.exec(body)?.[1];
    return [
      {
        functionName: name,
        bundle,
        memoryMB: size ? Number(size) : providerMemory,
        hashes: body.includes('argon2Files'),
        secretReads: (body.match(/secretsmanager:GetSecretValue|clientSecretPepperStatement/g) ?? []).length,
        kms: /kms:|mfaKeyStatement/.test(body),
      },
    ];
  });
}

// ---------------------------------------------------------------- memory sizes

export interface MemoryChoice {
  bundle: string;
  sizeMB: number;
  why: string;
}

/** The sizes a function may have: Lambda's smallest, then powers of two up to the one that hashes. */
const SIZES = [128, 256, 512, 1024] as const;
/** Peak RSS may use at most this share of the memory size (V8 grows its heap towards the limit; a spike must fit). */
const HEADROOM = 0.6;
/** Functions that hash (Argon2id, OWASP's 19 MiB) get this size: see docs/decisions/030-memory-sizes.md. */
export const HASHING_MB = 1024;
/** The others' floor: a cold start's CPU stretches by 1769 / size, and 128 MB makes it 13.8×. */
export const DEFAULT_MB = 256;

/**
 * Functions whose one call is seconds of CPU though they do not hash: at 256 MB their CPU
 * would stretch 6.9× towards their timeout. Each with the reason.
 */
const CPU_BOUND: Record<string, string> = {
  'admin-import-users':
    "one call creates up to 1,000 users (2.84 s for 1,000 rows here, on one core: docs/performance.md); at 256 MB's 0.14 vCPU its CPU would stretch 6.9× towards API Gateway's 30 s",
};

/** The size docs/decisions/030-memory-sizes.md gives a function with this peak RSS. */
export function chooseMemory(bundle: string, peakRssMiB: number, hashes: boolean): MemoryChoice {
  const fits = SIZES.find((size) => size >= DEFAULT_MB && peakRssMiB <= HEADROOM * size) ?? HASHING_MB;
  const bound = CPU_BOUND[bundle];
  if (bound) return { bundle, sizeMB: Math.max(HASHING_MB, fits), why: bound };
  if (hashes)
    return {
      bundle,
      sizeMB: Math.max(HASHING_MB, fits),
      why: 'hashes passwords (Argon2id is CPU: 0.58 vCPU keeps a sign-in near one hash on a core)',
    };
  return {
    bundle,
    sizeMB: fits,
    why:
      fits === DEFAULT_MB
        ? `peak RSS ${fixed(peakRssMiB, 0)} MiB within ${HEADROOM * 100}% of ${DEFAULT_MB} MB; little CPU per request`
        : `peak RSS ${fixed(peakRssMiB, 0)} MiB needs ${fits} MB to stay within ${HEADROOM * 100}%`,
  };
}

// ---------------------------------------------------------------- DynamoDB traffic

export interface Traffic {
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  /** Writes of an outbox item (`sk` EVENTS): each becomes a stream record and its events. */
  outboxWrites: number;
  /** Conditional writes DynamoDB refused: each still costs a write unit. */
  refusedWrites: number;
  commands: Record<string, number>;
}

const emptyTraffic = (): Traffic => ({ roundTrips: 0, readUnits: 0, writeUnits: 0, outboxWrites: 0, refusedWrites: 0, commands: {} });
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const CAPACITY = new Set([...WRITES, 'GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** The units of a `ConsumedCapacity` answer (one object, or one per table). */
function unitsOf(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0), 0);
}

/**
 * A proxy in front of DynamoDB Local that counts what passes: round trips per command,
 * and the capacity units DynamoDB Local reports when each command asks for them.
 * (DynamoDB Local checks no signature, so the body can gain that one member.)
 */
export async function capacityProxy(target: string): Promise<{ endpoint: string; take(): Traffic; close(): Promise<void> }> {
  const to = new URL(target);
  let traffic = emptyTraffic();
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      const text = Buffer.concat(chunks).toString('utf8');
      const asks = CAPACITY.has(operation);
      let body = text;
      // DynamoDB bills a transaction 2 units per item at least; DynamoDB Local counts items under 1 KB once.
      let floor = 0;
      if (asks) {
        const input = JSON.parse(text) as Record<string, unknown>;
        if (operation.startsWith('Transact')) floor = 2 * ((input.TransactItems as unknown[] | undefined)?.length ?? 0);
        const ownAsk = input.ReturnConsumedCapacity !== undefined;
        if (!ownAsk) body = JSON.stringify({ ...input, ReturnConsumedCapacity: 'TOTAL' });
      }
      traffic.roundTrips++;
      traffic.commands[operation] = (traffic.commands[operation] ?? 0) + 1;
      if (WRITES.has(operation)) traffic.outboxWrites += (text.match(/"sk":\{"S":"EVENTS"\}/g) ?? []).length;
      const forward = httpRequest(
        {
          host: to.hostname,
          port: to.port,
          method: 'POST',
          path: '/',
          headers: { ...incoming.headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            let reply = Buffer.concat(parts).toString('utf8');
            if (asks && answer.statusCode === 200 && reply) {
              const output = JSON.parse(reply) as Record<string, unknown>;
              const units = Math.max(floor, unitsOf(output.ConsumedCapacity));
              if (WRITES.has(operation)) traffic.writeUnits += units;
              else traffic.readUnits += units;
              // The function sees the answer it asked for.
              if (!text.includes('"ReturnConsumedCapacity"')) {
                delete output.ConsumedCapacity;
                reply = JSON.stringify(output);
              }
            } else if (WRITES.has(operation) && /ConditionalCheckFailed|TransactionCanceled/.test(reply)) {
              traffic.refusedWrites++;
              traffic.writeUnits += 1;
            }
            outgoing.writeHead(answer.statusCode ?? 500, { ...answer.headers, 'content-length': String(Buffer.byteLength(reply)) });
            outgoing.end(reply);
          });
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502);
        outgoing.end(String(error));
      });
      forward.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  const port = await new Promise<number>((listening) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      listening(typeof address === 'object' && address ? address.port : 0);
    }),
  );
  return {
    endpoint: `http://127.0.0.1:${port}`,
    take() {
      const taken = traffic;
      traffic = emptyTraffic();
      return taken;
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

// ---------------------------------------------------------------- the operations

/** One operation of the profile: one function's invocation, how often per staff member and month. */
interface Operation {
  name: string;
  bundle: string;
  perStaffMonth: number;
  /** Whether it is an HTTP request of ours through API Gateway (the authorizer is not: it rides on one). */
  httpRequest: boolean;
  events: unknown[];
  chain?: ProbeInput['chain'];
}

export interface CostInput {
  functionsDir: string;
  env: NodeJS.ProcessEnv;
  dynamoEndpoint: string;
  serverlessYml: string;
  tmp: string;
  /** Invocations measured per operation (after as many warm-ups, at most 200; login a fifth of them). */
  calls: number;
  login: { username: string; password: string; tenantId: string };
  /** An unused refresh token: the refreshes rotate it, one after the other. */
  refreshToken: string;
  /** The access token and identity of a signed-in staff member, and of an ADMIN. */
  member: { identity: Identity; token: string };
  admin: Identity;
  /** Sessions that may be ended (logout), one per measured call. */
  endable: Identity[];
  cold: ColdStart[];
  /** The run, as the document names it: command, commit, machine, load. */
  run: string;
  say: (message: string) => void;
}

function operations(input: CostInput): Operation[] {
  const p = MERCHANT_PROFILE;
  const shifts = p.shiftsPerMonth;
  const signIns = p.signInsPerShift * shifts;
  const refreshes = ((p.shiftHours * 60) / p.refreshEveryMinutes) * shifts;
  const adminCalls = (p.adminCallsPerMerchantPerShift * shifts) / p.staff;
  const logouts = shifts;
  return [
    {
      name: 'authorizer (every API call, me, logout, admin call)',
      bundle: 'authorizer',
      perStaffMonth: p.apiCallsPerShift * shifts + signIns + logouts + adminCalls,
      httpRequest: false,
      events: [authorizerEvent(json('GET', '/auth/me', undefined, { authorization: `Bearer ${input.member.token}` }))],
    },
    { name: 'login', bundle: 'login', perStaffMonth: signIns, httpRequest: true, events: [json('POST', '/auth/login', input.login)] },
    {
      name: 'me (after each sign-in)',
      bundle: 'me',
      perStaffMonth: signIns,
      httpRequest: true,
      events: [withContext(json('GET', '/auth/me'), input.member.identity)],
    },
    {
      name: `refresh (every ${p.refreshEveryMinutes} min of a shift)`,
      bundle: 'refresh-token',
      perStaffMonth: refreshes,
      httpRequest: true,
      events: [json('POST', '/auth/refresh', { refreshToken: input.refreshToken })],
      chain: 'refreshToken',
    },
    {
      name: 'logout (end of shift)',
      bundle: 'logout',
      perStaffMonth: logouts,
      httpRequest: true,
      events: input.endable.map((identity) => withContext(json('POST', '/auth/logout'), identity)),
    },
    {
      name: `admin: a page of ${p.staff} users`,
      bundle: 'admin-list-users',
      perStaffMonth: adminCalls,
      httpRequest: true,
      events: [withContext(json('GET', `/admin/users?limit=${p.staff}`), input.admin)],
    },
  ];
}

interface Measured extends Operation {
  figures: ProbeFigures;
  traffic: Traffic;
}

/** Runs one operation's probe on CPU 0, counting its DynamoDB traffic between its two handshakes. */
async function probe(
  operation: Operation,
  input: CostInput,
  proxy: Awaited<ReturnType<typeof capacityProxy>>,
  file: string,
): Promise<Measured> {
  const bundle = bundleFiles(input.functionsDir).get(operation.bundle);
  if (!bundle) throw new Error(`cost: no bundle ${operation.bundle}`);
  // Logout ends a session per call: no more calls than sessions to end. A login is Argon2id: a fifth as many.
  const calls =
    operation.bundle === 'logout'
      ? Math.min(input.calls, operation.events.length - 1)
      : operation.bundle === 'login'
        ? Math.max(1, Math.round(input.calls / 5))
        : input.calls;
  const warmups = operation.bundle === 'logout' ? 1 : Math.min(200, calls);
  const probeInput: ProbeInput = {
    bundle,
    events: operation.events,
    warmups,
    calls,
    ...(operation.chain ? { chain: operation.chain } : {}),
  };
  await writeFile(file, JSON.stringify(probeInput));
  const [command, args] = pinned(SERVER_CPU, ['bench/.work/out/cost-probe.mjs']);
  const child: ChildProcess = spawn(command, args, {
    env: { ...input.env, DYNAMODB_ENDPOINT: proxy.endpoint, BENCH_COST_INPUT: file },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let traffic = emptyTraffic();
  child.on('message', (message: { count?: string }) => {
    if (message.count === 'start') proxy.take();
    if (message.count === 'end') traffic = proxy.take();
    child.send({ counting: message.count });
  });
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`cost probe of ${operation.bundle} exited with code ${code}`);
  return { ...operation, figures: tagged<ProbeFigures>(Buffer.concat(chunks).toString('utf8'), 'cost-probe'), traffic };
}

// ---------------------------------------------------------------- the model

interface Line {
  item: string;
  usd: number;
  note: string;
}

/** Billed ms of one invocation: its CPU stretched by the memory's CPU share, plus its waits on DynamoDB, rounded up. */
export function billedMs(cpuMs: number, roundTrips: number, memoryMB: number): number {
  return Math.ceil(cpuMs * Math.max(1, ASSUMPTIONS.oneVcpuMB / memoryMB) + roundTrips * ASSUMPTIONS.dynamoRoundTripMs);
}

/** Monthly USD per 1,000 monthly active users, item by item, with the memory sizes given. */
function monthlyCost(
  measured: Measured[],
  memoryOf: (bundle: string) => number,
  cold: Map<string, ColdStart>,
  settings: Map<string, FunctionSettings>,
) {
  const users = 1000;
  const lines: Line[] = [];
  const usage = measured.map((op) => {
    const count = op.perStaffMonth * users;
    const per = (value: number) => value / op.figures.calls;
    const memory = memoryOf(op.bundle);
    const starts = count * ASSUMPTIONS.coldStartShare;
    const first = cold.get(op.bundle);
    const gigabytes = memory / 1024;
    return {
      name: op.name,
      gbSeconds:
        count * gigabytes * (billedMs(op.figures.cpuMsPerCall, per(op.traffic.roundTrips), memory) / 1000) +
        // The INIT phase and first invocation, measured on one core, stretched as any CPU time.
        (first ? starts * gigabytes * (billedMs(first.firstInvocationMs, 0, memory) / 1000) : 0),
      invocations: count,
      httpRequests: op.httpRequest ? count : 0,
      readUnits: count * per(op.traffic.readUnits),
      writeUnits: count * per(op.traffic.writeUnits),
      events: count * per(op.traffic.outboxWrites),
      coldStarts: starts,
      secretReads: starts * (settings.get(op.bundle)?.secretReads ?? 0),
      kmsCalls: settings.get(op.bundle)?.kms ? starts : 0,
    };
  });
  type Usage = (typeof usage)[number];
  const sum = (key: Exclude<keyof Usage, 'name'>) => usage.reduce((total, u) => total + u[key], 0);
  /** An operation's own share: Lambda, API Gateway, DynamoDB requests and its events' price. */
  const priced = (u: Usage) =>
    u.gbSeconds * PRICES.lambdaArmGbSecond.usd +
    u.invocations * PRICES.lambdaRequest.usd +
    u.httpRequests * PRICES.httpApiRequest.usd +
    u.readUnits * PRICES.dynamoReadUnit.usd +
    u.writeUnits * PRICES.dynamoWriteUnit.usd +
    u.events * PRICES.eventBridgeEvent.usd +
    u.secretReads * PRICES.secretsManagerCall.usd +
    u.kmsCalls * PRICES.kmsRequest.usd;
  const perOperation = usage.map((u) => ({ name: u.name, usd: priced(u) }));
  const gbSeconds = sum('gbSeconds');
  const invocations = sum('invocations');
  const httpRequests = sum('httpRequests');
  const readUnits = sum('readUnits');
  const writeUnits = sum('writeUnits');
  const events = sum('events');
  const coldStarts = sum('coldStarts');
  const secretReads = sum('secretReads');
  const kmsCalls = sum('kmsCalls');
  // The publisher: one invocation per outbox write (a conservative batch of one).
  const publishGbSeconds = events * (ASSUMPTIONS.publishMemoryMB / 1024) * (ASSUMPTIONS.publishMsPerEvent / 1000);
  lines.push(
    {
      item: 'Lambda duration (arm64)',
      usd: gbSeconds * PRICES.lambdaArmGbSecond.usd,
      note: `${whole(gbSeconds)} GB-s, cold starts included`,
    },
    { item: 'Lambda requests', usd: invocations * PRICES.lambdaRequest.usd, note: `${whole(invocations)} invocations` },
    { item: 'API Gateway HTTP API requests', usd: httpRequests * PRICES.httpApiRequest.usd, note: `${whole(httpRequests)} of our routes` },
    { item: 'DynamoDB reads (on-demand)', usd: readUnits * PRICES.dynamoReadUnit.usd, note: `${whole(readUnits)} RRU` },
    { item: 'DynamoDB writes (on-demand)', usd: writeUnits * PRICES.dynamoWriteUnit.usd, note: `${whole(writeUnits)} WRU` },
    {
      item: 'DynamoDB storage',
      usd: ((users * ASSUMPTIONS.storageKiBPerUser) / 2 ** 20) * PRICES.dynamoStorageGbMonth.usd,
      note: `${ASSUMPTIONS.storageKiBPerUser} KiB per user (assumed)`,
    },
    {
      item: 'EventBridge events, and their publisher (Lambda)',
      usd: events * (PRICES.eventBridgeEvent.usd + PRICES.lambdaRequest.usd) + publishGbSeconds * PRICES.lambdaArmGbSecond.usd,
      note: `${whole(events)} outbox writes = events`,
    },
    { item: 'SQS (webhook deliveries)', usd: 0, note: 'the profile subscribes no webhook' },
    {
      item: 'Secrets Manager and KMS at cold starts',
      usd: secretReads * PRICES.secretsManagerCall.usd + kmsCalls * PRICES.kmsRequest.usd,
      note: `${whole(coldStarts)} cold starts: ${whole(secretReads)} secret reads, ${whole(kmsCalls)} KMS calls`,
    },
  );
  const service = lines.reduce((sum, line) => sum + line.usd, 0);
  const messages: Line[] = [
    {
      item: 'SMS codes (SNS)',
      usd: MERCHANT_PROFILE.smsPerStaffPerMonth * users * PRICES.snsSms.usd,
      note: `${MERCHANT_PROFILE.smsPerStaffPerMonth} per user; Cognito bills SMS through SNS too`,
    },
    {
      item: 'Emails (SES)',
      usd: MERCHANT_PROFILE.emailsPerStaffPerMonth * users * PRICES.sesEmail.usd,
      note: `${MERCHANT_PROFILE.emailsPerStaffPerMonth} per user; Cognito bills SES too`,
    },
  ];
  // What no code change removes: each invocation of the profile is a Lambda request, each call of a route an API Gateway one.
  const requestCharges = invocations * PRICES.lambdaRequest.usd + httpRequests * PRICES.httpApiRequest.usd;
  return { lines, service, requestCharges, messages, perOperation, total: service + messages.reduce((total, line) => total + line.usd, 0) };
}

// ---------------------------------------------------------------- the stage

export interface CostOutcome {
  markdown: string;
  targets: Array<{ target: string; figure: string; pass: boolean }>;
  failed: string[];
}

const usd = (value: number) => (value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`);

/** Measures the profile's operations and writes docs/cost.md's text. */
export async function costStage(input: CostInput): Promise<CostOutcome> {
  const settings = new Map(functionSettings(input.serverlessYml).map((f) => [f.bundle, f]));
  const cold = new Map(input.cold.map((c) => [c.bundle, c]));
  const proxy = await capacityProxy(input.dynamoEndpoint);
  const measured: Measured[] = [];
  try {
    for (const operation of operations(input)) {
      input.say(`  cost: ${operation.name}`);
      measured.push(await probe(operation, input, proxy, join(input.tmp, `cost-${operation.bundle}.json`)));
    }
  } finally {
    await proxy.close();
  }
  const failed = measured.filter((m) => m.figures.failed > 0).map((m) => `${m.name}: ${m.figures.failed} of ${m.figures.calls} failed`);

  // Memory: every function, from its cold process's peak RSS (and its warm one where the profile ran it).
  const warmRss = new Map(measured.map((m) => [m.bundle, m.figures.maxRssMiB]));
  const choices = [...settings.values()].map((f) => {
    const peak = Math.max(cold.get(f.bundle)?.maxRssMiB ?? 0, warmRss.get(f.bundle) ?? 0);
    return { settings: f, peak, cold: cold.get(f.bundle), choice: chooseMemory(f.bundle, peak, f.hashes) };
  });
  const measuredChoices = choices.filter((c) => c.cold);
  const mismatched = measuredChoices.filter((c) => c.choice.sizeMB !== c.settings.memoryMB);

  const configured = monthlyCost(measured, (bundle) => settings.get(bundle)?.memoryMB ?? 1024, cold, settings);
  const everywhere = (size: number) =>
    monthlyCost(measured, (bundle) => (settings.get(bundle)?.hashes ? HASHING_MB : size), cold, settings);
  const before = monthlyCost(measured, () => 1024, cold, settings);
  const at128 = everywhere(128);
  const cognitoPer1000 = COGNITO.usdPerMau * 1000;
  const limit = cognitoPer1000 * TARGET_SHARE;
  const authorizer = measured.find((m) => m.bundle === 'authorizer');
  const withoutApiCalls = monthlyCost(
    measured.map((m) =>
      m === authorizer ? { ...m, perStaffMonth: m.perStaffMonth - MERCHANT_PROFILE.apiCallsPerShift * MERCHANT_PROFILE.shiftsPerMonth } : m,
    ),
    (bundle) => settings.get(bundle)?.memoryMB ?? 1024,
    cold,
    settings,
  );

  const targets = [
    {
      target: `cost per 1,000 MAU ≤ a tenth of ${COGNITO.name.split(' (')[0]} (${usd(limit)}), SMS/email aside`,
      figure:
        `${usd(configured.service)} = ${fixed((100 * configured.service) / cognitoPer1000, 1)}% of ${usd(cognitoPer1000)}; ` +
        `its request charges alone ${usd(configured.requestCharges)}`,
      pass: configured.service <= limit,
    },
    {
      target: 'every measured function at the memory size its measurements give (serverless.yml)',
      figure:
        mismatched.length === 0
          ? `${measuredChoices.length} functions`
          : `${mismatched.length} of ${measuredChoices.length} differ: ${mismatched
              .slice(0, 5)
              .map((c) => c.settings.functionName)
              .join(', ')}${mismatched.length > 5 ? ', ...' : ''}`,
      pass: mismatched.length === 0,
    },
  ];

  const p = MERCHANT_PROFILE;
  const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  const md: string[] = [
    '# What the service costs a merchant',
    '',
    'Generated by `npm run bench -- --cost` (bench/cost.ts); do not edit by hand. Every figure',
    'below but the prices and the assumptions was measured in one run:',
    `${input.run}.`,
    '',
    '## The merchant',
    '',
    row(['profile (bench/cost.ts `MERCHANT_PROFILE`)', 'value']),
    row(['---', '---:']),
    row(['staff members (each one monthly active user)', p.staff]),
    row(['shifts a month, hours a shift', `${p.shiftsPerMonth}, ${p.shiftHours}`]),
    row(['sign-ins per staff member and shift (each reads `me`)', p.signInsPerShift]),
    row(['token refresh', `every ${p.refreshEveryMinutes} min of a shift (${(p.shiftHours * 60) / p.refreshEveryMinutes} a shift)`]),
    row(["requests of the merchant's app through the session authorizer, per staff member and shift", p.apiCallsPerShift]),
    row(["the manager's admin calls (a page of the staff list) per merchant and shift", p.adminCallsPerMerchantPerShift]),
    row(['SMS codes, emails per staff member and month', `${p.smsPerStaffPerMonth}, ${p.emailsPerStaffPerMonth}`]),
    '',
    'Assumed, not measured (bench/cost.ts `ASSUMPTIONS`): a cold start on ' +
      `${ASSUMPTIONS.coldStartShare * 100}% of invocations (billed with its INIT phase); ${ASSUMPTIONS.dynamoRoundTripMs} ms of wall time per DynamoDB round trip ` +
      `in the region (billed, no CPU); the event publisher invoked once per outbox write for ${ASSUMPTIONS.publishMsPerEvent} ms at ${ASSUMPTIONS.publishMemoryMB} MB; ` +
      `${ASSUMPTIONS.storageKiBPerUser} KiB stored per user. The API Gateway requests of the merchant's own API are the merchant's ` +
      "(they pay them with Cognito too); the authorizer's invocations and reads on them are ours and counted.",
    '',
    '## Per operation, measured',
    '',
    'Each operation in a fresh process on one core (bench/cost-probe.ts), its DynamoDB traffic counted by a proxy that',
    "asks DynamoDB Local for `ReturnConsumedCapacity: TOTAL` (DynamoDB's rules: 4 KB a read unit, 1 KB a write unit, a",
    "transaction twice; DynamoDB Local counts a transaction's items under 1 KB once, so the proxy raises a transaction to",
    'at least 2 units an item; a refused conditional write counts 1 WRU). Billed ms = CPU ms × 1769 / memory (below',
    `one vCPU) + round trips × ${ASSUMPTIONS.dynamoRoundTripMs} ms, rounded up.`,
    '',
    row([
      'operation',
      'per user a month',
      'function',
      'calls (failed)',
      'CPU ms',
      'round trips',
      'RRU',
      'WRU',
      'events',
      'memory MB',
      'billed ms',
    ]),
    row(['---', '---:', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...measured.map((m) => {
      const per = (value: number) => value / m.figures.calls;
      const memory = settings.get(m.bundle)?.memoryMB ?? 1024;
      return row([
        m.name,
        fixed(m.perStaffMonth, 0),
        m.bundle,
        `${m.figures.calls} (${m.figures.failed})`,
        fixed(m.figures.cpuMsPerCall, 3),
        fixed(per(m.traffic.roundTrips), 2),
        fixed(per(m.traffic.readUnits), 2),
        fixed(per(m.traffic.writeUnits), 2),
        fixed(per(m.traffic.outboxWrites), 2),
        memory,
        billedMs(m.figures.cpuMsPerCall, per(m.traffic.roundTrips), memory),
      ]);
    }),
    '',
    `Commands per invocation: ${measured
      .map(
        (m) =>
          `${m.bundle} ${Object.entries(m.traffic.commands)
            .map(([command, n]) => `${command} ${fixed(n / m.figures.calls, 2)}`)
            .join(', ')}`,
      )
      .join('; ')}.`,
    '',
    '## Monthly cost per 1,000 monthly active users',
    '',
    row(['item', 'USD a month', 'what']),
    row(['---', '---:', '---']),
    ...configured.lines.map((line) => row([line.item, usd(line.usd), line.note])),
    row(['**the service**', `**${usd(configured.service)}**`, '']),
    ...configured.messages.map((line) => row([line.item, usd(line.usd), line.note])),
    row(['**with SMS and email**', `**${usd(configured.total)}**`, '']),
    '',
    'By operation (its Lambda, API Gateway and DynamoDB requests, events and cold-start calls; the publisher and storage aside):',
    '',
    row(['operation', 'USD a month per 1,000 MAU', 'share']),
    row(['---', '---:', '---:']),
    ...configured.perOperation.map((op) => row([op.name, usd(op.usd), `${fixed((100 * op.usd) / configured.service, 0)}%`])),
    '',
    `Without the ${p.apiCallsPerShift} authorizer calls a shift (sign-in, refresh, me, logout and admin only): ${usd(withoutApiCalls.service)}. ` +
      `At the sizes before this choice (1024 MB everywhere): ${usd(before.service)}; with every non-hashing function at 128 MB: ${usd(at128.service)}.`,
    '',
    `The request charges alone, one Lambda request per invocation and one API Gateway request per call of a route, come to ${usd(configured.requestCharges)}: ` +
      'the profile fixes their number, and no change of code, memory or data removes one' +
      (configured.requestCharges > limit
        ? `; ${usd(limit)} is out of reach while the authorizer runs on every API call (a revoked session fails on its next request)`
        : '') +
      `. Without those calls they are ${usd(withoutApiCalls.requestCharges)}.`,
    '',
    '## Side by side (per 1,000 MAU a month, beyond each free tier)',
    '',
    row(['', 'USD', 'ours as a share']),
    row(['---', '---:', '---:']),
    row(['this service (SMS/email aside)', usd(configured.service), '']),
    ...PEERS.map((peer) =>
      row([
        `[${peer.name}](${peer.source})`,
        usd(peer.usdPerMau * 1000),
        `${fixed((100 * configured.service) / (peer.usdPerMau * 1000), 1)}%`,
      ]),
    ),
    '',
    'Cognito gives 10,000 MAU a month free on Lite and Essentials (none on Plus); Auth0 sells blocks of MAU, so a',
    'merchant of 10 pays the whole block. SMS and email are billed the same way by both (SNS, SES).',
    '',
    '## Targets',
    '',
    row(['target', 'figure', 'result']),
    row(['---', '---', '---']),
    ...targets.map((t) => row([t.target, t.figure, t.pass ? 'PASS' : 'MISS'])),
    '',
    '## Memory sizes',
    '',
    `Chosen by docs/decisions/030-memory-sizes.md: a function that hashes passwords gets ${HASHING_MB} MB; any other the`,
    `smallest of ${SIZES.filter((s) => s >= DEFAULT_MB).join(', ')} MB whose ${HEADROOM * 100}% holds its peak RSS. Peak RSS: the median of its`,
    "cold processes (load and first invocation; bench/cold-starts.ts), or, for the profile's functions, the larger of that",
    "and its probe's process after all its invocations. CPU ms: the cold first invocation on one core (load included);",
    'for the profile, the warm CPU per invocation too.',
    '',
    row(['function', 'bundle', 'peak RSS MiB', 'cold load + first invocation ms', 'warm CPU ms', 'serverless.yml MB', 'chosen MB', 'why']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---']),
    ...choices.map((c) => {
      const warm = measured.find((m) => m.bundle === c.settings.bundle);
      return row([
        c.settings.functionName,
        c.settings.bundle,
        c.cold ? fixed(c.peak, 1) : '-',
        c.cold ? fixed(c.cold.firstInvocationMs, 1) : '-',
        warm ? fixed(warm.figures.cpuMsPerCall, 3) : '',
        c.settings.memoryMB,
        c.cold ? c.choice.sizeMB : '-',
        c.cold ? c.choice.why : 'not measured (no cold start: runs at deploy time)',
      ]);
    }),
    '',
    '## Prices',
    '',
    row(['price', 'USD', 'source', 'read']),
    row(['---', '---:', '---', '---']),
    ...Object.entries(PRICES).map(([name, price]) => row([name, String(price.usd), price.source, price.read])),
    '',
    'US East (N. Virginia) list prices, first tier, no free tier counted; read: the date each was read from its page or',
    'from copies that quote it (the pages render their prices by script), or "not re-read" for well-known list prices',
    'taken as they are. The service deploys to eu-west-1 by default',
    "(serverless.yml), whose prices the same pages give; they differ by region, for Cognito's as for ours. SMS prices",
    'depend on the destination country (the figure is an order of magnitude for Europe).',
    '',
  ];
  return { markdown: md.join('\n'), targets, failed };
}
