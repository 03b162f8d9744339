import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { updateClient } from '../lib/oauth/client-admin';
import { oneClient as oneClientAnswer } from '../lib/oauth/client-api-schemas';
import { clientPath, grantTypesField, redirectUriField, scopeField } from '../lib/oauth/client-schemas';
import { SIGNING_ALGORITHMS } from '../lib/tokens/signing-keys';

/** docs/api.md 9.11: what createOAuth2Client takes, each optional, and what only an ADMIN sets. */
export const body = z.strictObject({
  redirect_uri: redirectUriField.optional(),
  grant_types: grantTypesField.optional(),
  scope: scopeField.optional(),
  client_name: z.string().min(1).max(200).optional(),
  first_party: z.boolean().optional(),
  post_logout_redirect_uris: z.string().max(8192).optional(),
  /** docs/api.md 11.4: how the client's ID tokens are signed from now on. */
  id_token_signed_response_alg: z.enum(SIGNING_ALGORITHMS).optional(),
});

export const params = clientPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneClientAnswer;

/** PATCH /oauth2/clients/{clientId} (docs/api.md 9.11): changes a client of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body, params }, async ({ body, params, identity, deps }) =>
    ok({ client: await updateClient(deps, identity, params.clientId, body) }),
  );
}

export const handler = makeHandler(defaultDeps());
