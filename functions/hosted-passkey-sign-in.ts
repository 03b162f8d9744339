import { type Deps, defaultDeps } from '../lib/deps';
import { hostedPage } from '../lib/hosted/http';
import { passkeySignInForm, submitPasskeySignIn } from '../lib/hosted/passkey-flow';
import { httpHandler } from '../lib/http/handler';

/** The form (application/x-www-form-urlencoded). */
export const body = passkeySignInForm;

/** POST /oauth2/hosted/passkey (docs/api.md 11.11): the sign-in page's passkey. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitPasskeySignIn(deps, event, body));
}

export const handler = makeHandler(defaultDeps());
