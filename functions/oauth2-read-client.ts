import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { readClient } from '../lib/oauth/client-admin';
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
