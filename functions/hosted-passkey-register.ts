import { type Deps, defaultDeps } from '../lib/deps';
import { pageHandler } from '../lib/hosted/http';
import { addPasskeyForm, submitPasskey } from '../lib/hosted/passkey-flow';
import { requestSource } from '../lib/http/request-source';

/** The form (application/x-www-form-urlencoded). */
export const body = addPasskeyForm;

/** POST /oauth2/hosted/passkeys (docs/api.md 11.11): a new passkey of the signed-in browser's user. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, (event, log) => submitPasskey({ ...deps, log, source: requestSource(event) }, event));
}

export const handler = makeHandler(defaultDeps());
