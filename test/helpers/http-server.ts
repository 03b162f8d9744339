import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { apiEvent, lambdaContext, withAuthorizerContext } from './http';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<{ context?: Record<string, string> }>;

export interface HttpRoute {
  method: string;
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

/** An HTTP request as API Gateway (HTTP API, payload 2.0) hands it to a Lambda. */
function toEvent(request: IncomingMessage, url: URL, body: string): APIGatewayProxyEventV2 {
  // API Gateway joins repeated query parameters and headers with commas.
  const query: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(',') : (value ?? '')]),
  );
  return apiEvent({
    method: request.method ?? 'GET',
    path: url.pathname,
    headers,
    ...(body === '' ? {} : { body }),
    ...(Object.keys(query).length ? { query } : {}),
  });
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
      const route = routes.find((candidate) => candidate.method === request.method && candidate.path === url.pathname);
      if (!route) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
        return;
      }
      const event = toEvent(request, url, await readBody(request));
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
      routes = next;
      authorize = authorizer;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
