/**
 * The OAuth scenarios (token endpoint with client_credentials and with
 * authorization_code, introspection; the first and the last also with DPoP, docs/api.md
 * 16.3, next to the Bearer ones) and the peer's token endpoint. Ours run only
 * when the OAuth functions are built and routed; otherwise they are reported as
 * skipped, with the reason.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { toAuthorizerContext } from '../lib/http/identity';
import type { Identity } from '../lib/tokens/access-token';
import type { RouteTable } from '../scripts/lib/serverless-routes';
import { bundleFiles, proxyEvent } from './adapter';
import type { EventMaker } from './cold-starts';
import { type LoadResult, measure, type Watched } from './load';
import { startServer, stopChild } from './processes';
import { whole } from './report';

export type Scenario = (LoadResult & { note?: string }) | { skipped: string };

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Access tokens made ready for the introspection run, used in turn. */
  introspectionTokens: number;
  /** Authorization codes made beyond twice the warm-up rate, so that the pool never runs dry. */
  spareCodes: number;
}

export interface OAuthInput {
  api: { url: string; watch?: Watched; profile?: (label: string) => { before(): Promise<void>; after(): Promise<void> } };
  routes: RouteTable;
  functionsDir: string;
  settings: LoadSettings;
  /** An ADMIN of the bench tenant (creates the client) and an ordinary user (authorizes codes), with access tokens. */
  admin: { identity: Identity; token: string };
  user: { identity: Identity; token: string };
  tenantId: string;
  /** The functions' ISSUER: a DPoP proof's `htu` is under it. */
  issuer: string;
  say: (message: string) => void;
}

export interface OAuthOutcome {
  scenarios: Record<string, Scenario>;
  /** Cold-start events for the OAuth bundles. */
  coldStartEvents: Record<string, EventMaker>;
}

/** The client both servers know: confidential, HTTP Basic, client_credentials. */
export const CLIENT = {
  id: 'bench-client',
  secret: randomBytes(30).toString('base64url'),
  scope: 'read write',
  redirectUri: 'https://client.example.com/callback',
};

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const CLIENT_CREDENTIALS_BODY = form({ grant_type: 'client_credentials', scope: CLIENT.scope });
const CLIENT_HEADERS = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(CLIENT.id, CLIENT.secret) };

export const OAUTH_SCENARIOS = [
  'token (client_credentials)',
  'token (client_credentials, DPoP)',
  'token (authorization_code)',
  'introspection',
  'introspection (DPoP)',
];

/**
 * DPoP proofs (RFC 9449) by one P-256 key, signed synchronously here (the load
 * generator builds each request in `next`); each has its own `jti`, as a client's.
 */
function dpopProofs(htu: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } });
  return () => {
    const input = `${header}.${encode({ jti: randomBytes(16).toString('base64url'), htm: 'POST', htu, iat: Math.floor(Date.now() / 1000) })}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
}

/** One PKCE verifier for every prepared code (each code is still single-use). */
const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER, 'ascii').digest('base64url');

/** Runs `work` `count` times, `concurrency` at once; returns the results in order and the rate. */
async function many<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<{ results: T[]; perSecond: number }> {
  const results: T[] = new Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return { results, perSecond: count / ((performance.now() - started) / 1000) };
}

function routed(input: OAuthInput, method: string, path: string): boolean {
  const route = input.routes.routes.find((r) => r.method === method && r.path === path);
  return route !== undefined && bundleFiles(input.functionsDir).has(route.bundle);
}

async function call(url: string, init: RequestInit & { expect: number }): Promise<Response> {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  if (response.status !== init.expect)
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${await response.text()}`);
  return response;
}

export async function oauthScenarios(input: OAuthInput): Promise<OAuthOutcome> {
  const needed: Array<[string, string]> = [
    ['POST', '/oauth2/token'],
    ['POST', '/oauth2/clients'],
    ['GET', '/oauth2/authorize'],
    ['POST', '/oauth2/introspect'],
  ];
  const absent = needed.filter(([method, path]) => !routed(input, method, path));
  if (absent.length > 0) {
    const reason = `${absent.map(([method, path]) => `${method} ${path}`).join(', ')} not built/routed on this commit`;
    return { scenarios: Object.fromEntries(OAUTH_SCENARIOS.map((name) => [name, { skipped: reason }])), coldStartEvents: {} };
  }
  const { api, settings, say } = input;
  const scenarios: Record<string, Scenario> = {};
  const base = { url: api.url, connections: settings.connections, watch: api.watch };
  const around = (label: string) => api.profile?.(label);

  await call(`${api.url}/oauth2/clients`, {
    method: 'POST',
    expect: 201,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${input.admin.token}` },
    body: JSON.stringify({
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      redirect_uri: CLIENT.redirectUri,
      grant_types: 'authorization_code refresh_token client_credentials',
      scope: CLIENT.scope,
      tenant_id: input.tenantId,
    }),
  });
  /** A client_credentials token; DPoP-bound when `proof` makes the request's proof. */
  const tokenOf = async (proof?: () => string) => {
    const response = await call(`${api.url}/oauth2/token`, {
      method: 'POST',
      expect: 200,
      headers: { ...CLIENT_HEADERS, ...(proof ? { dpop: proof() } : {}) },
      body: CLIENT_CREDENTIALS_BODY,
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const clientCredentialsToken = () => tokenOf();
  await clientCredentialsToken();

  say('load: token (client_credentials)');
  const cc = await measure({
    ...base,
    method: 'POST',
    path: '/oauth2/token',
    headers: CLIENT_HEADERS,
    body: CLIENT_CREDENTIALS_BODY,
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
    around: around('token-client-credentials'),
    check: (body) => body.includes('"access_token"'),
  });
  scenarios['token (client_credentials)'] = {
    ...cc,
    note: 'client and the source count read in one BatchGetItem, stateless token (no write), ES256 sign (HTTP Basic, form)',
  };

  const proof = dpopProofs(`${input.issuer}/oauth2/token`);
  const dpopToken = () => tokenOf(proof);
  await dpopToken();
  say('load: token (client_credentials, DPoP)');
  const ccDpop = await measure({
    ...base,
    method: 'POST',
    path: '/oauth2/token',
    headers: CLIENT_HEADERS,
    body: CLIENT_CREDENTIALS_BODY,
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
    around: around('token-client-credentials-dpop'),
    check: (body) => body.includes('"token_type":"DPoP"'),
    next: () => ({ headers: { dpop: proof() } }),
  });
  scenarios['token (client_credentials, DPoP)'] = {
    ...ccDpop,
    note: 'as client_credentials, plus the proof: ES256 verify, JWK thumbprint, jti write (one conditional PutItem)',
  };

  // Authorization codes live 60 s and are single-use: they are made just before the
  // run that redeems them, sized by the rate of the warm-up (itself sized by the
  // client_credentials rate, a faster grant).
  const authorizeUrl = `/oauth2/authorize?${form({
    client_id: CLIENT.id,
    redirect_uri: CLIENT.redirectUri,
    response_type: 'code',
    scope: CLIENT.scope,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  })}`;
  const makeCodes = (count: number) =>
    many(count, 16, async () => {
      const response = await call(`${api.url}${authorizeUrl}`, { expect: 302, headers: { authorization: `Bearer ${input.user.token}` } });
      const code = new URL(response.headers.get('location') ?? '').searchParams.get('code');
      if (!code) throw new Error('authorize redirected without a code');
      return code;
    });
  const redeem = (codes: string[], phase: { durationSeconds: number; label?: string }) => {
    let next = 0;
    return measure({
      ...base,
      method: 'POST',
      path: '/oauth2/token',
      headers: CLIENT_HEADERS,
      durationSeconds: phase.durationSeconds,
      warmupSeconds: 0,
      ...(phase.label ? { around: around(phase.label) } : {}),
      check: (body) => body.includes('"access_token"'),
      next: () => ({
        // An exhausted pool shows as failed requests rather than stopping the run.
        body: form({
          grant_type: 'authorization_code',
          code: codes[next++] ?? 'exhausted',
          redirect_uri: CLIENT.redirectUri,
          code_verifier: VERIFIER,
        }),
      }),
    });
  };
  say('  preparing authorization codes');
  // Redemption is much slower than client_credentials: that rate only bounds the warm-up pool.
  const warmCodes = await makeCodes(Math.min(Math.ceil(cc.requestsPerSecond * settings.warmupSeconds * 1.2) + 100, 3000));
  // At least a second: the measured run's pool is sized from this rate.
  const warm = await redeem(warmCodes.results, { durationSeconds: Math.max(settings.warmupSeconds, 1) });
  const rate = Math.max(warm.requestsPerSecond, 50);
  // Keep the oldest code well inside its 60 s: preparation plus the run under 45 s.
  const affordable = Math.floor(warmCodes.perSecond * (45 - settings.durationSeconds));
  // Twice the warm-up rate: the measured run is faster once warm, and a dry pool shows as failures.
  const wanted = Math.ceil(rate * settings.durationSeconds * 2) + settings.spareCodes;
  const codes = await makeCodes(Math.min(wanted, affordable));
  say(`  ${whole(codes.results.length)} codes made at ${whole(codes.perSecond)}/s; load: token (authorization_code)`);
  const ac = await redeem(codes.results, { durationSeconds: settings.durationSeconds, label: 'token-authorization-code' });
  scenarios['token (authorization_code)'] = {
    ...ac,
    note: 'code read, user + session read, code use + grant write (one transaction), ES256 sign; refresh token',
  };

  /** Introspection, under `label`, of tokens `issue` makes beforehand, each in turn. */
  const introspecting = async (label: string, issue: () => Promise<string>, check: (body: string) => boolean) => {
    const { results: issued } = await many(settings.introspectionTokens, 16, issue);
    let next = 0;
    return measure({
      ...base,
      method: 'POST',
      path: '/oauth2/introspect',
      headers: CLIENT_HEADERS,
      durationSeconds: settings.durationSeconds,
      warmupSeconds: settings.warmupSeconds,
      around: around(label),
      check,
      next: () => ({ body: form({ token: issued[next++ % issued.length] as string }) }),
    });
  };
  say('load: introspection');
  const introspection = await introspecting('introspection', clientCredentialsToken, (body) => body.includes('"active":true'));
  scenarios.introspection = { ...introspection, note: 'ES256 verify, deny-record read (HTTP Basic, form)' };

  say('load: introspection (DPoP)');
  const introspectionDpop = await introspecting('introspection-dpop', dpopToken, (body) => body.includes('"cnf":'));
  scenarios['introspection (DPoP)'] = {
    ...introspectionDpop,
    note: 'as introspection, a DPoP-bound token: token_type DPoP and cnf answered',
  };

  const json = (method: string, url: string, body: string | undefined, headers: Record<string, string> = {}) =>
    proxyEvent({ method, url, headers: { host: 'api.example.com', 'user-agent': 'bench', ...headers }, body: body ?? '' });
  const withContext = (event: ReturnType<typeof proxyEvent>, identity: Identity) => {
    (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: toAuthorizerContext(identity) };
    return event;
  };
  const { results: spare } = await many(40, 8, clientCredentialsToken);
  const coldStartEvents: Record<string, EventMaker> = {
    'oauth2-token': async () => json('POST', '/oauth2/token', CLIENT_CREDENTIALS_BODY, CLIENT_HEADERS),
    introspect: async (run) => json('POST', '/oauth2/introspect', form({ token: spare[run] ?? '' }), CLIENT_HEADERS),
    revoke: async (run) => json('POST', '/oauth2/revoke', form({ token: spare[20 + run] ?? '' }), CLIENT_HEADERS),
    'oauth2-authorize': async () => withContext(json('GET', authorizeUrl, undefined), input.user.identity),
    'create-oauth2-client': async () =>
      withContext(
        json(
          'POST',
          '/oauth2/clients',
          JSON.stringify({
            client_id: `cold-${randomBytes(6).toString('hex')}`,
            client_secret: randomBytes(30).toString('base64url'),
            redirect_uri: CLIENT.redirectUri,
            grant_types: 'client_credentials',
            scope: CLIENT.scope,
            tenant_id: input.tenantId,
          }),
          { 'content-type': 'application/json' },
        ),
        input.admin.identity,
      ),
    metadata: async () => json('GET', '/.well-known/oauth-authorization-server', undefined),
  };
  return { scenarios, coldStartEvents };
}

/** How the peer keeps its client: in its configuration, or as a deployment does, in DynamoDB (bench/peer.ts). */
export type PeerStore = 'memory' | 'dynamodb';

/** oidc-provider's token endpoint with client_credentials, under the same load as ours. */
export async function peerTokenEndpoint(options: {
  env: NodeJS.ProcessEnv;
  keysFile: string;
  settings: LoadSettings;
  logFd: number;
  store: PeerStore;
  /** DynamoDB Local's process, watched as ours is when the peer stores in it. */
  databasePid?: number | undefined;
}): Promise<{ result: Scenario; version: string }> {
  const document = JSON.parse(readFileSync(options.keysFile, 'utf8')) as { activeKid: string; keys: Array<{ kid: string }> };
  const key = document.keys.find((k) => k.kid === document.activeKid);
  const version = (JSON.parse(readFileSync('node_modules/oidc-provider/package.json', 'utf8')) as { version: string }).version;
  const peer = await startServer<{ port: number }>(
    'bench/.work/out/peer.mjs',
    {
      ...options.env,
      NODE_ENV: 'production',
      BENCH_PEER_CLIENT_ID: CLIENT.id,
      BENCH_PEER_CLIENT_SECRET: CLIENT.secret,
      BENCH_PEER_SCOPE: CLIENT.scope,
      BENCH_PEER_SIGNING_JWK: JSON.stringify(key),
      BENCH_PEER_STORE: options.store,
      BENCH_PEER_TABLE: 'oidc-provider-bench',
    },
    options.logFd,
  );
  try {
    const url = `http://127.0.0.1:${peer.message.port}`;
    const check = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(CLIENT.id, CLIENT.secret) },
      body: CLIENT_CREDENTIALS_BODY,
    });
    const answer = (await check.json()) as { access_token?: string; error_description?: string };
    if (check.status !== 200 || !answer.access_token)
      throw new Error(`oidc-provider token endpoint answered ${check.status}: ${JSON.stringify(answer)}`);
    const stored = options.store === 'dynamodb';
    const result = await measure({
      url,
      method: 'POST',
      path: '/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(CLIENT.id, CLIENT.secret) },
      body: CLIENT_CREDENTIALS_BODY,
      connections: options.settings.connections,
      durationSeconds: options.settings.durationSeconds,
      warmupSeconds: options.settings.warmupSeconds,
      watch: { server: peer.child.pid, ...(stored && options.databasePid ? { database: options.databasePid } : {}) },
    });
    const where = stored ? 'client read from DynamoDB (adapter, SDK document client)' : 'client in memory, no database';
    return { result: { ...result, note: `oidc-provider ${version}, ${where}, ES256 JWT` }, version };
  } finally {
    await stopChild(peer.child);
  }
}
