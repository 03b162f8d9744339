import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Config } from '../config';
import { AppError } from '../errors';
import type { Logger } from '../log';
import type { Reply } from './reply';

function corsHeaders(config: Config, event: APIGatewayProxyEventV2): Record<string, string> {
  const origin = event.headers?.origin;
  if (!origin || !config.corsAllowedOrigins.includes(origin)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': 'X-MFA-Methods, Retry-After',
    Vary: 'Origin',
  };
}

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
function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: string }).code;
  return TRANSIENT_NAMES.has(error.name) || (code !== undefined && TRANSIENT_CODES.has(code));
}

function toResult(reply: Reply, headers: Record<string, string>): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: reply.statusCode,
    headers: {
      ...(reply.json === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' }),
      'X-Content-Type-Options': 'nosniff',
      ...headers,
      ...reply.headers,
    },
    ...(reply.json === undefined ? {} : { body: JSON.stringify(reply.json) }),
  };
}

/**
 * Answers an AppError in another format than the envelope (the OAuth endpoints called
 * the RFC way); undefined keeps the envelope.
 */
export type ErrorFormat = (error: AppError, event: APIGatewayProxyEventV2) => Reply | undefined;

/**
 * Outermost middleware: turns the handler's Reply into the Lambda result, and any
 * error into the failure envelope. Errors that are not AppErrors are logged with
 * the request id and answered 500 `Internal server error`; their text never leaves.
 */
export function respond(
  deps: { config: Config; log: Logger },
  cacheControl: string,
  formatError?: ErrorFormat,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    after: (request) => {
      const reply = request.response as unknown as Reply;
      request.response = toResult(reply, { 'Cache-Control': cacheControl, ...corsHeaders(deps.config, request.event) });
    },
    onError: (request) => {
      const error = request.error;
      const headers = { 'Cache-Control': 'no-store', ...corsHeaders(deps.config, request.event) };
      if (error instanceof AppError) {
        const reply = formatError?.(error, request.event) ?? {
          statusCode: error.statusCode,
          headers: error.headers,
          json: { success: false, error: error.message },
        };
        request.response = toResult(reply, headers);
        return;
      }
      const transient = isTransient(error);
      deps.log.error(transient ? 'dependency_unavailable' : 'unhandled_error', {
        requestId: request.event.requestContext?.requestId ?? request.context.awsRequestId,
        error,
      });
      request.response = transient
        ? toResult({ statusCode: 503, headers: { 'Retry-After': '1' }, json: { success: false, error: 'Service unavailable' } }, headers)
        : toResult({ statusCode: 500, json: { success: false, error: 'Internal server error' } }, headers);
    },
  };
}
