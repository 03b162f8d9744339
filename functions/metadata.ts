import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { document } from '../lib/http/reply';
import { authorizationServerMetadata } from '../lib/oauth/metadata';

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export function makeHandler(deps: Deps) {
  const metadata = authorizationServerMetadata(deps.config.issuer);
  return httpHandler(deps, { identity: 'none', cacheControl: 'public, max-age=3600' }, async () => document(metadata));
}

export const handler = makeHandler(defaultDeps());
