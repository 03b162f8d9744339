import middy, { type MiddyfiedHandler } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpSecurityHeaders from '@middy/http-security-headers';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { Identity } from '../caller';
import type { Config } from '../config';
import type { Logger } from '../log';
import { type BodyFormat, bodyFormat } from './middlewares/body-format';
import { bodyLimit } from './middlewares/body-limit';
import { cors } from './middlewares/cors';
import { type IdentityOptions, type IdentityRule, identity } from './middlewares/identity';
import { invalidForm, pageForm } from './middlewares/page-form';
import { type ValidateOptions, validate } from './middlewares/validate';
import type { Reply, Success } from './reply';
import { type RequestSource, requestSource } from './request-source';
import { type ErrorFormat, respond, toResult } from './respond';

export type { BodyFormat } from './middlewares/body-format';
export type { IdentityRule } from './middlewares/identity';

/** What the chain itself needs; a function passes all of its own deps. */
export interface HttpDeps {
  config: Config;
  log: Logger;
  /** Where the request came from: set by the chain on the deps each request's handler gets. */
  source?: RequestSource | undefined;
}

export interface RouteOptions<
  B extends z.ZodType,
  Q extends z.ZodType,
  I extends IdentityRule = IdentityRule,
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> extends IdentityOptions,
    ValidateOptions {
  identity: I;
  body?: B;
  query?: Q;
  params?: P;
  /**
   * The `data` of the route's success envelope (docs/api.md 5): the handler's `ok()`
   * must give what it describes, or the function does not compile. Types only: the
   * answer is not parsed.
   */
  response?: R;
  /** The largest body the route takes, in bytes; 16 KiB (docs/api.md 2) unless said otherwise. */
  maxBodyBytes?: number;
  /** Also accept `application/x-www-form-urlencoded` bodies (the OAuth endpoints). */
  acceptForm?: boolean;
  /** Cache-Control of successful answers; `no-store` unless said otherwise. */
  cacheControl?: string;
  /** Answers errors in another format than the envelope where it applies (the OAuth endpoints' RFC format, the error page). */
  formatError?: ErrorFormat;
  /**
   * A hosted page (docs/api.md 11.8): `body` is the schema of a form, refused as a whole
   * (lib/http/middlewares/page-form.ts), and the answer keeps the headers the page set.
   */
  page?: boolean;
}

export interface RouteRequest<D, B, Q, I extends IdentityRule = IdentityRule, P = unknown> {
  body: B;
  query: Q;
  /** The path parameters as the route's `params` schema outputs them. */
  params: P;
  identity: I extends 'required' ? Identity : Identity | null;
  /** The function's deps, with a `log` whose lines carry this request's id, and the request's `source`. */
  deps: D;
  /** How the body came: the OAuth endpoints answer form requests in RFC format. */
  bodyFormat: BodyFormat;
  headers: Record<string, string | undefined>;
  /** The API Gateway event itself, for what only it knows (the source address: lib/sessions/device.ts). */
  event: APIGatewayProxyEventV2;
  /** The request's cookies (`name=value`): payload 2.0 moves them out of `headers`. */
  cookies: readonly string[];
  /** The caller's address as API Gateway saw it (the TCP peer, not a header a client sets). */
  sourceIp: string | undefined;
}

/** A route's handler; `A` is the JSON its answers may carry (the envelope of the route's `response`). */
export type RouteHandler<D, B, Q, I extends IdentityRule, P = unknown, A = unknown> = (
  request: RouteRequest<D, B, Q, I, P>,
) => Promise<Reply<A>>;

/** The JSON of a route's answers: anything, or the success envelope of its declared `response`. */
type AnswerOf<R extends z.ZodType> = z.ZodType extends R ? unknown : Success<z.input<R>>;

/** A function's Lambda handler: an API Gateway HTTP API (payload 2.0) event in, its result out. */
export type HttpHandler = MiddyfiedHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

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

/** The middlewares between the error mapper and validation of a JSON route, the OAuth endpoints' forms included. */
function jsonInput(options: RouteOptions<z.ZodType, z.ZodType>) {
  return [
    bodyLimit(options.maxBodyBytes),
    identity(options),
    bodyFormat(options.acceptForm ?? false),
    ...(options.acceptForm ? [httpUrlencodeBodyParser<APIGatewayProxyEventV2>({ disableContentTypeError: true })] : []),
    // Skips form bodies; every other body is JSON by now (bodyFormat).
    httpJsonBodyParser<APIGatewayProxyEventV2>({ disableContentTypeError: true }),
  ];
}

/**
 * The middy chain of every HTTP function, in this order: CORS and security headers on
 * every answer (outermost), errors into answers, the body size limit, identity from the
 * authorizer, the body format, middy's form and JSON parsers, the permission check and
 * validation, then the handler. So a call without identity and with bad input gets
 * 401/403, never 400 (docs/api.md 2). The handler gets the function's deps with the
 * request's logger.
 *
 * A hosted page runs the same chain with a form in place of the JSON body (its own
 * size limit, then middy's form parser) and without the CORS and JSON security headers:
 * a page sets its own (docs/api.md 11.8), which @middy/http-security-headers would
 * overwrite, and no other origin reads it.
 */
export function httpHandler<
  D extends HttpDeps,
  I extends IdentityRule,
  B extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  P extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodType,
>(
  deps: D,
  options: RouteOptions<B, Q, I, P, R>,
  handle: RouteHandler<D, z.output<B>, z.output<Q>, I, z.output<P>, AnswerOf<R>>,
): HttpHandler;
// Callers see the request typed from their options (a required identity is there; the body is
// what the schema outputs), which is what the chain guarantees; here it is handled in general.
export function httpHandler(
  deps: HttpDeps,
  options: RouteOptions<z.ZodType, z.ZodType>,
  handle: RouteHandler<HttpDeps, unknown, unknown, IdentityRule>,
): HttpHandler {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({ timeoutEarlyInMillis: 0 })
    .use(options.page ? [] : [cors(deps.config), securityHeaders()])
    .use(respond(deps, options.formatError))
    .use(
      options.page
        ? [identity(options), pageForm(), httpUrlencodeBodyParser<APIGatewayProxyEventV2>({ disableContentTypeError: true })]
        : jsonInput(options),
    )
    .use(validate(options.page ? { ...options, bodyRefusal: invalidForm } : options))
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
