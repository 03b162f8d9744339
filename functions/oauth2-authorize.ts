import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { beginBrowserAuthorization, isBrowserNavigation } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { redirect } from '../lib/http/reply';
import { authorizationQuery, authorize } from '../lib/oauth/authorization';
import { authorizationForm, formAsQuery } from '../lib/oauth/authorization-request';
import { oauthErrors } from '../lib/oauth/errors';
import * as z from '../lib/zod';

/** docs/api.md 4.6 plus PKCE (docs/api.md 4.6). */
export const query = authorizationQuery;

/**
 * GET|POST /oauth2/authorize: with a Bearer token (docs/api.md 4.6) a code for the signed-in
 * user, by redirect to the client; a browser's navigation without one (docs/api.md 11.5)
 * gets the hosted sign-in. Anything else keeps the 401 of docs/api.md 4.6.
 */
export function makeHandler(deps: Deps) {
  const api = httpHandler(deps, { identity: 'required', query }, async ({ query, identity, deps }) =>
    redirect(await authorize(deps, identity, query)),
  );
  const browser = httpHandler(deps, hostedPage, ({ deps, event }) => beginBrowserAuthorization(deps, event));
  // POST (OpenID Connect Core 3.1.2.1, docs/api.md 16.2): the same request as a form body, through the same doors.
  const apiByPost = httpHandler(
    deps,
    { identity: 'required', body: authorizationForm, acceptForm: true },
    async ({ body, bodyFormat, identity, deps }) => {
      if (bodyFormat !== 'form') throw oauthErrors.formRequired();
      return redirect(await authorize(deps, identity, body));
    },
  );
  const browserByPost = httpHandler(deps, { ...hostedPage, body: z.unknown() }, ({ deps, event, body }) =>
    beginBrowserAuthorization(deps, event, formAsQuery(body)),
  );
  return (event: APIGatewayProxyEventV2, context: Context) => {
    const byPost = event.requestContext.http.method === 'POST';
    if (isBrowserNavigation(event)) return (byPost ? browserByPost : browser)(event, context);
    return (byPost ? apiByPost : api)(event, context);
  };
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.6',
  summary: 'Issue an authorization code for the signed-in user (PKCE S256 required)',
  tag: 'oauth2',
  caller: 'session',
  query: true,
  answers: [{ status: 302, description: 'Redirect to the client with the code.', headers: { Location: undefined, ...noStore } }],
  failures: [
    new ValidationError('Unsupported response type', { code: 'UNSUPPORTED_RESPONSE_TYPE' }),
    new ValidationError('Invalid client', { code: 'INVALID_CLIENT' }),
    new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
    new ValidationError('Unauthorized client', { code: 'UNAUTHORIZED_CLIENT' }),
    new ValidationError('Missing code_challenge', { code: 'PKCE_REQUIRED' }),
    new ValidationError('Unsupported code_challenge_method', { code: 'UNSUPPORTED_CODE_CHALLENGE_METHOD' }),
    new ValidationError('Invalid nonce', { code: 'INVALID_NONCE' }),
    unauthorized,
  ],
};
