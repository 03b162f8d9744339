import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { CLIENT_NOT_FOUND, PREVIOUS_SECRET_MAX_SECONDS, rotateClientSecret } from '../lib/oauth/client-admin';
import { oneClient as oneClientAnswer } from '../lib/oauth/client-api-schemas';
import { clientPath, clientSecretField } from '../lib/oauth/client-schemas';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import * as z from '../lib/zod';

/** docs/api.md 9.13. */
export const body = z.strictObject({
  client_secret: clientSecretField,
  previous_secret_expires_in: z.optional(z.number().check(z.int(), z.gte(0), z.lte(PREVIOUS_SECRET_MAX_SECONDS))),
});

export const params = clientPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneClientAnswer;

/** POST /oauth2/clients/{clientId}/secrets (docs/api.md 9.13): a new secret; the old one works until it expires. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', body, params }, async ({ body, params, identity, deps }) =>
    ok({ client: await rotateClientSecret(deps, identity, params.clientId, body) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.13',
  summary: 'Give an OAuth client a new secret; the previous one works until it expires (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  params: true,
  answers: [{ status: 200, description: 'The client with its new secret in force.', body: 'ClientEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Client secret too short', { code: 'CLIENT_SECRET_TOO_SHORT' }),
    new ValidationError('Client secret too weak', { code: 'CLIENT_SECRET_TOO_WEAK' }),
    new ValidationError('A public client has no secret', { code: 'PUBLIC_CLIENT_SECRET' }),
    permissionDenied,
    new NotFoundError(CLIENT_NOT_FOUND, { code: 'CLIENT_NOT_FOUND' }),
  ],
};
