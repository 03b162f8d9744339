import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { document } from '../lib/http/reply';

/** GET /.well-known/jwks.json: the public keys of every published signing key. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', cacheControl: 'public, max-age=300' }, async () => document((await deps.keys.load()).jwks));
}

export const handler = makeHandler(defaultDeps());
