import middy, { type MiddlewareObj, type MiddyfiedHandler } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod/mini';
import type { Identity } from '../caller';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { BodyFormat } from './middlewares/body-format';
import type { IdentityOptions, IdentityRule } from './middlewares/identity';
import { type ValidateOptions, validate } from './middlewares/validate';
import type { Reply, Success } from './reply';
import { type RequestSource, requestSource } from './request-source';
import { type ErrorFormat, respond, toResult } from './respond';

/** What the chain itself needs; a function passes all of its own deps. */
export interface HttpDeps {
  config: Config;
  log: Logger;
  /** Where the request came from: set by the chain on the deps each request's handler gets. */
  source?: RequestSource | undefined;
}

export interface RouteOptions<
  B extends z.ZodMiniType,
  Q extends z.ZodMiniType,
  I extends IdentityRule = IdentityRule,
  P extends z.ZodMiniType = z.ZodMiniType,
  R extends z.ZodMiniType = z.ZodMiniType,
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
  /** The largest body the route takes, in bytes; 16 KiB (docs/api.md 2), a page's form 8 KiB, unless said otherwise. */
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
  /**
   * Authenticates a caller the session authorizer does not know (the SCIM routes' bearer
   * tokens, docs/api.md 13.3), where the identity is checked: before the body is read.
   */
  authenticate?: (event: APIGatewayProxyEventV2) => Promise<void>;
  /**
   * Lets web origins besides the configured front ends read the answers, decided per
   * request (docs/api.md 16.2: the origins OAuth clients list, on the token, userinfo and
   * revocation endpoints).
   */
  corsOrigins?: (origin: string) => Promise<boolean>;
  /**
   * Starts, once the request is valid and before its handler runs, what the request will
   * wait for later (a cold instance's signing keys: prefetchKeys), so that it overlaps the
   * handler's round trips and password hash instead of following them. The answer waits
   * for the work it returns, so that no read is in flight when Lambda freezes the instance
   * after answering (a read frozen midway could hold up the next request); the promise
   * must not reject. Undefined when there is nothing (left) to start.
   */
  prefetch?: () => Promise<unknown> | undefined;
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
export type AnswerOf<R extends z.ZodMiniType> = z.ZodMiniType extends R ? unknown : Success<z.input<R>>;

/** A function's Lambda handler: an API Gateway HTTP API (payload 2.0) event in, its result out. */
export type HttpHandler = MiddyfiedHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

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
  options: RouteOptions<z.ZodMiniType, z.ZodMiniType>,
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
      const prefetched = options.prefetch?.();
      try {
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
      } finally {
        await prefetched;
      }
    });
}
