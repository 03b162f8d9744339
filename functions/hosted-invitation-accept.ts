import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, ValidationError } from '../lib/errors';
import { hostedPage } from '../lib/hosted/http';
import { acceptInvitationForm, invitationToken, submitInvitation } from '../lib/hosted/invitation-flow';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import { INVALID_INVITATION } from '../lib/invitations/invitations';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';

/** The form (application/x-www-form-urlencoded). */
export const body = acceptInvitationForm;

export const params = invitationToken;

/** POST /invitations/{token} (docs/api.md 13.1): creates the invited account and signs the browser in. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return pageHandler(deps, { ...hostedPage, body, params }, ({ deps, event, body, params }) =>
    submitInvitation(deps, event, params.token, body),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'Hosted invitation form: creates the invited account with a password or a passkey and signs the browser in',
  tag: 'auth',
  caller: 'none',
  params: true,
  bodyTypes: ['form'],
  html: true,
  answers: [{ status: 200, description: 'The signed-in page, with the browser session cookie.', headers: noStore }],
  failures: [
    new ValidationError('Invalid form body', { code: 'INVALID_FORM' }),
    new ValidationError(INVALID_INVITATION, { code: 'INVALID_INVITATION' }),
    new ValidationError('Invalid passkey registration', { code: 'INVALID_PASSKEY_REGISTRATION' }),
    new ForbiddenError('Cross-site request refused', { code: 'CROSS_SITE_REQUEST' }),
  ],
};
