import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, NotFoundError, TooManyRequestsError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { invitationPath, oneInvitation } from '../lib/invitations/api-schemas';
import {
  INVITATION_NOT_FOUND,
  INVITATION_NOT_PENDING,
  INVITATION_PENDING,
  inviterOf,
  resendInvitation,
} from '../lib/invitations/invitations';

export const params = invitationPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneInvitation;

/** POST /admin/invitations/{id}/resend (docs/api.md 13.1): a new link by email, valid 7 days; the old link is dead. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'optional', response, params, authorize: async (caller) => void inviterOf(caller) },
    async ({ params, identity, deps }) => ok({ invitation: await resendInvitation(deps, inviterOf(identity), params.id) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'Send a pending invitation again with a new link; the old link stops working (ADMIN; MANAGER for roles below MANAGER)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The invitation with its new expiry.', body: 'InvitationEnvelope', headers: noStore }],
  failures: [
    permissionDenied,
    new NotFoundError(INVITATION_NOT_FOUND, { code: 'INVITATION_NOT_FOUND' }),
    new ConflictError(INVITATION_NOT_PENDING, { code: 'INVITATION_NOT_PENDING' }),
    new ConflictError(INVITATION_PENDING, { code: 'INVITATION_PENDING' }),
    new TooManyRequestsError(3600, 'Too many requests', { code: 'RATE_LIMITED' }),
  ],
};
