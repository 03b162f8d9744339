import { type Deps, defaultDeps } from '../lib/deps';
import { grantPath } from '../lib/http/account-paths';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { revokeGrant } from '../lib/oauth/user-grants';

export const params = grantPath;

/** DELETE /auth/grants/{grantId} (docs/api.md 8.4): withdraws an app's access; its tokens stop working. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', params }, async ({ params, identity, deps }) => {
    await revokeGrant(deps, identity, params.grantId);
    return ok({ message: 'Grant revoked' });
  });
}

export const handler = makeHandler(defaultDeps());
