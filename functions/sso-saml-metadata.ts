import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { CONNECTION_NOT_FOUND } from '../lib/federation/connections';
import { samlSpMetadata } from '../lib/federation/saml-metadata';
import { httpHandler } from '../lib/http/handler';
import type { OperationDoc } from '../lib/http/operation-doc';
import * as z from '../lib/zod';

export const params = z.strictObject({ connectionId: z.string().check(z.minLength(1), z.maxLength(128)) });

/** 404 for an unknown connection, or one that is not SAML (docs/api.md 14.5). */
const connectionNotFound = () => new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' });

/** GET /sso/saml/{connectionId}/metadata (docs/api.md 14.5): the SP metadata a merchant's IdP is configured with. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'none', params }, async ({ deps, params }) => {
    const connection = await deps.store.connections.find(params.connectionId);
    if (connection?.type !== 'saml') throw connectionNotFound();
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/samlmetadata+xml; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
      html: samlSpMetadata(deps.config.issuer, connection),
    };
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.5',
  summary: 'SAML service-provider metadata of a connection (entity id, ACS URL, NameID formats)',
  tag: 'discovery',
  caller: 'none',
  params: true,
  answers: [
    { status: 200, description: 'The SP metadata, `application/samlmetadata+xml`.', headers: { 'Cache-Control': 'public, max-age=300' } },
  ],
  failures: [connectionNotFound()],
};
