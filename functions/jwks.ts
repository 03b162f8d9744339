import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { document } from '../lib/http/reply';

/** GET /.well-known/jwks.json: the public keys of every published signing key, from the public keys document only. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', cacheControl: 'public, max-age=300' }, async () =>
    document((await deps.publicKeys.load()).jwks),
  );
}

export const handler = makeHandler(defaultDeps());
