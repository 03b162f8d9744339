import { type Deps, defaultDeps } from '../lib/deps';
import { signInForm, submitSignIn } from '../lib/hosted/flow';
import { pageHandler } from '../lib/hosted/http';
import { requestSource } from '../lib/http/request-source';

/** The form (application/x-www-form-urlencoded). */
export const body = signInForm;

/** POST /oauth2/hosted/sign-in (docs/api.md 11.7): a form of the hosted pages. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, (event, log) => submitSignIn({ ...deps, log, source: requestSource(event) }, event));
}

export const handler = makeHandler(defaultDeps());
