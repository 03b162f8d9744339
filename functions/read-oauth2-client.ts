import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { CLIENT_NOT_FOUND, readClient } from '../lib/oauth/client-admin';
import { oneClient as oneClientAnswer } from '../lib/oauth/client-api-schemas';
import { clientPath } from '../lib/oauth/client-schemas';

export const params = clientPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneClientAnswer;

/** GET /oauth2/clients/{clientId} (docs/api.md 9.10): one client of the ADMIN's tenant, never its secret. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', params }, async ({ params, identity, deps }) =>
    ok({ client: await readClient(deps, identity, params.clientId) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.10',
  summary: 'One OAuth client of the tenant, never its secret (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The client.', body: 'ClientEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' })],
};
