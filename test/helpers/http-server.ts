import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { apiEvent, lambdaContext, withAuthorizerContext } from './http';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<{ context?: Record<string, string> }>;

export interface HttpRoute {
  method: string;
  /** The path as serverless.yml writes it, `{name}` for a path parameter. */
  path: string;
  /** A function's `makeHandler(deps)`. */
  handler: unknown;
  /** Run the session authorizer first and hand its context on, as API Gateway does. */
  authorizer: boolean;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The `{name}` parameters of a route's path template in a request path, or undefined
 * when the path is not the route's. API Gateway prefers a route without parameters,
 * and a greedy one last, so the server tries them in that order (`routeOrder`).
 */
function pathParameters(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template
    .split(/(\{\w+\+?\})/)
    .map((part) => {
      const [, name, greedy] = /^\{(\w+)(\+?)\}$/.exec(part) ?? [];
      if (!name) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(name);
      // `{name+}` (API Gateway's greedy parameter) takes the rest of the path.
      return greedy ? '(.+)' : '([^/]+)';
    })
    .join('');
  const values = new RegExp(`^${pattern}$`).exec(path)?.slice(1);
  if (!values) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]));
}

/** Routes without parameters first, greedy ones (`{proxy+}`) last, as API Gateway chooses. */
const rank = (route: HttpRoute) => (route.path.includes('+}') ? 2 : Number(route.path.includes('{')));
const routeOrder = (a: HttpRoute, b: HttpRoute) => rank(a) - rank(b);

/** An HTTP request as API Gateway (HTTP API, payload 2.0) hands it to a Lambda. */
function toEvent(
  request: IncomingMessage,
  url: URL,
  body: string,
  route: HttpRoute,
  params: Record<string, string>,
): APIGatewayProxyEventV2 {
  // API Gateway joins repeated query parameters and headers with commas.
  const query: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(',') : (value ?? '')]),
  );
  const event = apiEvent({
    method: request.method ?? 'GET',
    path: route.path,
    headers,
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    ...(body === '' ? {} : { body }),
    ...(Object.keys(query).length ? { query } : {}),
  });
  // The raw path as the client sent it (apiEvent writes the template's, parameters filled in).
  event.rawPath = url.pathname;
  event.requestContext.http.path = url.pathname;
  return event;
}

export interface ApiServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Sets the routes (built once the URL, hence the issuer, is known). */
  mount(routes: HttpRoute[], authorize: Authorizer): void;
  close(): Promise<void>;
}

/**
 * Serves Lambda handlers over real HTTP on 127.0.0.1 (a random port), for clients
 * that need HTTP, such as openid-client: each request becomes an API Gateway v2 event.
 */
export async function startApiServer(): Promise<ApiServer> {
  let routes: HttpRoute[] = [];
  let authorize: Authorizer | undefined;
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      let found: { route: HttpRoute; params: Record<string, string> } | undefined;
      for (const route of routes) {
        const params = route.method === request.method ? pathParameters(route.path, url.pathname) : undefined;
        if (params) {
          found = { route, params };
          break;
        }
      }
      if (!found) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
        return;
      }
      const { route, params } = found;
      const event = toEvent(request, url, await readBody(request), route, params);
      if (route.authorizer && authorize) {
        const { context } = await authorize(event as unknown as APIGatewayRequestAuthorizerEventV2);
        withAuthorizerContext(event, context ?? {});
      }
      const result = await (route.handler as Handler)(event, lambdaContext);
      const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
      // API Gateway sends each of a payload 2.0 answer's `cookies` as a Set-Cookie header.
      if (result.cookies?.length) headers['set-cookie'] = result.cookies;
      response.writeHead(result.statusCode ?? 200, headers).end(result.body ?? '');
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    mount(next, authorizer) {
      routes = [...next].sort(routeOrder);
      authorize = authorizer;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
