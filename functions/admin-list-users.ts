import * as z from 'zod';
import { userPage as userPageAnswer } from '../lib/admin/api-schemas';
import { INVALID_CURSOR, listUsers } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { ROLES } from '../lib/users/user';

/** docs/api.md 9.1. */
export const query = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(1024).optional(),
  role: z.enum(ROLES).optional(),
  status: z.enum(['active', 'disabled']).optional(),
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
  failures: [new ValidationError(INVALID_CURSOR, { code: 'INVALID_CURSOR' }), permissionDenied],
};
