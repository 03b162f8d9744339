import { userPath } from '../lib/admin/schemas';
import { resetMfa } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** POST /admin/users/{userId}/mfa/reset (docs/api.md 9.5): removes every factor and ends the user's sessions. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await resetMfa(deps, identity, params.userId);
    return ok({ message: 'MFA reset' });
  });
}

export const handler = makeHandler(defaultDeps());
