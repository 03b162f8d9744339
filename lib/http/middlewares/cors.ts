import type { MiddlewareObj, Request } from '@middy/core';
import httpCors from '@middy/http-cors';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Config } from '../../config';

/**
 * CORS headers on every answer, also on failures, written by @middy/http-cors: for a
 * request from one of the configured front ends (compared exactly), the origin echoed and
 * `X-MFA-Methods` and `Retry-After` exposed; for any other request no CORS header
 * (docs/api.md 2). `Vary: Origin` on every answer, so that a cache never hands one
 * origin's answer to another. Two configurations, because middy exposes headers to every
 * origin or to none.
 */
export function cors(config: Config): MiddlewareObj<APIGatewayProxyEventV2> {
  const allowed = new Set(config.corsAllowedOrigins);
  const frontEnd = httpCors({ getOrigin: (origin) => origin, exposeHeaders: 'X-MFA-Methods, Retry-After', vary: 'Origin' });
  const elsewhere = httpCors({ getOrigin: () => null, vary: 'Origin' });
  const pick = ({ event }: Request<APIGatewayProxyEventV2>) => (allowed.has(event.headers?.origin ?? '') ? frontEnd : elsewhere);
  return {
    after: (request) => pick(request).after?.(request),
    onError: (request) => pick(request).onError?.(request),
  };
}
