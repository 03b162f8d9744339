import { type Deps, defaultDeps } from '../lib/deps';
import { hostedPage } from '../lib/hosted/http';
import { addPasskeyForm, submitPasskey } from '../lib/hosted/passkey-flow';
import { httpHandler } from '../lib/http/handler';

/** The form (application/x-www-form-urlencoded). */
export const body = addPasskeyForm;

/** POST /oauth2/hosted/passkeys (docs/api.md 11.11): a new passkey of the signed-in browser's user. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitPasskey(deps, event, body));
}

export const handler = makeHandler(defaultDeps());
