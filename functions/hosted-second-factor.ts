import { type Deps, defaultDeps } from '../lib/deps';
import { TooManyRequestsError, UnauthorizedError } from '../lib/errors';
import { secondFactorForm, submitSecondFactor } from '../lib/hosted/flow';
import { hostedPage } from '../lib/hosted/http';
import { hostedFailures, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** The form (application/x-www-form-urlencoded). */
export const body = secondFactorForm;

/** POST /oauth2/hosted/second-factor (docs/api.md 11.7): a form of the hosted pages. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitSecondFactor(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.7',
  summary: 'Hosted second-factor form: a one-time or recovery code (then consent or the code)',
  tag: 'oauth2',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  answers: [
    { status: 200, description: 'The consent page, or the second-factor page again after a new code was sent.', headers: noStore },
    { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
  ],
  failures: hostedFailures(new UnauthorizedError('Invalid MFA code', {}, { code: 'INVALID_MFA_CODE' }), new TooManyRequestsError(60)),
};
