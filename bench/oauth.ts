/**
 * The OAuth scenarios (token endpoint with client_credentials and with
 * authorization_code, introspection) and the peer's token endpoint. Ours run only
 * when the OAuth functions are built and routed; otherwise they are reported as
 * skipped, with the reason.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteTable } from './adapter';
import type { EventMaker } from './cold-starts';
import { type LoadResult, measure } from './load';
import { startServer, stopChild } from './processes';

export type Scenario = (LoadResult & { note?: string }) | { skipped: string };

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface OAuthInput {
  api: { url: string };
  routes: RouteTable;
  functionsDir: string;
  settings: LoadSettings;
  /** Access token of an ADMIN of the bench tenant (creates the client). */
  adminToken: string;
  /** Access token of an ordinary user (authorizes codes). */
  userToken: string;
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
};

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const CLIENT_CREDENTIALS_BODY = new URLSearchParams({ grant_type: 'client_credentials', scope: CLIENT.scope }).toString();

const SCENARIOS = ['token (client_credentials)', 'token (authorization_code)', 'introspection'];

function routed(input: OAuthInput, method: string, path: string): boolean {
  const route = input.routes.routes.find((r) => r.method === method && r.path === path);
  return route !== undefined && existsSync(join(input.functionsDir, `${route.bundle}.mjs`));
}

export async function oauthScenarios(input: OAuthInput): Promise<OAuthOutcome> {
  if (!routed(input, 'POST', '/oauth2/token')) {
    const reason = 'POST /oauth2/token is not on main yet (no functions/oauth2-token.ts built and routed in serverless.yml)';
    return { scenarios: Object.fromEntries(SCENARIOS.map((name) => [name, { skipped: reason }])), coldStartEvents: {} };
  }
  throw new Error('OAuth scenarios: not written yet');
}

/** oidc-provider's token endpoint with client_credentials, under the same load as ours. */
export async function peerTokenEndpoint(options: {
  env: NodeJS.ProcessEnv;
  keysFile: string;
  settings: LoadSettings;
  logFd: number;
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
    if (check.status !== 200 || !answer.access_token) throw new Error(`oidc-provider token endpoint answered ${check.status}: ${JSON.stringify(answer)}`);
    const result = await measure({
      url,
      method: 'POST',
      path: '/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(CLIENT.id, CLIENT.secret) },
      body: CLIENT_CREDENTIALS_BODY,
      connections: options.settings.connections,
      durationSeconds: options.settings.durationSeconds,
      warmupSeconds: options.settings.warmupSeconds,
      watch: { server: peer.child.pid },
    });
    return { result: { ...result, note: `oidc-provider ${version}, client in memory, ES256 JWT` }, version };
  } finally {
    await stopChild(peer.child);
  }
}
