import { invalidCursor } from '../lib/admin/page-cursor';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { invitationList } from '../lib/invitations/api-schemas';
import { inviterOf, listInvitations } from '../lib/invitations/invitations';
import * as z from '../lib/zod';

/** docs/api.md 13.1. */
export const query = z.strictObject({
  status: z.optional(z.enum(['pending', 'accepted', 'revoked', 'expired'])),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = invitationList;

/** GET /admin/invitations (docs/api.md 13.1): a page of the tenant's invitations, newest first. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'optional', response, query, authorize: async (caller) => void inviterOf(caller) },
    async ({ query, identity, deps }) => ok(await listInvitations(deps, inviterOf(identity), query)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.1',
  summary: 'A page of the tenant’s invitations, newest first, optionally of one status (ADMIN or MANAGER)',
  tag: 'admin',
  caller: 'admin',
  query: true,
  answers: [
    {
      status: 200,
      description: 'The invitations, newest first, and the cursor of the next page.',
      body: 'InvitationListEnvelope',
      headers: noStore,
    },
  ],
  failures: [invalidCursor(), permissionDenied],
};
