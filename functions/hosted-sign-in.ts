import { type Deps, defaultDeps } from '../lib/deps';
import { TooManyRequestsError, UnauthorizedError } from '../lib/errors';
import { signInForm, submitSignIn } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { hostedFailures, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** The form (application/x-www-form-urlencoded). */
export const body = signInForm;

/** POST /oauth2/hosted/sign-in (docs/api.md 11.7): a form of the hosted pages. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitSignIn(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.7',
  summary: 'Hosted sign-in form: the password (then the second-factor or consent page, or the code)',
  tag: 'oauth2',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  answers: [
    { status: 200, description: 'The second-factor or consent page.', headers: noStore },
    { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
  ],
  failures: hostedFailures(new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' }), new TooManyRequestsError(60)),
};
