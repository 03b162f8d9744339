import { type Deps, defaultDeps } from '../lib/deps';
import { pageHandler } from '../lib/hosted/http';
import { passkeySignInForm, submitPasskeySignIn } from '../lib/hosted/passkey-flow';
import { requestSource } from '../lib/http/request-source';

/** The form (application/x-www-form-urlencoded). */
export const body = passkeySignInForm;

/** POST /oauth2/hosted/passkey (docs/api.md 11.11): the sign-in page's passkey. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, (event, log) => submitPasskeySignIn({ ...deps, log, source: requestSource(event) }, event));
}

export const handler = makeHandler(defaultDeps());
