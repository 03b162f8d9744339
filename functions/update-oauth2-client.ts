import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { CLIENT_NOT_FOUND, updateClient } from '../lib/oauth/client-admin';
import { oneClient as oneClientAnswer } from '../lib/oauth/client-api-schemas';
import { clientPath, clientUpdate } from '../lib/oauth/client-schemas';

/** docs/api.md 9.11: what createOAuth2Client takes, each optional, and what only an ADMIN sets. */
export const body = clientUpdate;

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

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.11',
  summary:
    'Change an OAuth client’s redirect URIs, grant types, scope, name, first-party mark, post-logout URIs, allowed origins, DPoP binding or back-channel logout URI (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  params: true,
  answers: [{ status: 200, description: 'The client as changed.', body: 'ClientEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' }),
    new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
    new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Invalid allowed_origins', { code: 'INVALID_ORIGIN' }),
    new ValidationError('Invalid backchannel_logout_uri', { code: 'INVALID_REDIRECT_URI' }),
    permissionDenied,
    new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' }),
  ],
};
