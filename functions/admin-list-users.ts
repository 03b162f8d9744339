import * as z from 'zod';
import { userPage as userPageAnswer } from '../lib/admin/api-schemas';
import { listUsers } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
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
