import { type Deps, defaultDeps } from '../lib/deps';
import { TooManyRequestsError, UnauthorizedError } from '../lib/errors';
import { hostedPage } from '../lib/hosted/http';
import { passkeySignInForm, submitPasskeySignIn } from '../lib/hosted/passkey-flow';
import { hostedFailures, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** The form (application/x-www-form-urlencoded). */
export const body = passkeySignInForm;

/** POST /oauth2/hosted/passkey (docs/api.md 11.11): the sign-in page's passkey. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitPasskeySignIn(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.11',
  summary: 'Hosted sign-in with a passkey: the assertion of the sign-in page (then consent or the code)',
  tag: 'oauth2',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  answers: [
    { status: 200, description: 'The consent page.', headers: noStore },
    { status: 303, description: 'Back to the client with the code.', headers: { Location: undefined, ...noStore } },
  ],
  failures: hostedFailures(
    new UnauthorizedError('Invalid passkey', {}, { code: 'INVALID_PASSKEY' }),
    new TooManyRequestsError(60),
    new TooManyRequestsError(60, 'Too many requests', { code: 'RATE_LIMITED' }),
  ),
};
