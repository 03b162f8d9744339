import { epochSeconds } from '../lib/clock';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';

/** POST /auth/logout: revokes the caller's session; its tokens stop working at once. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required' }, async ({ identity, deps }) => {
    const { tenantId, sessionId, userId } = identity;
    await deps.store.sessions.revoke({ tenantId, id: sessionId }, epochSeconds(deps.clock), 'logout');
    deps.log.info('logout', { tenantId, userId, sessionId });
    return ok({ message: 'Logged out' });
  });
}

export const handler = makeHandler(defaultDeps());
