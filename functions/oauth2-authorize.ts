import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type Deps, defaultDeps } from '../lib/deps';
import { beginBrowserAuthorization, isBrowserNavigation } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { httpHandler } from '../lib/http/handler';
import { redirect } from '../lib/http/reply';
import { authorizationQuery, authorize } from '../lib/oauth/authorization';

/** docs/api.md 4.6 plus PKCE (docs/api.md 4.6). */
export const query = authorizationQuery;

/**
 * GET /oauth2/authorize: with a Bearer token (docs/api.md 4.6) a code for the signed-in
 * user, by redirect to the client; a browser's navigation without one (docs/api.md 11.5)
 * gets the hosted sign-in. Anything else keeps the 401 of docs/api.md 4.6.
 */
export function makeHandler(deps: Deps) {
  const api = httpHandler(deps, { identity: 'required', query }, async ({ query, identity, deps }) =>
    redirect(await authorize(deps, identity, query)),
  );
  const browser = httpHandler(deps, hostedPage, ({ deps, event }) => beginBrowserAuthorization(deps, event));
  return (event: APIGatewayProxyEventV2, context: Context) => (isBrowserNavigation(event) ? browser : api)(event, context);
}

export const handler = makeHandler(defaultDeps());
