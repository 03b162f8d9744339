import { type Deps, defaultDeps } from '../lib/deps';
import { secondFactorForm, submitSecondFactor } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { httpHandler } from '../lib/http/handler';

/** The form (application/x-www-form-urlencoded). */
export const body = secondFactorForm;

/** POST /oauth2/hosted/second-factor (docs/api.md 11.7): a form of the hosted pages. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitSecondFactor(deps, event, body));
}

export const handler = makeHandler(defaultDeps());
