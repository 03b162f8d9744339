import { type Deps, defaultDeps } from '../lib/deps';
import { sessionPath } from '../lib/http/account-paths';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { revokeSession } from '../lib/sessions/user-sessions';

export const params = sessionPath;

/** DELETE /auth/sessions/{sessionId} (docs/api.md 8.3): ends one of the caller's sessions. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', params }, async ({ params, identity, deps }) => {
    await revokeSession(deps, identity, params.sessionId);
    return ok({ message: 'Session revoked' });
  });
}

export const handler = makeHandler(defaultDeps());
