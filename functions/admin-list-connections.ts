import { type Deps, defaultDeps } from '../lib/deps';
import { connectionList } from '../lib/federation/api-schemas';
import { listConnections } from '../lib/federation/connections';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = connectionList;

/** GET /admin/connections (docs/api.md 14.1): the tenant's connections, oldest first. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', response }, async ({ identity, deps }) =>
    ok({ connections: await listConnections(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.1',
  summary: 'The tenant’s identity provider connections, oldest first (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  answers: [{ status: 200, description: 'The connections; never a client secret.', body: 'ConnectionListEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
