import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { connectionPath } from '../lib/federation/admin-input';
import { oneConnection } from '../lib/federation/api-schemas';
import { CONNECTION_NOT_FOUND, readConnection } from '../lib/federation/connections';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = connectionPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneConnection;

/** GET /admin/connections/{id} (docs/api.md 14.1). */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params, response }, async ({ params, identity, deps }) =>
    ok({ connection: await readConnection(deps, identity, params.id) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.1',
  summary: 'One identity provider connection of the tenant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The connection; never the client secret.', body: 'ConnectionEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' })],
};
