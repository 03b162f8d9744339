import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { listGrants } from '../lib/oauth/user-grants';
import { grantList as grantListAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = grantListAnswer;

/** GET /auth/grants (docs/api.md 8.4): the apps the caller authorized (live OAuth grants). */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => ok(await listGrants(deps, identity)));
}

export const handler = makeHandler(defaultDeps());
