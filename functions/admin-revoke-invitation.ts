import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, NotFoundError } from '../lib/errors';
import { message } from '../lib/http/envelope-schemas';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { invitationPath } from '../lib/invitations/api-schemas';
import { INVITATION_NOT_FOUND, INVITATION_NOT_PENDING, inviterOf, revokeInvitation } from '../lib/invitations/invitations';

export const params = invitationPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = message('Invitation revoked');

/** DELETE /admin/invitations/{id} (docs/api.md 13.1): the link stops working. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'optional', response, params, authorize: async (caller) => void inviterOf(caller) },
    async ({ params, identity, deps }) => {
      await revokeInvitation(deps, inviterOf(identity), params.id);
      return ok({ message: 'Invitation revoked' as const });
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'Revoke a pending invitation: its link stops working (ADMIN; MANAGER for roles below MANAGER)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'Revoked (also when it was already).', body: 'InvitationRevokedEnvelope', headers: noStore }],
  failures: [
    permissionDenied,
    new NotFoundError(INVITATION_NOT_FOUND, { code: 'INVITATION_NOT_FOUND' }),
    new ConflictError(INVITATION_NOT_PENDING, { code: 'INVITATION_NOT_PENDING' }),
  ],
};
