import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { document } from '../lib/http/reply';
import { openIdConfiguration } from '../lib/oidc/discovery';

/** GET /.well-known/openid-configuration (docs/api.md 11.3, OpenID Connect Discovery 1.0). */
export function makeHandler(deps: Deps) {
  const metadata = openIdConfiguration(deps.config.issuer);
  return httpHandler(deps, { identity: 'none', cacheControl: 'public, max-age=3600' }, async () => document(metadata));
}

export const handler = makeHandler(defaultDeps());
