import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { listClients } from '../lib/oauth/client-admin';
import { clientList as clientListAnswer } from '../lib/oauth/client-api-schemas';
import * as z from '../lib/zod';

/** docs/api.md 9.9: no parameters. */
export const query = z.strictObject({});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = clientListAnswer;

/** GET /oauth2/clients (docs/api.md 9.9): the OAuth clients of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', query }, async ({ identity, deps }) =>
    ok({ clients: await listClients(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.9',
  summary: 'The OAuth clients of the tenant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  query: true,
  answers: [{ status: 200, description: 'The clients, oldest first.', body: 'ClientListEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
