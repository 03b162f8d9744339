import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { signOutOtherSessions } from '../lib/sessions/user-sessions';
import { sessionsRevoked as sessionsRevokedAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = sessionsRevokedAnswer;

/** DELETE /auth/sessions (docs/api.md 8.3): ends every session of the caller but this one; OAuth grants stay. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => {
    const { revoked } = await signOutOtherSessions(deps, identity);
    return ok({ message: 'Sessions revoked', revoked });
  });
}

export const handler = makeHandler(defaultDeps());
