import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { connectionPath } from '../lib/federation/admin-input';
import { CONNECTION_DELETED, CONNECTION_NOT_FOUND, deleteConnection } from '../lib/federation/connections';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = connectionPath;

/** DELETE /admin/connections/{id} (docs/api.md 14.1): its sessions end at their next request. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteConnection(deps, identity, params.id);
    return ok({ message: CONNECTION_DELETED });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.1',
  summary: 'Delete an identity provider connection; the sessions it opened end (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'Deleted.', body: 'ConnectionDeletedEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' })],
};
