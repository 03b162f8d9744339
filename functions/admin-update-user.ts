import * as z from 'zod';
import { oneUser as oneUserAnswer } from '../lib/admin/api-schemas';
import { userPath } from '../lib/admin/schemas';
import { changeUser } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { shopId } from '../lib/http/schemas';
import { ROLES } from '../lib/users/user';

/** docs/api.md 9.3. */
export const body = z.strictObject({
  role: z.enum(ROLES).optional(),
  shopId: shopId.optional(),
  status: z.enum(['active', 'disabled']).optional(),
});

export const params = userPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneUserAnswer;

/** PATCH /admin/users/{userId} (docs/api.md 9.3): role, shop or status; disabling signs the user out everywhere. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body, params }, async ({ body, params, identity, deps }) =>
    ok({ user: await changeUser(deps, identity, params.userId, body) }),
  );
}

export const handler = makeHandler(defaultDeps());
