import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { hostedPage } from '../lib/hosted/http';
import { invitationToken, showInvitation } from '../lib/hosted/invitation-flow';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import { INVALID_INVITATION } from '../lib/invitations/invitations';

export const params = invitationToken;

/** GET /invitations/{token} (docs/api.md 13.1): the hosted acceptance page of an invitation. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, params }, ({ deps, params }) => showInvitation(deps, params.token));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'Hosted invitation page: choose a username and a password to accept an invitation',
  tag: 'auth',
  caller: 'none',
  params: true,
  html: true,
  answers: [{ status: 200, description: 'The acceptance form.', headers: noStore }],
  failures: [new ValidationError(INVALID_INVITATION, { code: 'INVALID_INVITATION' })],
};
