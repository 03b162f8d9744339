import { oneUser as oneUserAnswer } from '../lib/admin/api-schemas';
import { userPath } from '../lib/admin/schemas';
import { readUser } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneUserAnswer;

/** GET /admin/users/{userId} (docs/api.md 9.2): one user of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', params }, async ({ params, identity, deps }) =>
    ok({ user: await readUser(deps, identity, params.userId) }),
  );
}

export const handler = makeHandler(defaultDeps());
