/**
 * Cold start of every bundle in dist/functions: its size, and the time a fresh Node
 * process (bench/cold-start.ts, on CPU 0) takes to load it and serve one real
 * request, median of several processes. Each process gets a request of its own
 * (a fresh refresh token, a new tenant to register, ...) so none is a replay.
 */
import { randomBytes } from 'node:crypto';
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

function withContext(event: APIGatewayProxyEventV2, identity: Identity): APIGatewayProxyEventV2 {
  (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: toAuthorizerContext(identity) };
  return event;
}

const json = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
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

export async function coldStarts(input: ColdStartInput): Promise<ColdStart[]> {
  const { routes, runs } = input;
  const identity = (run: number) => {
    const found = input.identities[run];
    if (!found) throw new Error('not enough sessions for the cold starts');
    return found;
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
    logout: async (run) => withContext(json('POST', '/auth/logout'), identity(run + runs)),
    me: async (run) => withContext(json('GET', '/auth/me'), identity(run)),
    jwks: async () => json('GET', '/.well-known/jwks.json'),
    // A TOTP method made pending by one cold start is verified, with a right code, by the next bundle's.
    'mfa-enable': async (run) =>
      withContext(json('POST', '/auth/mfa/enable', { method: 'TOTP', secret: totpSecret(run) }), identity(run + 2 * runs + 2)),
    'mfa-verify': async (run) =>
      withContext(
        json('POST', '/auth/mfa/verify', { method: 'TOTP', code: new TOTP({ secret: Secret.fromBase32(totpSecret(run)) }).generate() }),
        identity(run + 2 * runs + 2),
      ),
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

  const results: ColdStart[] = [];
  for (const [bundle, path] of bundleFiles(input.functionsDir)) {
    const make = makers[bundle] ?? generic(bundle);
    const samples: Array<{
      loadMs: number;
      invokeMs: number;
      firstInvocationMs: number;
      sinceProcessStartMs: number;
      outcome: string | number;
    }> = [];
    // With profiling, run 0 is profiled and so left out of the figures.
    for (let run = 0; run < runs + (input.profile ? 1 : 0); run++) {
      const eventFile = join(input.tmp, `event-${bundle}-${run}.json`);
      await writeFile(eventFile, JSON.stringify(await make(run)));
      const profile =
        input.profile && run === 0 ? { BENCH_PROFILE_FILE: join('bench', '.work', 'profiles', `cold-${bundle}.cpuprofile`) } : {};
      const { stdout } = await runPinned('bench/.work/out/cold-start.mjs', {
        ...input.env,
        ...profile,
        BENCH_BUNDLE: path,
        BENCH_EVENT_FILE: eventFile,
      });
      if (!(input.profile && run === 0)) samples.push(tagged(stdout, 'cold-start'));
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
