import { type Deps, defaultDeps } from '../lib/deps';
import { consentForm, submitConsent } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { hostedFailures, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** The form (application/x-www-form-urlencoded). */
export const body = consentForm;

/** POST /oauth2/hosted/consent (docs/api.md 11.7): a form of the hosted pages. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitConsent(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.10',
  summary: 'Hosted consent form: allow or deny the client',
  tag: 'oauth2',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  answers: [
    {
      status: 303,
      description: 'Back to the client with the code, or with `error=access_denied`.',
      headers: { Location: undefined, ...noStore },
    },
  ],
  failures: hostedFailures(),
};
