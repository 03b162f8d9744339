import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod/mini';
import { type AnswerOf, type HttpDeps, type HttpHandler, type RouteHandler, type RouteOptions, routeChain } from './chain';
import { type IdentityRule, identity } from './middlewares/identity';
import { invalidForm, pageForm } from './middlewares/page-form';

/**
 * The chain of a hosted page (docs/api.md 11.8): lib/http/handler.ts's with a form in
 * place of the JSON body (its own size limit, then middy's form parser, any refusal the
 * one `Invalid form body`) and without the CORS and JSON security headers: a page sets
 * its own, which @middy/http-security-headers would overwrite, and no other origin reads
 * it. `httpHandler` with `page: true` comes here too; a page's function that calls this
 * directly leaves the JSON chain's middlewares out of its bundle (docs/performance.md).
 */
export function pageHandler<
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
export function pageHandler(
  deps: HttpDeps,
  options: RouteOptions<z.ZodMiniType, z.ZodMiniType>,
  handle: RouteHandler<HttpDeps, unknown, unknown, IdentityRule>,
): HttpHandler {
  const input = [
    identity(options),
    pageForm(options.maxBodyBytes),
    httpUrlencodeBodyParser<APIGatewayProxyEventV2>({ disableContentTypeError: true }),
  ];
  return routeChain(deps, { ...options, page: true, bodyRefusal: invalidForm }, { outer: [], input }, handle);
}
