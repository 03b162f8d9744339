import { revokedCount as revokedCountAnswer } from '../lib/admin/api-schemas';
import { userPath } from '../lib/admin/schemas';
import { signOutUser } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = revokedCountAnswer;

/** DELETE /admin/users/{userId}/sessions (docs/api.md 9.6): signs the user out everywhere. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', params }, async ({ params, identity, deps }) =>
    ok(await signOutUser(deps, identity, params.userId)),
  );
}

export const handler = makeHandler(defaultDeps());
