/**
 * Cold start of every bundle in dist/functions: its size, and the time a fresh Node
 * process (bench/cold-start.ts, on CPU 0) takes to load it and serve one real
 * request, median of several processes. Each process gets a request of its own
 * (a fresh refresh token, a new tenant to register, ...) so none is a replay.
 *
 * The ratio (docs/performance.md, Cold starts): such a process from spawn to exit against an empty Node
 * process (the same entry without a bundle), interleaved: every run goes through all
 * bundles, each right after an empty process, so a busier moment of the machine
 * weighs on both sides alike. Ratio = median of the bundle's processes / median of
 * all the empty ones.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { Secret, TOTP } from 'otpauth';
import type { Config } from '../lib/config';
import { toAuthorizerContext } from '../lib/http/identity';
import type { Identity } from '../lib/tokens/access-token';
import type { KeySet } from '../lib/tokens/signing-keys';
import type { RouteTable } from '../scripts/lib/serverless-routes';
import { authorizerEvent, bundleFiles, proxyEvent } from './adapter';
import { runPinned, tagged } from './processes';
import { fixed, table } from './report';
import { accessTokenFor } from './seed';

/** Bundles that never serve a request (CloudFormation custom resources): no cold start users wait on. */
const DEPLOY_TIME = new Set(['sms-spend-limit']);
export interface ColdStart {
  bundle: string;
  sizeBytes: number;
  /** Medians, milliseconds. */
  loadMs: number;
  invokeMs: number;
  firstInvocationMs: number;
  sinceProcessStartMs: number;
  /** Status code of the first answer (or the authorizer's verdict). */
  outcome: string | number;
  /** Median peak RSS of the bundle's processes, MiB (bench/cost.ts sizes memory by it). */
  maxRssMiB: number;
  /** Median wall time of the whole process, spawn to exit (load and first invocation included). */
  processMs: number;
  /** Median wall time of an empty Node process in the same run. */
  emptyProcessMs: number;
  /** processMs / emptyProcessMs. */
  ratio: number;
}

/** Makes the event of the i-th cold start of a bundle. */
export type EventMaker = (run: number) => Promise<unknown>;

export interface ColdStartInput {
  functionsDir: string;
  routes: RouteTable;
  env: NodeJS.ProcessEnv;
  runs: number;
  keySet: KeySet;
  config: Config;
  /** Unused refresh tokens (one per run). */
  sessions: string[];
  /** Live sessions' identities (one per run, for logout and friends). */
  identities: Identity[];
  /** A live session of the tenant's ADMIN: the caller of the administration's functions. */
  admin: Identity;
  login: { username: string; password: string; tenantId: string };
  /** Events for the OAuth bundles, when they exist. */
  oauth: Record<string, EventMaker>;
  tmp: string;
  /** CPU-profile the first cold start of each bundle (bench/.work/profiles/cold-<bundle>.cpuprofile). */
  profile: boolean;
  say: (message: string) => void;
}

const totpSecrets = new Map<number, string>();
/** A base32 TOTP secret of 160 bits per run. */
function totpSecret(run: number): string {
  let secret = totpSecrets.get(run);
  if (!secret) {
    secret = new Secret({ size: 20 }).base32;
    totpSecrets.set(run, secret);
  }
  return secret;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The event as the function receives it behind the session authorizer: the caller's context added. */
export function withContext(event: APIGatewayProxyEventV2, identity: Identity): APIGatewayProxyEventV2 {
  (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: toAuthorizerContext(identity) };
  return event;
}

/** An API Gateway event of a JSON request (a body, when given, as JSON). */
export const json = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  proxyEvent({
    method,
    url,
    headers: {
      host: 'api.example.com',
      'user-agent': 'bench',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? '' : JSON.stringify(body),
  });

/** The settings serverless.yml gives the event functions alone: locally, the events file and a queue URL never sent to. */
function eventSettings(bundle: string, tmp: string): NodeJS.ProcessEnv {
  if (bundle === 'publish-events') return { EVENTS_FILE: join(tmp, 'events.jsonl') };
  if (bundle === 'deliver-events') return { DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries' };
  return {};
}

export async function coldStarts(input: ColdStartInput): Promise<ColdStart[]> {
  const { routes, runs } = input;
  // Every process's run, the profiled one too: the identities each run takes must not meet another run's.
  const processes = runs + (input.profile ? 1 : 0);
  // As the authorizer would pass it for a user who signed in just now: the operations that
  // ask for a recent sign-in (docs/api.md 8.6) run, where a session seeded minutes before
  // the cold starts would be refused in the later runs (403) and not in the first ones.
  const identity = (run: number): Identity => {
    const found = input.identities[run];
    if (!found) throw new Error('not enough sessions for the cold starts');
    return { ...found, authTime: Math.floor(Date.now() / 1000) };
  };
  const makers: Record<string, EventMaker> = {
    authorizer: async (run) =>
      authorizerEvent(
        json('GET', '/auth/me', undefined, { authorization: `Bearer ${await accessTokenFor(input.keySet, input.config, identity(run))}` }),
      ),
    login: async () => json('POST', '/auth/login', input.login),
    'refresh-token': async (run) => json('POST', '/auth/refresh', { refreshToken: input.sessions[run] }),
    // A new tenant's first ADMIN: the anonymous path (hash, common-password list, transaction).
    register: async () =>
      json('POST', '/auth/register', {
        username: 'first-admin',
        password: randomBytes(15).toString('base64url'),
        role: 'ADMIN',
        tenantId: `cold-${randomBytes(6).toString('hex')}`,
      }),
    logout: async (run) => withContext(json('POST', '/auth/logout'), identity(run + processes)),
    me: async (run) => withContext(json('GET', '/auth/me'), identity(run)),
    jwks: async () => json('GET', '/.well-known/jwks.json'),
    // The event functions (docs/api.md 17): an empty batch of the stream and of the delivery queue.
    'publish-events': async () => ({ Records: [] }) as never,
    'deliver-events': async () => ({ Records: [] }) as never,
    // A TOTP method made pending by one cold start is verified, with a right code, by the next bundle's.
    'enable-mfa': async (run) =>
      withContext(json('POST', '/auth/mfa/enable', { method: 'TOTP', secret: totpSecret(run) }), identity(run + 2 * processes + 2)),
    'verify-mfa': async (run) =>
      withContext(
        json('POST', '/auth/mfa/verify', { method: 'TOTP', code: new TOTP({ secret: Secret.fromBase32(totpSecret(run)) }).generate() }),
        identity(run + 2 * processes + 2),
      ),
    // The account page and the console without a session: the tenant's sign-in page (docs/api.md 15.1).
    'account-page': async () => json('GET', `/account?tenant=${input.login.tenantId}`),
    'admin-console-page': async () => json('GET', `/admin?tenant=${input.login.tenantId}`),
    // Their forms without a session or a CSRF token: the error page (docs/api.md 15.1).
    'account-action': async () => ({ ...json('POST', '/account/profile/email'), pathParameters: { section: 'profile', action: 'email' } }),
    'admin-console-action': async () => ({
      ...json('POST', '/admin/console/staff/invite'),
      pathParameters: { section: 'staff', action: 'invite' },
    }),
    // The passkey sign-in's first request runs the WebAuthn parser (a refused assertion, 401).
    'passkey-authentication': async () =>
      json('POST', '/auth/passkeys/authentication', {
        tenantId: 'bench',
        credential: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: {
            clientDataJSON: Buffer.from(
              JSON.stringify({ type: 'webauthn.get', challenge: 'AAAA', origin: 'http://localhost:3000' }),
            ).toString('base64url'),
            authenticatorData: 'AAAA',
            signature: 'AAAA',
          },
        },
      }),
    ...input.oauth,
  };
  // Any other bundle (one landed since this file was written): its route with an empty
  // body, with the caller's context where the authorizer runs. The administration's
  // functions (tenant and OAuth clients) are called by the ADMIN, so that a list or a read
  // is served, not refused by role. A path parameter is an id (or domain) that does not
  // exist, well formed: a lookup, then 404. (Not the ADMIN's own: no cold start may delete
  // or sign out the ADMIN the later stages use.) A body stays empty: a write is refused
  // by its validation, before any read.
  const ADMIN_ONLY = /^\/(admin|oauth2\/clients)(\/|$)/;
  /** The bundles whose write the ADMIN sends: one that succeeded would have changed the bench's tenant (checked below). */
  const adminWrites = new Set<string>();
  const generic = (bundle: string): EventMaker => {
    const route = routes.routes.find((r) => r.bundle === bundle);
    return async (run) => {
      const path = route?.path ?? '/';
      const caller = ADMIN_ONLY.test(path) ? input.admin : identity(run);
      if (caller === input.admin && route?.method !== 'GET') adminWrites.add(bundle);
      const params = Object.fromEntries(
        [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => [name, name === 'domain' ? 'cold-start.example.com' : randomUUID()]),
      );
      const event = json(
        route?.method ?? 'GET',
        path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? ''),
      );
      if (Object.keys(params).length > 0) event.pathParameters = params;
      return route?.authorizer ? withContext(event, caller) : event;
    };
  };

  type Sample = Pick<ColdStart, 'loadMs' | 'invokeMs' | 'firstInvocationMs' | 'sinceProcessStartMs' | 'outcome' | 'maxRssMiB'>;
  // Request paths only: the SMS spend-limit custom resource runs at deploy time, on a CloudFormation event.
  const bundles = [...bundleFiles(input.functionsDir)].filter(([bundle]) => !DEPLOY_TIME.has(bundle));
  const samples = new Map<string, Array<Sample & { processMs: number }>>(bundles.map(([bundle]) => [bundle, []]));
  const empty: number[] = [];
  // With profiling, run 0 is profiled and so left out of the figures.
  for (let run = 0; run < processes; run++) {
    const profiled = input.profile && run === 0;
    for (const [bundle, path] of bundles) {
      const eventFile = join(input.tmp, `event-${bundle}-${run}.json`);
      await writeFile(eventFile, JSON.stringify(await (makers[bundle] ?? generic(bundle))(run)));
      const baseline = await runPinned('bench/.work/out/cold-start.mjs', { ...input.env, BENCH_BUNDLE: '' });
      const profile = profiled ? { BENCH_PROFILE_FILE: join('bench', '.work', 'profiles', `cold-${bundle}.cpuprofile`) } : {};
      const { stdout, wallMs } = await runPinned('bench/.work/out/cold-start.mjs', {
        ...input.env,
        ...eventSettings(bundle, input.tmp),
        ...profile,
        BENCH_BUNDLE: path,
        BENCH_EVENT_FILE: eventFile,
      });
      const sample = tagged<Sample>(stdout, 'cold-start');
      // A write of the ADMIN must be refused (no body) or find nothing (an id that does not
      // exist): one that succeeds changed what the later stages measure (a route that needs no body).
      if (adminWrites.has(bundle) && /^2/.test(String(sample.outcome)))
        throw new Error(`cold start of ${bundle}: the ADMIN's write answered ${sample.outcome}; give it an event of its own`);
      // A cold start that fails measured a failure: the bundle's own log says why.
      if (/^5/.test(String(sample.outcome))) throw new Error(`cold start of ${bundle} answered ${sample.outcome}:\n${stdout.trim()}`);
      if (profiled) continue;
      empty.push(baseline.wallMs);
      samples.get(bundle)?.push({ ...sample, processMs: wallMs });
    }
    input.say(`  run ${run + 1} of ${processes}: ${bundles.length} bundles, each after an empty process`);
  }

  const emptyProcessMs = median(empty);
  const results: ColdStart[] = [];
  for (const [bundle, path] of bundles) {
    const taken = samples.get(bundle) ?? [];
    const outcomes = [...new Set(taken.map((s) => s.outcome))];
    // Each run's request must take the same path, or the median mixes two different requests.
    if (outcomes.length > 1) throw new Error(`cold starts of ${bundle} answered ${outcomes.join(' and ')}: give each run the same request`);
    const processMs = median(taken.map((s) => s.processMs));
    results.push({
      bundle,
      sizeBytes: (await stat(path)).size,
      loadMs: median(taken.map((s) => s.loadMs)),
      invokeMs: median(taken.map((s) => s.invokeMs)),
      firstInvocationMs: median(taken.map((s) => s.firstInvocationMs)),
      sinceProcessStartMs: median(taken.map((s) => s.sinceProcessStartMs)),
      outcome: outcomes.join('/'),
      maxRssMiB: median(taken.map((s) => s.maxRssMiB)),
      processMs,
      emptyProcessMs,
      ratio: processMs / emptyProcessMs,
    });
    input.say(`  ${bundle}: ${processMs.toFixed(1)} ms = ${(processMs / emptyProcessMs).toFixed(2)}x empty (${outcomes.join('/')})`);
  }
  return results;
}

/** The functions that load the native Argon2 binding on their first request (target ≤ 1.8×, the others ≤ 1.5×: docs/performance.md). */
const HASHING = new Set(['login', 'register']);
export const ratioTarget = (bundle: string) => (HASHING.has(bundle) ? 1.8 : 1.5);

/** The cold-start table: one row per bundle. */
export function coldStartTable(cold: ColdStart[], runs: number, cpu: string): string {
  const emptyMs = cold[0]?.emptyProcessMs;
  return table(
    `Cold start (fresh Node process on CPU ${cpu}; median of ${runs}, interleaved with an empty Node process: ${fixed(emptyMs)} ms)`,
    ['bundle', 'size KB', 'load ms', 'invoke ms', 'load+invoke ms', 'process ms', '× empty', 'target', 'first answer'],
    cold.map((c) => [
      c.bundle,
      fixed(c.sizeBytes / 1024),
      fixed(c.loadMs),
      fixed(c.invokeMs),
      fixed(c.firstInvocationMs),
      fixed(c.processMs),
      fixed(c.ratio, 2),
      `${ratioTarget(c.bundle) >= c.ratio ? '' : 'MISS '}≤ ${ratioTarget(c.bundle)}`,
      String(c.outcome),
    ]),
  );
}

/** The cold-start targets (docs/performance.md): the ratio per bundle, and the size. */
export function coldStartTargets(cold: ColdStart[]): Array<{ target: string; figure: string; pass: boolean }> {
  const worst = (bundles: ColdStart[]) => bundles.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const hashing = cold.filter((c) => HASHING.has(c.bundle));
  const others = cold.filter((c) => !HASHING.has(c.bundle));
  const biggest = cold.reduce((a, b) => (b.sizeBytes > a.sizeBytes ? b : a));
  return [
    ...(others.length > 0
      ? [
          {
            target: 'every cold process ≤ 1.5× an empty Node process (but login, register)',
            figure: `worst ${worst(others).bundle} ${fixed(worst(others).ratio, 2)}×`,
            pass: worst(others).ratio <= 1.5,
          },
        ]
      : []),
    ...(hashing.length > 0
      ? [
          {
            target: 'login and register cold process ≤ 1.8× an empty Node process',
            figure: `worst ${worst(hashing).bundle} ${fixed(worst(hashing).ratio, 2)}×`,
            pass: worst(hashing).ratio <= 1.8,
          },
        ]
      : []),
    {
      target: 'every bundle ≤ 300 KB minified',
      figure: `largest ${biggest.bundle} ${fixed(biggest.sizeBytes / 1024)} KB`,
      pass: biggest.sizeBytes <= 300 * 1024,
    },
  ];
}
