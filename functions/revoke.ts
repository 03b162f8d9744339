import { type Deps, defaultDeps } from '../lib/deps';
import { clientTokenBody, clientTokenRoute } from '../lib/oauth/client-token-route';
import { revokeToken } from '../lib/oauth/revocation';

export const body = clientTokenBody;

/** POST /oauth2/revoke (RFC 7009): form-encoded, client-authenticated; 200 whether or not the token was valid. */
export function makeHandler(deps: Deps) {
  return clientTokenRoute(deps, async (deps, client, token) => {
    await revokeToken(deps, client, token);
    return { statusCode: 200 };
  });
}

export const handler = makeHandler(defaultDeps());
