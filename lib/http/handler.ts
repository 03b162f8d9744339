import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { Config } from '../config';
import { ForbiddenError, PayloadTooLargeError, ServiceUnavailableError, UnauthorizedError, ValidationError } from '../errors';
import type { Logger } from '../log';
import type { Identity } from '../tokens/access-token';
import type { Role } from '../users/user';
import { authorizerUnavailable, identityFromEvent } from './identity';
import type { Reply } from './reply';
import { type ErrorFormat, respond } from './respond';

/** CONTRACT 2: bodies over 16 KiB are refused before parsing. */
export const MAX_BODY_BYTES = 16 * 1024;

export type BodyFormat = 'json' | 'form';

export type IdentityRule = 'required' | 'optional' | 'none';

export interface RouteOptions<B extends z.ZodType, Q extends z.ZodType, I extends IdentityRule = IdentityRule> {
  /** `required`: 401 without identity; `optional`: the handler decides; `none`: ignored. */
  identity: I;
  /** Only callers with this role (403 `Permission denied`, also without identity). */
  role?: Role;
  body?: B;
  query?: Q;
  /** Also accept `application/x-www-form-urlencoded` bodies (the OAuth endpoints). */
  acceptForm?: boolean;
  /** A permission check that needs the raw (parsed, unvalidated) body; runs before validation. */
  authorize?: (identity: Identity | null, rawBody: Record<string, unknown>) => Promise<void>;
  /** Cache-Control of successful answers; `no-store` unless said otherwise. */
  cacheControl?: string;
  /** Answers errors in another format than the envelope where it applies (the OAuth endpoints' RFC format). */
  formatError?: ErrorFormat;
}

export interface RouteRequest<B, Q, I extends IdentityRule = IdentityRule> {
  body: B;
  query: Q;
  identity: I extends 'required' ? Identity : Identity | null;
  /** How the body came: the OAuth endpoints answer form requests in RFC format. */
  bodyFormat: BodyFormat;
  headers: Record<string, string | undefined>;
  requestId: string;
  log: Logger;
  event: APIGatewayProxyEventV2;
}

export type RouteHandler<B, Q, I extends IdentityRule> = (request: RouteRequest<B, Q, I>) => Promise<Reply>;

/** The state the middlewares build up for the handler. */
interface RouteState {
  identity: Identity | null;
  rawBody: Record<string, unknown>;
  bodyFormat: BodyFormat;
  body: unknown;
  query: unknown;
}

type RouteEvent = APIGatewayProxyEventV2 & { route: RouteState };
type Middleware = MiddlewareObj<RouteEvent, APIGatewayProxyStructuredResultV2, Error, Context>;

function bodyText(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function isForm(event: APIGatewayProxyEventV2): boolean {
  const contentType = event.headers?.['content-type'] ?? '';
  return contentType.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

const bodyLimit: Middleware = {
  before: ({ event }) => {
    const size = event.body ? Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : 0;
    if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError();
  },
};

function checkIdentity(options: RouteOptions<z.ZodType, z.ZodType>): Middleware {
  return {
    before: ({ event }) => {
      const identity = options.identity === 'none' ? null : identityFromEvent(event);
      event.route.identity = identity;
      if (!identity && options.identity !== 'none' && authorizerUnavailable(event)) throw new ServiceUnavailableError();
      if (options.role && identity?.role !== options.role) throw new ForbiddenError();
      if (options.identity === 'required' && !identity) throw new UnauthorizedError();
    },
  };
}

function parseBody(acceptForm: boolean): Middleware {
  return {
    before: ({ event }) => {
      const text = bodyText(event);
      if (acceptForm && isForm(event)) {
        event.route.bodyFormat = 'form';
        // Repeated parameters are kept as arrays so validation can refuse them (RFC 6749 3.1).
        const fields: Record<string, unknown> = Object.create(null);
        for (const [key, value] of new URLSearchParams(text)) {
          const seen = fields[key];
          fields[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
        }
        event.route.rawBody = fields;
        return;
      }
      if (text.trim() === '') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ValidationError('Invalid JSON body');
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new ValidationError('Invalid JSON body: expected an object');
      }
      event.route.rawBody = parsed as Record<string, unknown>;
    },
  };
}

function firstIssue(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join('.') || where;
  return `${path}: ${issue?.message ?? 'Invalid input'}`;
}

function validate(options: RouteOptions<z.ZodType, z.ZodType>): Middleware {
  return {
    before: async ({ event }) => {
      if (options.authorize) await options.authorize(event.route.identity, event.route.rawBody);
      if (options.body) {
        const parsed = options.body.safeParse(event.route.rawBody);
        if (!parsed.success) throw new ValidationError(firstIssue(parsed.error, 'body'));
        event.route.body = parsed.data;
      }
      if (options.query) {
        const parsed = options.query.safeParse(event.queryStringParameters ?? {});
        if (!parsed.success) throw new ValidationError(firstIssue(parsed.error, 'query'));
        event.route.query = parsed.data;
      }
    },
  };
}

/**
 * The middy chain of every HTTP function, in this order: envelope and error
 * handling (outermost), body size limit, identity from the authorizer, body parsing,
 * permission check, validation, then the handler. So a call without identity and
 * with bad input gets 401/403, never 400 (CONTRACT 2).
 */
export function httpHandler<
  I extends IdentityRule,
  B extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
>(deps: { config: Config; log: Logger }, options: RouteOptions<B, Q, I>, handle: RouteHandler<z.output<B>, z.output<Q>, I>) {
  const general = options as RouteOptions<z.ZodType, z.ZodType>;
  const start: Middleware = {
    before: ({ event }) => {
      event.route = { identity: null, rawBody: {}, bodyFormat: 'json', body: undefined, query: undefined };
    },
  };
  return middy<RouteEvent, APIGatewayProxyStructuredResultV2, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(respond(deps, options.cacheControl ?? 'no-store', options.formatError))
    .use(start)
    .use(bodyLimit)
    .use(checkIdentity(general))
    .use(parseBody(options.acceptForm ?? false))
    .use(validate(general))
    .handler(async (event, context) => {
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      return handle({
        body: event.route.body as z.output<B>,
        query: event.route.query as z.output<Q>,
        // checkIdentity has refused the request if a required identity is missing.
        identity: event.route.identity as RouteRequest<z.output<B>, z.output<Q>, I>['identity'],
        bodyFormat: event.route.bodyFormat,
        headers: event.headers ?? {},
        requestId,
        log: deps.log.child({ requestId }),
        event,
      }) as unknown as Promise<APIGatewayProxyStructuredResultV2>;
    });
}
