import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import type { OperationDoc } from '../lib/http/operation-doc';
import { document } from '../lib/http/reply';
import { everyOrigin } from '../lib/oauth/cors';
import { authorizationServerMetadata } from '../lib/oauth/metadata';

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export function makeHandler(deps: Deps) {
  const metadata = authorizationServerMetadata(deps.config.issuer);
  return httpHandler(deps, { identity: 'none', corsOrigins: everyOrigin, cacheControl: 'public, max-age=3600' }, async () =>
    document(metadata),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.12',
  summary: 'The authorization server metadata (RFC 8414)',
  tag: 'discovery',
  caller: 'none',
  answers: [
    {
      status: 200,
      description: 'The metadata, cacheable for an hour.',
      body: 'AuthorizationServerMetadata',
      headers: { 'Cache-Control': 'public, max-age=3600' },
    },
  ],
  failures: [],
};
