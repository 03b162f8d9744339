import type { ScimCaller } from '../audit/record';
import type { Deps } from '../deps';
import { type HttpHandler, httpHandler } from '../http/handler';
import { document, type Reply } from '../http/reply';
import { fitsAfterNormalization } from '../http/schemas';
import * as z from '../zod';
import { SCIM_JSON, scimErrorFormat, scimErrors } from './errors';
import { scimAuthentication, scimCallerOf } from './tokens';

/** What a SCIM route's handler gets: the caller its token names, the body as parsed JSON, path and query. */
export interface ScimRequest {
  caller: ScimCaller;
  body: Record<string, unknown>;
  pathParameters: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  deps: Deps;
}

/** Any JSON object: a SCIM route reads its body itself, after the token (lib/scim/schema.ts). */
export const anyObject = z.record(z.string(), z.unknown());

/**
 * A SCIM route (docs/api.md 13.3): the service's one middy chain, with the SCIM token's
 * authentication where identity is checked (before the body is read) and SCIM's error
 * format in place of the envelope.
 */
export function scimRoute(deps: Deps, handle: (request: ScimRequest) => Promise<Reply>): HttpHandler {
  return httpHandler(
    deps,
    { identity: 'none', body: anyObject, formatError: scimErrorFormat, authenticate: scimAuthentication(deps) },
    async ({ body, event, deps }) => {
      const pathParameters = event.pathParameters ?? {};
      // An id no record can have (beyond the bounds of a key, docs/api.md 10.2) is unknown.
      if (Object.values(pathParameters).some((id) => id !== undefined && !fitsAfterNormalization(id))) throw scimErrors.notFound();
      return handle({ caller: scimCallerOf(event), body, pathParameters, query: event.queryStringParameters ?? {}, deps });
    },
  );
}

/** A SCIM discovery document (RFC 7644 4): no token needed. */
export function scimDocumentRoute(deps: Deps, make: (deps: Deps) => unknown): HttpHandler {
  return httpHandler(deps, { identity: 'none', formatError: scimErrorFormat }, async () => scimAnswer(make(deps)));
}

/** A SCIM answer: `application/scim+json`, and any header the route adds (`Location`). */
export const scimAnswer = (json: unknown, status = 200, headers: Record<string, string> = {}): Reply =>
  document(json, status, { ...headers, ...SCIM_JSON });
