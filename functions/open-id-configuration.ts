import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import type { OperationDoc } from '../lib/http/operation-doc';
import { document } from '../lib/http/reply';
import { everyOrigin } from '../lib/oauth/cors';
import { openIdConfiguration } from '../lib/oidc/discovery';

/** GET /.well-known/openid-configuration (docs/api.md 11.3, OpenID Connect Discovery 1.0). */
export function makeHandler(deps: Deps) {
  const metadata = openIdConfiguration(deps.config.issuer);
  return httpHandler(deps, { identity: 'none', corsOrigins: everyOrigin, cacheControl: 'public, max-age=3600' }, async () =>
    document(metadata),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '11.3',
  summary: 'The OpenID Provider metadata (OpenID Connect Discovery 1.0)',
  tag: 'discovery',
  caller: 'none',
  answers: [
    {
      status: 200,
      description: 'The metadata, cacheable for an hour.',
      body: 'OpenIdProviderMetadata',
      headers: { 'Cache-Control': 'public, max-age=3600' },
    },
  ],
  failures: [],
};
