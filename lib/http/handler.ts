import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpSecurityHeaders from '@middy/http-security-headers';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod/mini';
import { type AnswerOf, type HttpDeps, type HttpHandler, type RouteHandler, type RouteOptions, routeChain } from './chain';
import { bodyFormat } from './middlewares/body-format';
import { bodyLimit } from './middlewares/body-limit';
import { cors } from './middlewares/cors';
import { type IdentityRule, identity } from './middlewares/identity';
import { pageHandler } from './page-handler';

// The chain's types, where the functions and their tests have always imported them.
export type { HttpDeps, HttpHandler, RouteHandler, RouteOptions, RouteRequest } from './chain';
export type { BodyFormat } from './middlewares/body-format';
export type { IdentityRule } from './middlewares/identity';

/**
 * The security headers that mean something for JSON answers (OWASP REST Security Cheat
 * Sheet): no sniffing, no framing, no loading anything if an answer is opened as a page,
 * HTTPS only, no Referer. Those that only HTML documents use are left out.
 */
const securityHeaders = () =>
  httpSecurityHeaders({
    contentSecurityPolicy: { 'default-src': "'none'", 'report-to': '' },
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    dnsPrefetchControl: false,
    downloadOptions: false,
    originAgentCluster: false,
    permissionsPolicy: false,
    permittedCrossDomainPolicies: false,
    reportTo: false,
  });

/** A route's own authentication as a middleware. */
const authentication = (authenticate: (event: APIGatewayProxyEventV2) => Promise<void>): MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: ({ event }) => authenticate(event),
});

/** The middlewares between the error mapper and validation of a JSON route, the OAuth endpoints' forms included. */
function jsonInput(options: RouteOptions<z.ZodMiniType, z.ZodMiniType>) {
  return [
    bodyLimit(options.maxBodyBytes),
    identity(options),
    ...(options.authenticate ? [authentication(options.authenticate)] : []),
    bodyFormat(options.acceptForm ?? false),
    ...(options.acceptForm ? [httpUrlencodeBodyParser<APIGatewayProxyEventV2>({ disableContentTypeError: true })] : []),
    // Skips form bodies; every other body is JSON by now (bodyFormat).
    httpJsonBodyParser<APIGatewayProxyEventV2>({ disableContentTypeError: true }),
  ];
}

/**
 * The middy chain of every HTTP function (lib/http/chain.ts), in this order: CORS and
 * security headers on every answer (outermost), errors into answers, the body size
 * limit, identity from the authorizer, the body format, middy's form and JSON parsers,
 * the permission check and validation, then the handler. So a call without identity and
 * with bad input gets 401/403, never 400 (docs/api.md 2). The handler gets the
 * function's deps with the request's logger.
 *
 * A hosted page (`page: true`) runs lib/http/page-handler.ts's chain instead, which a
 * page's function may call directly to leave this one's middlewares out of its bundle.
 */
export function httpHandler<
  D extends HttpDeps,
  I extends IdentityRule,
  B extends z.ZodMiniType = z.ZodMiniUndefined,
  Q extends z.ZodMiniType = z.ZodMiniUndefined,
  P extends z.ZodMiniType = z.ZodMiniUndefined,
  R extends z.ZodMiniType = z.ZodMiniType,
>(
  deps: D,
  options: RouteOptions<B, Q, I, P, R>,
  handle: RouteHandler<D, z.output<B>, z.output<Q>, I, z.output<P>, AnswerOf<R>>,
): HttpHandler;
// Callers see the request typed from their options (a required identity is there; the body is
// what the schema outputs), which is what the chain guarantees; here it is handled in general.
export function httpHandler(
  deps: HttpDeps,
  options: RouteOptions<z.ZodMiniType, z.ZodMiniType>,
  handle: RouteHandler<HttpDeps, unknown, unknown, IdentityRule>,
): HttpHandler {
  if (options.page) return pageHandler(deps, options, handle);
  return routeChain(
    deps,
    options,
    { outer: [cors(deps.config, options.corsOrigins), securityHeaders()], input: jsonInput(options) },
    handle,
  );
}
