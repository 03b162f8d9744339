import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError, type ErrorCode, type FieldProblem, ServiceUnavailableError, ValidationError } from '../errors';
import type { Logger } from '../log';
import type { Reply } from './reply';

const TRANSIENT_NAMES = new Set([
  'TimeoutError',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
]);
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** A dependency (the database, a key store) is down or overloaded: worth a retry later. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  return TRANSIENT_NAMES.has(error.name) || (code !== undefined && TRANSIENT_CODES.has(code));
}

/**
 * middy's JSON body parser refuses a body that is not JSON, or that names `__proto__` or
 * a `constructor.prototype`, with a 422 HttpError that names the package in its cause.
 */
function isJsonParserRefusal(error: unknown): boolean {
  if (!(error instanceof Error) || !('statusCode' in error) || error.statusCode !== 422) return false;
  const cause = error.cause;
  return typeof cause === 'object' && cause !== null && 'package' in cause && cause.package === '@middy/http-json-body-parser';
}

/** The AppError an error stands for: itself, or the contract's answer to a parser's refusal. */
function asAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  // Its cause holds the body, which may hold a password: mapped, never logged.
  if (isJsonParserRefusal(error)) return new ValidationError('Invalid JSON body', { code: 'INVALID_JSON' });
  return undefined;
}

/**
 * The failure envelope of an error (docs/api.md 2): its message, its code, and for a
 * validation failure with known problems, every one of them.
 */
export function failureEnvelope(error: AppError): { success: false; error: string; code: ErrorCode; fields?: readonly FieldProblem[] } {
  const fields = error instanceof ValidationError ? error.fields : undefined;
  return { success: false, error: error.message, code: error.code, ...(fields ? { fields } : {}) };
}

/**
 * The Lambda result of a Reply: JSON with its content type, or a page as it is, and
 * `cacheControl` unless the reply sets its own `Cache-Control`. middy's CORS and
 * security-header middlewares add theirs afterwards (not to pages: lib/http/handler.ts).
 */
export function toResult(reply: Reply, cacheControl: string): APIGatewayProxyStructuredResultV2 {
  const body = reply.json === undefined ? reply.html : JSON.stringify(reply.json);
  return {
    statusCode: reply.statusCode,
    headers: {
      ...(reply.json === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' }),
      'Cache-Control': cacheControl,
      ...reply.headers,
    },
    ...(body === undefined ? {} : { body }),
    ...(reply.cookies?.length ? { cookies: reply.cookies } : {}),
  };
}

/**
 * Answers an error in another format than the envelope: the OAuth endpoints called the
 * RFC way answer an AppError their way, the hosted pages answer every error as the error
 * page. `unexpected` says the error is the 500 or 503 that stands for one that is not an
 * AppError. Undefined keeps the envelope.
 */
export type ErrorFormat = (error: AppError, event: APIGatewayProxyEventV2, unexpected: boolean) => Reply | undefined;

/** The envelope's answer of an error (docs/api.md 2). */
const envelope = (error: AppError): Reply => ({ statusCode: error.statusCode, headers: error.headers, json: failureEnvelope(error) });

/**
 * The one place that turns errors into answers: an AppError (or a body middy's JSON
 * parser refused: 400 `Invalid JSON body`) into the failure envelope with `no-store`.
 * Anything else is logged with the request id and answered 500 `Internal server error`,
 * or 503 `Service unavailable` with `Retry-After` when a dependency is down; its text
 * never leaves. A route's `formatError` may answer in its own format instead.
 */
export function respond(
  deps: { log: Logger },
  formatError?: ErrorFormat,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: (request) => {
      const known = asAppError(request.error);
      let error = known;
      if (!error) {
        const transient = isTransient(request.error);
        deps.log.error(transient ? 'dependency_unavailable' : 'unhandled_error', {
          requestId: request.event.requestContext?.requestId ?? request.context.awsRequestId,
          error: request.error,
        });
        error = transient ? new ServiceUnavailableError({ 'Retry-After': '1' }) : new AppError(500, 'Internal server error');
      }
      const reply = formatError?.(error, request.event, known === undefined) ?? envelope(error);
      request.response = toResult(reply, 'no-store');
    },
  };
}
