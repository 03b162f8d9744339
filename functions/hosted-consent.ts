import { type Deps, defaultDeps } from '../lib/deps';
import { consentForm, submitConsent } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { httpHandler } from '../lib/http/handler';

/** The form (application/x-www-form-urlencoded). */
export const body = consentForm;

/** POST /oauth2/hosted/consent (docs/api.md 11.7): a form of the hosted pages. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitConsent(deps, event, body));
}

export const handler = makeHandler(defaultDeps());
