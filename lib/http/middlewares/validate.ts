import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod/mini';
import type { Identity } from '../../caller';
import { type AppError, ValidationError } from '../../errors';
import type { IdentityEvent } from './identity';

export interface ValidateOptions {
  body?: z.ZodMiniType;
  query?: z.ZodMiniType;
  /** The route's path parameters (`/admin/users/{userId}`). */
  params?: z.ZodMiniType;
  /** A permission check that needs the raw (parsed, unvalidated) body; runs before validation. */
  authorize?: (identity: Identity | null, rawBody: Record<string, unknown>) => Promise<void>;
  /** The one error of any refused body, naming nothing (the hosted pages' forms); else each problem is named. */
  bodyRefusal?: () => AppError;
}

/** The event once middy's parsers have replaced the body text with what it holds. */
type ParsedEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown };

/** What {@link validate} adds to the event: the body and query as the route's schemas output them. */
export interface InputEvent {
  input: { body: unknown; query: unknown; params: unknown };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The 400 of a schema's refusal (docs/api.md 2): `<field path>: <zod's message>` of the
 * first problem as the message, every problem in `fields`; `where` (`body`, `query`) is
 * the path when the whole input is at fault.
 */
export function schemaFailure(error: z.core.$ZodError, where: string): ValidationError {
  const fields = error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || where, message: issue.message }));
  const first = fields[0] ?? { path: where, message: 'Invalid input' };
  return new ValidationError(`${first.path}: ${first.message}`, { fields });
}

function check(schema: z.ZodMiniType, value: unknown, where: string, refusal?: () => AppError): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw refusal?.() ?? schemaFailure(parsed.error, where);
  return parsed.data;
}

/**
 * Checks the parsed input, in this order: the body is an object (400 `Invalid JSON body:
 * expected an object`), the route's permission check on the raw body, then the body,
 * query and path schemas (400 `<field path>: <zod's message>` for the first failing field,
 * every problem in `fields`), or the route's `bodyRefusal` for any fault of the body.
 * An input without a schema is left `undefined`.
 */
export function validate(options: ValidateOptions): MiddlewareObj<ParsedEvent & IdentityEvent & InputEvent> {
  return {
    before: async ({ event }) => {
      const raw = event.body;
      if (!isObject(raw))
        throw options.bodyRefusal?.() ?? new ValidationError('Invalid JSON body: expected an object', { code: 'INVALID_JSON' });
      if (options.authorize) await options.authorize(event.identity, raw);
      event.input = {
        body: options.body ? check(options.body, raw, 'body', options.bodyRefusal) : undefined,
        query: options.query ? check(options.query, event.queryStringParameters ?? {}, 'query') : undefined,
        params: options.params ? check(options.params, event.pathParameters ?? {}, 'path') : undefined,
      };
    },
  };
}
