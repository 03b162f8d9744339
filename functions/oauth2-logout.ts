import { type Deps, defaultDeps } from '../lib/deps';
import { hostedPage } from '../lib/hosted/http';
import { logoutForm, logoutQuery, rpInitiatedLogout } from '../lib/hosted/logout';
import { httpHandler } from '../lib/http/handler';

/** The query of GET (OpenID Connect RP-Initiated Logout 1.0, section 2). */
export const query = logoutQuery;
/** The form of POST: the same parameters, or the confirmation page's (application/x-www-form-urlencoded). */
export const body = logoutForm;

/** GET|POST /oauth2/logout (docs/api.md 11.12): ends the browser session, then back to the app or the signed-out page. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => rpInitiatedLogout(deps, event, body));
}

export const handler = makeHandler(defaultDeps());
