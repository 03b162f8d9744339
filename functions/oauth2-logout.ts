import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, ValidationError } from '../lib/errors';
import { hostedPage } from '../lib/hosted/http';
import { logoutForm, logoutQuery, rpInitiatedLogout } from '../lib/hosted/logout';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** The query of GET (OpenID Connect RP-Initiated Logout 1.0, section 2). */
export const query = logoutQuery;
/** The form of POST: the same parameters, or the confirmation page's (application/x-www-form-urlencoded). */
export const body = logoutForm;

/** GET|POST /oauth2/logout (docs/api.md 11.12): ends the browser session, then back to the app or the signed-out page. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => rpInitiatedLogout(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.12',
  summary: 'RP-initiated logout: ends the browser session, then back to the app or the signed-out page',
  tag: 'oauth2',
  caller: 'none',
  query: true,
  bodyTypes: ['form'],
  html: true,
  answers: [
    { status: 200, description: 'The signed-out page, or the page that asks the user to confirm.', headers: noStore },
    {
      status: 302,
      description: 'To the registered post_logout_redirect_uri with `state` (303 after a form).',
      headers: { Location: undefined, ...noStore },
    },
    { status: 303, description: 'As 302, after a form.', headers: { Location: undefined, ...noStore } },
  ],
  failures: [
    new ValidationError('Invalid logout request', { code: 'INVALID_LOGOUT_REQUEST' }),
    new ValidationError('Invalid id_token_hint', { code: 'INVALID_ID_TOKEN_HINT' }),
    new ValidationError('Invalid client', { code: 'INVALID_CLIENT' }),
    new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
    new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
  ],
};
