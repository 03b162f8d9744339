import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';

/** GET /auth/me (docs/api.md 4.9): the caller's request context. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required' }, async ({ identity }) => ok({ user: identity }));
}

export const handler = makeHandler(defaultDeps());
