import { type Deps, defaultDeps } from '../lib/deps';
import { document } from '../lib/http/reply';
import { clientTokenBody, clientTokenRoute } from '../lib/oauth/client-token-route';
import { NO_CACHE } from '../lib/oauth/errors';
import { introspect } from '../lib/oauth/introspection';

export const body = clientTokenBody;

/** POST /oauth2/introspect (RFC 7662): form-encoded, client-authenticated; a client sees only its own tokens. */
export function makeHandler(deps: Deps) {
  return clientTokenRoute(deps, async (deps, client, token) => document(await introspect(deps, client, token), 200, NO_CACHE));
}

export const handler = makeHandler(defaultDeps());
