import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import type { OperationDoc } from '../lib/http/operation-doc';
import { document } from '../lib/http/reply';
import { everyOrigin } from '../lib/oauth/cors';

/** GET /.well-known/jwks.json: the public keys of every published signing key, from the public keys document only. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', corsOrigins: everyOrigin, cacheControl: 'public, max-age=300' }, async () =>
    document((await deps.publicKeys.load()).jwks),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.11',
  summary: 'The public keys of every published signing key (RFC 7517)',
  tag: 'discovery',
  caller: 'none',
  answers: [
    {
      status: 200,
      description: 'The key set, cacheable for 5 minutes.',
      body: 'Jwks',
      headers: { 'Cache-Control': 'public, max-age=300' },
    },
  ],
  failures: [],
};
