import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { CLIENT_NOT_FOUND, deleteClient } from '../lib/oauth/client-admin';
import { clientPath } from '../lib/oauth/client-schemas';

export const params = clientPath;

/** DELETE /oauth2/clients/{clientId} (docs/api.md 9.12): every grant and token of the client stops working. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteClient(deps, identity, params.clientId);
    return ok({ message: 'OAuth2 client deleted' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.12',
  summary: 'Delete an OAuth client: every grant and token of it stops working (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The client is deleted.', body: 'ClientDeletedEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' })],
};
