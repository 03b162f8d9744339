import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, ForbiddenError, ValidationError } from '../lib/errors';
import { hostedPage } from '../lib/hosted/http';
import { addPasskeyForm, submitPasskey } from '../lib/hosted/passkey-flow';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

/** The form (application/x-www-form-urlencoded). */
export const body = addPasskeyForm;

/** POST /oauth2/hosted/passkeys (docs/api.md 11.11): a new passkey of the signed-in browser's user. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitPasskey(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.11',
  summary: 'Hosted passkeys form: a new passkey of the signed-in browser’s user (back to the page)',
  tag: 'oauth2',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  answers: [{ status: 303, description: 'Back to the passkeys page.', headers: { Location: undefined, ...noStore } }],
  failures: [
    new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
    new ValidationError('Invalid passkey registration', { code: 'INVALID_PASSKEY_REGISTRATION' }),
    unauthorized,
    new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
    new ForbiddenError('Recent authentication required', { code: 'RECENT_AUTH_REQUIRED' }),
    new ConflictError('Passkey already registered', { code: 'PASSKEY_ALREADY_REGISTERED' }),
    new ConflictError('Too many passkeys', { code: 'TOO_MANY_PASSKEYS' }),
  ],
};
