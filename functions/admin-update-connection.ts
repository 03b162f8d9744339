import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { connectionPatch, connectionPath } from '../lib/federation/admin-input';
import { oneConnection } from '../lib/federation/api-schemas';
import { updateConnection } from '../lib/federation/connection-changes';
import { CONNECTION_NOT_FOUND } from '../lib/federation/connections';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { CONNECTION_MAX_BODY_BYTES } from './admin-create-connection';

/** docs/api.md 14.1: any field of the connection's type but `type`. */
export const body = connectionPatch;

export const params = connectionPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneConnection;

/** PATCH /admin/connections/{id} (docs/api.md 14.1): disabling it ends its sessions at their next request. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', role: 'ADMIN', body, params, response, maxBodyBytes: CONNECTION_MAX_BODY_BYTES },
    async ({ body, params, identity, deps }) => ok({ connection: await updateConnection(deps, identity, params.id, body) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.1',
  summary: 'Change an identity provider connection: its IdP, domains, roles, secret, or enable/disable it (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  params: true,
  answers: [
    { status: 200, description: 'The connection as changed; never the client secret.', body: 'ConnectionEnvelope', headers: noStore },
  ],
  failures: [permissionDenied, new NotFoundError(CONNECTION_NOT_FOUND, { code: 'CONNECTION_NOT_FOUND' })],
};
