import { userPath } from '../lib/admin/schemas';
import { deleteUser } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** DELETE /admin/users/{userId} (docs/api.md 9.4): erases the user; the username can be registered again. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteUser(deps, identity, params.userId);
    return ok({ message: 'User deleted' });
  });
}

export const handler = makeHandler(defaultDeps());
