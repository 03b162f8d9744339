import type { MiddlewareObj, Request } from '@middy/core';
import httpCors from '@middy/http-cors';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Config } from '../../config';

/**
 * Whether a web origin other than the configured front ends may read a route's answers,
 * decided per request (docs/api.md 16.2: the origins OAuth clients list).
 */
export type OriginCheck = (origin: string) => Promise<boolean>;

/** What a route answers to another origin: a CORS configuration each. */
type Audience = 'frontEnd' | 'client' | 'elsewhere';

/**
 * CORS headers on every answer, also on failures, written by @middy/http-cors: for a
 * request from one of the configured front ends (compared exactly), the origin echoed and
 * `X-MFA-Methods` and `Retry-After` exposed; for a route with an `originCheck` (the
 * token, userinfo and revocation endpoints, docs/api.md 16.2), also for an origin it
 * allows, with `WWW-Authenticate`, `Retry-After` and `DPoP-Nonce` (docs/api.md 16.3) exposed; for any other request no
 * CORS header (docs/api.md 2). `Vary: Origin` on every answer, so that a cache never
 * hands one origin's answer to another. One configuration per audience, because middy
 * exposes headers to every origin or to none.
 */
export function cors(config: Config, originCheck?: OriginCheck): MiddlewareObj<APIGatewayProxyEventV2> {
  const allowed = new Set(config.corsAllowedOrigins);
  const configurations: Record<Audience, MiddlewareObj<APIGatewayProxyEventV2>> = {
    frontEnd: httpCors({ getOrigin: (origin) => origin, exposeHeaders: 'X-MFA-Methods, Retry-After', vary: 'Origin' }),
    client: httpCors({ getOrigin: (origin) => origin, exposeHeaders: 'WWW-Authenticate, Retry-After, DPoP-Nonce', vary: 'Origin' }),
    elsewhere: httpCors({ getOrigin: () => null, vary: 'Origin' }),
  };
  // Decided once per request, before anything can fail, and read by `after` or `onError`.
  const audiences = new WeakMap<APIGatewayProxyEventV2, Audience>();
  const pick = ({ event }: Request<APIGatewayProxyEventV2>) => configurations[audiences.get(event) ?? 'elsewhere'];
  return {
    before: async ({ event }) => {
      const origin = event.headers?.origin ?? '';
      if (allowed.has(origin)) audiences.set(event, 'frontEnd');
      else if (origin !== '' && originCheck && (await originCheck(origin))) audiences.set(event, 'client');
    },
    after: (request) => pick(request).after?.(request),
    onError: (request) => pick(request).onError?.(request),
  };
}
