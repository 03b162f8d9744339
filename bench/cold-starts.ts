/**
 * Cold start of every bundle in dist/functions: its size, and the time a fresh Node
 * process (bench/cold-start.ts, on CPU 0) takes to load it and serve one real
 * request, median of several processes. Each process gets a request of its own
 * (a fresh refresh token, a new tenant to register, ...) so none is a replay.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Config } from '../lib/config';
import { toAuthorizerContext } from '../lib/http/identity';
import type { Identity } from '../lib/tokens/access-token';
import type { KeySet } from '../lib/tokens/signing-keys';
import { authorizerEvent, proxyEvent, type RouteTable } from './adapter';
import { runPinned, tagged } from './processes';
import { accessTokenFor } from './seed';

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
  login: { username: string; password: string; tenantId: string };
  /** Events for the OAuth bundles, when they exist. */
  oauth: Record<string, EventMaker>;
  tmp: string;
  say: (message: string) => void;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

function withContext(event: APIGatewayProxyEventV2, identity: Identity): APIGatewayProxyEventV2 {
  (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: toAuthorizerContext(identity) };
  return event;
}

const json = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  proxyEvent({
    method,
    url,
    headers: { host: 'api.example.com', 'user-agent': 'bench', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  });

export async function coldStarts(input: ColdStartInput): Promise<ColdStart[]> {
  const { routes, runs } = input;
  const identity = (run: number) => {
    const found = input.identities[run];
    if (!found) throw new Error('not enough sessions for the cold starts');
    return found;
  };
  const makers: Record<string, EventMaker> = {
    authorizer: async (run) =>
      authorizerEvent(json('GET', '/auth/me', undefined, { authorization: `Bearer ${await accessTokenFor(input.keySet, input.config, identity(run))}` })),
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
    logout: async (run) => withContext(json('POST', '/auth/logout'), identity(run + runs)),
    me: async (run) => withContext(json('GET', '/auth/me'), identity(run)),
    jwks: async () => json('GET', '/.well-known/jwks.json'),
    ...input.oauth,
  };
  // Any other bundle (one landed since this file was written): its route with an
  // empty body, with the caller's context where the authorizer runs.
  const generic = (bundle: string): EventMaker => {
    const route = routes.routes.find((r) => r.bundle === bundle);
    return async (run) => {
      const event = json(route?.method ?? 'GET', route?.path ?? '/');
      return route?.authorizer ? withContext(event, identity(run)) : event;
    };
  };

  const bundles = (await readdir(input.functionsDir)).filter((name) => name.endsWith('.mjs')).sort();
  const results: ColdStart[] = [];
  for (const file of bundles) {
    const bundle = file.slice(0, -'.mjs'.length);
    const path = join(input.functionsDir, file);
    const make = makers[bundle] ?? generic(bundle);
    const samples: Array<{ loadMs: number; invokeMs: number; firstInvocationMs: number; sinceProcessStartMs: number; outcome: string | number }> = [];
    for (let run = 0; run < runs; run++) {
      const eventFile = join(input.tmp, `event-${bundle}-${run}.json`);
      await writeFile(eventFile, JSON.stringify(await make(run)));
      const { stdout } = await runPinned('bench/.work/out/cold-start.mjs', { ...input.env, BENCH_BUNDLE: path, BENCH_EVENT_FILE: eventFile });
      samples.push(tagged(stdout, 'cold-start'));
    }
    const outcomes = [...new Set(samples.map((s) => s.outcome))];
    results.push({
      bundle,
      sizeBytes: (await stat(path)).size,
      loadMs: median(samples.map((s) => s.loadMs)),
      invokeMs: median(samples.map((s) => s.invokeMs)),
      firstInvocationMs: median(samples.map((s) => s.firstInvocationMs)),
      sinceProcessStartMs: median(samples.map((s) => s.sinceProcessStartMs)),
      outcome: outcomes.join('/'),
    });
    input.say(`  ${bundle}: ${results.at(-1)?.firstInvocationMs.toFixed(1)} ms (${outcomes.join('/')})`);
  }
  return results;
}
