import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import type { OperationDoc } from '../lib/http/operation-doc';
import { CLIENT_CORS_ROUTES, clientOrigins } from '../lib/oauth/cors';

/** What the first-party front ends may send (docs/api.md 2), as API Gateway's own CORS answered before. */
const FIRST_PARTY = { methods: 'GET, POST, PUT, PATCH, DELETE, OPTIONS', headers: 'Content-Type, Authorization, X-Device-Token' };

/**
 * OPTIONS /{proxy+} (docs/api.md 16.2): every CORS preflight. API Gateway answers none
 * itself (docs/decisions/020-public-clients.md): the token, userinfo and revocation
 * endpoints allow the origins OAuth clients list, every route the configured front ends.
 * An origin not allowed gets a 204 without CORS headers, as API Gateway answered it.
 */
export function makeHandler(deps: Deps) {
  const frontEnds = new Set(deps.config.corsAllowedOrigins);
  const listedByClients = clientOrigins(deps);
  return httpHandler(deps, { identity: 'none' }, async ({ event, headers }) => {
    const origin = headers.origin ?? '';
    const perClient = CLIENT_CORS_ROUTES[event.rawPath];
    const allowed = frontEnds.has(origin) || (perClient !== undefined && origin !== '' && (await listedByClients(origin)));
    if (!allowed) return { statusCode: 204 };
    const { methods, headers: requestHeaders } = perClient ?? FIRST_PARTY;
    return {
      statusCode: 204,
      headers: {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': methods,
        'Access-Control-Allow-Headers': requestHeaders,
        'Access-Control-Max-Age': '600',
      },
    };
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '16.2',
  summary: 'CORS preflight of every route: per client on the token, userinfo and revocation endpoints',
  tag: 'discovery',
  caller: 'none',
  answers: [
    {
      status: 204,
      description: 'Access-Control-Allow-Origin only for an origin allowed on the route.',
      headers: {
        'Access-Control-Allow-Origin': undefined,
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      },
    },
  ],
  failures: [],
};
