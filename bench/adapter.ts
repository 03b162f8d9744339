/**
 * A thin `node:http` front for the bundled functions in dist/, used only by the
 * benchmark: each request becomes an API Gateway HTTP API (payload 2.0) event, the
 * session authorizer runs first where serverless.yml attaches it, its context is
 * handed on as `requestContext.authorizer.lambda`, and the function's result is
 * written back as API Gateway would. No emulator sits in between, so the figures
 * measure our code. Unlike Lambda, one process serves requests concurrently.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { type Route, type RouteTable, routesFromServerlessYml } from '../scripts/lib/serverless-routes';
import { lambdaContext } from './lambda-context';

/**
 * The routes of docs/api.md section 1 by bundle name, for functions that are built
 * but not yet in serverless.yml (the lead adds them there): the benchmark can measure
 * a function as soon as it lands. serverless.yml wins wherever it has the route.
 */
const CONTRACT_ROUTES: Array<Omit<Route, 'functionName'>> = [
  { bundle: 'enable-mfa', method: 'POST', path: '/auth/mfa/enable', authorizer: true },
  { bundle: 'verify-mfa', method: 'POST', path: '/auth/mfa/verify', authorizer: true },
  { bundle: 'oauth2-authorize', method: 'GET', path: '/oauth2/authorize', authorizer: true },
  { bundle: 'oauth2-token', method: 'POST', path: '/oauth2/token', authorizer: false },
  { bundle: 'create-oauth2-client', method: 'POST', path: '/oauth2/clients', authorizer: true },
  { bundle: 'revoke', method: 'POST', path: '/oauth2/revoke', authorizer: false },
  { bundle: 'introspect', method: 'POST', path: '/oauth2/introspect', authorizer: false },
  { bundle: 'metadata', method: 'GET', path: '/.well-known/oauth-authorization-server', authorizer: false },
];

/** Adds the contract's route of every built bundle that serverless.yml does not route yet. */
export function withContractRoutes(table: RouteTable, built: string[]): RouteTable & { fromContract: Route[] } {
  const routed = new Set(table.routes.map((route) => `${route.method} ${route.path}`));
  const bundles = new Set(table.routes.map((route) => route.bundle));
  const fromContract = CONTRACT_ROUTES.filter(
    (route) => built.includes(route.bundle) && !bundles.has(route.bundle) && !routed.has(`${route.method} ${route.path}`),
  ).map((route) => ({ ...route, functionName: route.bundle }));
  return { ...table, routes: [...table.routes, ...fromContract], fromContract };
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** Extensions the Lambda Node.js runtime tries for a handler's file, in its order. */
const BUNDLE_EXTENSIONS = ['.js', '.mjs', '.cjs'];

/** The function bundles in a directory by name (`me` -> `/dir/me.mjs`); source maps are left out. */
export function bundleFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    const extension = BUNDLE_EXTENSIONS.find((ext) => name.endsWith(ext));
    if (extension && !files.has(name.slice(0, -extension.length))) files.set(name.slice(0, -extension.length), join(dir, name));
  }
  return files;
}

/**
 * Loads a bundle the way the Lambda Node.js runtime does: `.mjs` with import(),
 * `.cjs` with require(), `.js` with require() unless it is an ES module.
 */
export async function loadBundle<T = { handler?: Handler }>(file: string): Promise<T> {
  if (file.endsWith('.mjs')) return (await import(pathToFileURL(file).href)) as T;
  try {
    return createRequire(import.meta.url)(file) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error;
    return (await import(pathToFileURL(file).href)) as T;
  }
}

/** Loads a bundle's `handler` export. */
export async function loadHandler(file: string): Promise<Handler> {
  const module = await loadBundle(file);
  if (typeof module.handler !== 'function') throw new Error(`${file} exports no handler`);
  return module.handler;
}

export { lambdaContext };

/** What the adapter takes from an HTTP request. */
export interface HttpRequest {
  method: string;
  /** Path and query, as on the request line. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  sourceIp?: string;
}

function flatHeaders(headers: HttpRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/** The API Gateway v2 request context of a request (as in test/fixtures/apigw-v2-event.json). */
function requestContext(request: HttpRequest, path: string, routeKey: string, headers: Record<string, string>) {
  const now = new Date();
  const host = headers.host ?? 'localhost';
  return {
    accountId: '123456789012',
    apiId: 'bench',
    domainName: host,
    domainPrefix: host.split('.')[0] ?? host,
    http: {
      method: request.method,
      path,
      protocol: 'HTTP/1.1',
      sourceIp: request.sourceIp ?? '127.0.0.1',
      userAgent: headers['user-agent'] ?? '',
    },
    requestId: randomUUID(),
    routeKey,
    stage: '$default',
    time: now.toUTCString(),
    timeEpoch: now.getTime(),
  };
}

/** The payload 2.0 event API Gateway sends a function for this request. */
export function proxyEvent(request: HttpRequest, routeKey = `${request.method} ${request.url.split('?')[0]}`): APIGatewayProxyEventV2 {
  const url = new URL(request.url, 'http://localhost');
  const headers = flatHeaders(request.headers);
  // API Gateway joins repeated query parameters with commas.
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  const cookies = headers.cookie
    ?.split(';')
    .map((cookie) => cookie.trim())
    .filter(Boolean);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: requestContext(request, url.pathname, routeKey, headers),
    isBase64Encoded: false,
  };
  if (cookies?.length) event.cookies = cookies;
  if (url.search) event.queryStringParameters = query;
  if (request.body !== '') event.body = request.body;
  return event;
}

/** The REQUEST authorizer event (payload 2.0) for the same request. */
export function authorizerEvent(event: APIGatewayProxyEventV2): APIGatewayRequestAuthorizerEventV2 {
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:us-east-1:123456789012:bench/$default/${event.requestContext.http.method}${event.rawPath}`,
    identitySource: [],
    routeKey: event.routeKey,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString,
    ...(event.cookies ? { cookies: event.cookies } : {}),
    headers: event.headers,
    ...(event.queryStringParameters ? { queryStringParameters: event.queryStringParameters } : {}),
    requestContext: event.requestContext,
    pathParameters: {},
    stageVariables: {},
  } as unknown as APIGatewayRequestAuthorizerEventV2;
}

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

const json = (statusCode: number, message: string): HttpResponse => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ message })),
});

/** How API Gateway turns a payload 2.0 function result into an HTTP response. */
export function toHttpResponse(result: unknown): HttpResponse {
  if (result === null || typeof result !== 'object' || !('statusCode' in result)) {
    // A result without statusCode is taken as a 200 JSON body.
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(typeof result === 'string' ? result : JSON.stringify(result)),
    };
  }
  const structured = result as APIGatewayProxyStructuredResultV2;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(structured.headers ?? {})) headers[name] = String(value);
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const body =
    structured.body === undefined ? Buffer.alloc(0) : Buffer.from(structured.body, structured.isBase64Encoded ? 'base64' : 'utf8');
  return { statusCode: structured.statusCode ?? 200, headers, body };
}

export interface Adapter {
  /** Serves one request: route, authorizer, function, response. */
  handle(request: HttpRequest): Promise<HttpResponse>;
  routes: Route[];
}

/**
 * Loads every routed bundle (and the authorizer) from `functionsDir`. Routes whose
 * bundle has not been built are left out and listed in `missing`.
 */
export async function createAdapter(functionsDir: string, table: RouteTable): Promise<Adapter & { missing: Route[] }> {
  const files = bundleFiles(functionsDir);
  const routes = table.routes.filter((route) => files.has(route.bundle));
  const missing = table.routes.filter((route) => !files.has(route.bundle));
  const handlers = new Map<string, Handler>();
  for (const bundle of new Set([table.authorizerBundle, ...routes.map((route) => route.bundle)])) {
    const file = files.get(bundle);
    if (!file) throw new Error(`no bundle ${bundle} in ${functionsDir}`);
    handlers.set(bundle, await loadHandler(file));
  }
  const byKey = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
  // Routes with path parameters (`/sso/saml/{connectionId}/acs`), tried when no route is the path itself, as API Gateway does.
  const templated = routes
    .filter((route) => route.path.includes('{'))
    // Greedy routes last, as API Gateway tries them.
    .sort((a, b) => Number(a.path.includes('+}')) - Number(b.path.includes('+}')))
    .map((route) => {
      const names = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1] ?? '');
      // `{proxy+}` (the CORS preflight's route) takes the rest of the path.
      const pattern = route.path
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{\w+\\\+\}/g, '(.+)')
        .replace(/\\?\{\w+\\?\}/g, '([^/]+)');
      return { route, names, pattern: new RegExp(`^${pattern}$`) };
    });
  const routeOf = (method: string, path: string) => {
    const exact = byKey.get(`${method} ${path}`);
    if (exact) return { route: exact, params: {} };
    for (const { route, names, pattern } of templated) {
      const values = route.method === method ? pattern.exec(path)?.slice(1) : undefined;
      if (values) return { route, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i] ?? '')])) };
    }
    return undefined;
  };
  const authorize = handlers.get(table.authorizerBundle) as Handler;

  async function handle(request: HttpRequest): Promise<HttpResponse> {
    const path = request.url.split('?')[0] ?? '/';
    const found = routeOf(request.method, path);
    if (!found) return json(404, 'Not Found');
    const { route, params } = found;
    const event = proxyEvent(request, `${route.method} ${route.path}`);
    if (Object.keys(params).length > 0) event.pathParameters = params;
    try {
      if (route.authorizer) {
        const verdict = (await authorize(authorizerEvent(event), lambdaContext(table.authorizerBundle))) as {
          isAuthorized?: boolean;
          context?: Record<string, unknown>;
        };
        if (!verdict?.isAuthorized) return json(403, 'Forbidden');
        (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: verdict.context ?? {} };
      }
      const handler = handlers.get(route.bundle) as Handler;
      return toHttpResponse(await handler(event, lambdaContext(route.functionName)));
    } catch (error) {
      // API Gateway answers a failed invocation with 500 and no details.
      process.stderr.write(`adapter: ${route.functionName} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      return json(500, 'Internal Server Error');
    }
  }

  return { handle, routes, missing };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => done(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    request.on('error', fail);
  });
}

/** An HTTP server in front of the adapter. */
export function httpServer(adapter: Adapter): Server {
  return createServer((request: IncomingMessage, response: ServerResponse) => {
    readBody(request)
      .then((body) =>
        adapter.handle({
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          headers: request.headers,
          body,
          sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        }),
      )
      .then((answer) => {
        response.writeHead(answer.statusCode, { ...answer.headers, 'content-length': answer.body.length });
        response.end(answer.body);
      })
      .catch((error: unknown) => {
        process.stderr.write(`adapter: ${error instanceof Error ? error.stack : String(error)}\n`);
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
}

/**
 * The bundles in `functionsDir`, routed as serverless.yml says (routes of the contract
 * it does not declare yet added), served on 127.0.0.1 and a free port: what the
 * benchmark's and the soak's server processes run.
 */
export async function serveBundles(functionsDir: string) {
  const built = [...bundleFiles(functionsDir).keys()];
  const table = withContractRoutes(routesFromServerlessYml(readFileSync('serverless.yml', 'utf8')), built);
  const adapter = await createAdapter(functionsDir, table);
  const server = httpServer(adapter);
  server.keepAliveTimeout = 60_000;
  const port = await new Promise<number>((listening) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      listening(typeof address === 'object' && address ? address.port : 0);
    }),
  );
  return { adapter, table, server, port };
}

/**
 * The environment the bundles run with outside AWS (bench and soak): DynamoDB Local,
 * signing keys and the MFA key in files, a pepper random per run, the outbox.
 */
export function localFunctionEnv(settings: { endpoint: string; tableName: string; keysFile: string; workDir: string }): NodeJS.ProcessEnv {
  return {
    DYNAMODB_ENDPOINT: settings.endpoint,
    TABLE_NAME: settings.tableName,
    SIGNING_KEYS_SOURCE: 'file',
    SIGNING_KEYS_FILE: settings.keysFile,
    ISSUER: 'http://localhost:3000',
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'info',
    OAUTH_CLIENT_SECRET_PEPPER: randomBytes(32).toString('base64url'),
    MFA_KEY_FILE: join(settings.workDir, 'mfa-key.json'),
  };
}
