import { UNKNOWN_SHOP } from '../lib/admin/shops';
import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, TooManyRequestsError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { emailAddress, shopId, username } from '../lib/http/schemas';
import { oneInvitation } from '../lib/invitations/api-schemas';
import { createInvitation, INVITATION_PENDING, inviterOf, USER_EXISTS } from '../lib/invitations/invitations';
import { ROLES } from '../lib/users/user';
import * as z from '../lib/zod';

/** docs/api.md 13.1. */
export const body = z.strictObject({
  email: emailAddress,
  role: z.enum(ROLES),
  shopId: z.optional(shopId),
  username: z.optional(username),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneInvitation;

/** POST /admin/invitations (docs/api.md 13.1): invites an address into the caller's tenant and emails the link. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'optional', response, body, authorize: async (caller, raw) => void inviterOf(caller, raw.role) },
    async ({ body, identity, deps }) => ok({ invitation: await createInvitation(deps, inviterOf(identity, body.role), body) }, 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'Invite someone by email into the tenant with a role and shop (ADMIN; MANAGER for roles below MANAGER)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The pending invitation; the link went by email.', body: 'InvitationEnvelope', headers: noStore }],
  failures: [
    new ValidationError(UNKNOWN_SHOP, { code: 'UNKNOWN_SHOP' }),
    permissionDenied,
    new ConflictError(USER_EXISTS, { code: 'USER_EXISTS' }),
    new ConflictError(INVITATION_PENDING, { code: 'INVITATION_PENDING' }),
    new TooManyRequestsError(3600, 'Too many requests', { code: 'RATE_LIMITED' }),
  ],
};
