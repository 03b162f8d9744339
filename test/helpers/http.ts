import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { en } from '../../lib/console/messages/en';
import { toAuthorizerContext } from '../../lib/http/identity';
import type { Identity } from '../../lib/tokens/access-token';
import fixture from '../fixtures/apigw-v2-event.json';

export interface RequestSpec {
  method?: string;
  path?: string;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** Values of the route's `{name}` path parameters. */
  pathParameters?: Record<string, string>;
  /** The authorizer context of the caller, if any. */
  identity?: Identity;
  /** A raw authorizer context (e.g. `{ authError: 'unavailable' }`). */
  authorizerContext?: Record<string, string>;
  /** The caller's address (`requestContext.http.sourceIp`), instead of the fixture's. */
  sourceIp?: string;
}

/**
 * An API Gateway v2 event cloned from the captured fixture: the one way tests (and the
 * HTTP server of test/helpers/http-server.ts) make events. `spec.headers` are added to
 * the fixture's, as API Gateway adds its own to the client's.
 */
export function apiEvent(spec: RequestSpec = {}): APIGatewayProxyEventV2 {
  const event = structuredClone(fixture) as unknown as APIGatewayProxyEventV2;
  const method = spec.method ?? 'POST';
  const path = spec.path ?? '/';
  const params = spec.pathParameters ?? {};
  // `{proxy+}`, a greedy parameter, is filled in like any other.
  const rawPath = path.replace(/\{(\w+)\+?\}/g, (template, name: string) => (name in params ? (params[name] ?? '') : template));
  event.routeKey = `${method} ${path}`;
  event.rawPath = rawPath;
  if (spec.pathParameters) event.pathParameters = spec.pathParameters;
  event.requestContext.http.method = method;
  event.requestContext.http.path = rawPath;
  event.requestContext.routeKey = event.routeKey;
  event.requestContext.requestId = `req-${randomUUID()}`;
  if (spec.sourceIp) event.requestContext.http.sourceIp = spec.sourceIp;
  event.headers = { ...event.headers, ...spec.headers };
  if (spec.body !== undefined) event.body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
  if (spec.query) {
    event.queryStringParameters = spec.query;
    event.rawQueryString = new URLSearchParams(spec.query).toString();
  }
  const lambda = spec.identity ? toAuthorizerContext(spec.identity) : spec.authorizerContext;
  if (lambda) withAuthorizerContext(event, lambda);
  return event;
}

/** Hands an event the context the Lambda authorizer returned, as API Gateway does. */
export function withAuthorizerContext(event: APIGatewayProxyEventV2, context: Record<string, string>): APIGatewayProxyEventV2 {
  (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: context };
  return event;
}

export const lambdaContext = {
  awsRequestId: 'aws-req-1',
  functionName: 'test',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

export interface Response {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The answer's Set-Cookie values (payload 2.0 `cookies`). */
  cookies?: string[];
}

/** Whether a response is the clean answer to a database (or other dependency) that did not answer. */
export const isServiceUnavailable = (response: Response) =>
  response.status === 503 &&
  (typeof response.body === 'string'
    ? // A hosted page's answer (docs/api.md 11.9): the error page; the console's (15.1) in its words.
      response.body.includes('<p class="error" role="alert">Service unavailable</p>') ||
      response.body.includes(`<p class="error" role="alert">${en.errorPage.unexpected}</p>`)
    : (response.body?.success === false && response.body.error === 'Service unavailable') ||
      // A SCIM route's answer (docs/api.md 13.3): SCIM's error shape.
      (response.body?.status === '503' && response.body.detail === 'Service unavailable'));

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Runs a function's whole middy chain on an event and parses the answer. */
export async function call(handler: unknown, spec: RequestSpec = {}): Promise<Response> {
  const result = await (handler as Handler)(apiEvent(spec), lambdaContext);
  return {
    status: result.statusCode ?? 200,
    headers: (result.headers ?? {}) as Record<string, string>,
    // A hosted page (docs/api.md 11.7) is HTML, SAML metadata (14.5) XML: kept as text.
    body: result.body
      ? /^(text\/html|application\/samlmetadata\+xml)/.test(String(result.headers?.['Content-Type'] ?? ''))
        ? result.body
        : JSON.parse(result.body)
      : undefined,
    ...(result.cookies ? { cookies: result.cookies } : {}),
  };
}
