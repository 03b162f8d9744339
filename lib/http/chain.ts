import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { HttpDeps, HttpHandler, RouteHandler, RouteOptions } from './handler';
import type { IdentityRule } from './middlewares/identity';
import { validate } from './middlewares/validate';
import { requestSource } from './request-source';
import { respond, toResult } from './respond';

/** The middlewares a kind of route adds around the common ones: outside the error mapper, and between it and validation. */
export interface ChainParts {
  // biome-ignore lint/suspicious/noExplicitAny: middy's middlewares are typed by what they add to the event.
  outer: MiddlewareObj<any, any>[];
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  input: MiddlewareObj<any, any>[];
}

/**
 * The chain every HTTP function shares (lib/http/handler.ts for the JSON routes,
 * lib/http/page-handler.ts for the hosted pages): the kind's outer middlewares, errors
 * into answers, the kind's input middlewares, the permission check and validation, then
 * the handler with the function's deps, the request's logger and its `source`. Each kind
 * imports only its own middlewares, so a page's bundle carries no CORS (docs/performance.md).
 */
export function routeChain(
  deps: HttpDeps,
  options: RouteOptions<z.ZodType, z.ZodType>,
  parts: ChainParts,
  handle: RouteHandler<HttpDeps, unknown, unknown, IdentityRule>,
): HttpHandler {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({ timeoutEarlyInMillis: 0 })
    .use(parts.outer)
    .use(respond(deps, options.formatError))
    .use(parts.input)
    .use(validate(options))
    .handler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(async (event, context) => {
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      const reply = await handle({
        body: event.input.body,
        query: event.input.query,
        params: event.input.params,
        identity: event.identity,
        deps: { ...deps, log: deps.log.child({ requestId }), source: requestSource(event) },
        bodyFormat: event.bodyFormat ?? 'form',
        headers: event.headers ?? {},
        event,
        cookies: event.cookies ?? event.headers?.cookie?.split(/;\s*/) ?? [],
        sourceIp: event.requestContext?.http?.sourceIp,
      });
      return toResult(reply, options.cacheControl ?? 'no-store');
    });
}
