import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { deleteClient } from '../lib/oauth/client-admin';
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
