import { userPage as userPageAnswer } from '../lib/admin/api-schemas';
import { invalidCursor } from '../lib/admin/page-cursor';
import { listUsers } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { ROLES } from '../lib/users/user';
import * as z from '../lib/zod';

/** docs/api.md 9.1. */
export const query = z.strictObject({
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  role: z.optional(z.enum(ROLES)),
  status: z.optional(z.enum(['active', 'disabled'])),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = userPageAnswer;

/** GET /admin/users (docs/api.md 9.1): a page of the ADMIN's tenant's users. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', query }, async ({ query, identity, deps }) =>
    ok(await listUsers(deps, identity, query)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.1',
  summary: 'A page of the tenant’s users, with filters (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  query: true,
  answers: [
    { status: 200, description: 'The users, oldest first, and the cursor of the next page.', body: 'UserPageEnvelope', headers: noStore },
  ],
  failures: [invalidCursor(), permissionDenied],
};
