import { type Deps, defaultDeps } from '../lib/deps';
import { passkeyPath } from '../lib/http/account-paths';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { removePasskey } from '../lib/passkeys/ceremonies';
import { recentAuthentication } from '../lib/sessions/recent-auth';

export const params = passkeyPath;

/** DELETE /auth/passkeys/{id} (docs/api.md 12.4, recent): removes one of the caller's passkeys. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', params, authorize: recentAuthentication(deps) }, async ({ params, identity, deps }) => {
    await removePasskey(deps, identity, params.id);
    return ok({ message: 'Passkey removed' });
  });
}

export const handler = makeHandler(defaultDeps());
