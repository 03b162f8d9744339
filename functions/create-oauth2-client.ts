import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId } from '../lib/http/schemas';
import { clientCreated as clientCreatedAnswer } from '../lib/oauth/api-schemas';
import { clientRegistration } from '../lib/oauth/client-schemas';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { authorizeClientRegistration, registerClient } from '../lib/oauth/registration';

/** docs/api.md 5.5; client ids are printable ASCII without spaces (they travel in HTTP Basic and tokens). */
export const body = clientRegistration;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = clientCreatedAnswer;

/** POST /oauth2/clients (docs/api.md 4.8): an ADMIN registers an OAuth client of their own tenant. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    {
      identity: 'required',
      response,
      role: 'ADMIN',
      body,
      authorize: async (admin, raw) => authorizeClientRegistration(admin, existingTenantId.safeParse(raw.tenant_id).data),
    },
    async ({ body, identity, deps }) => {
      const client = await registerClient(deps, identity, body);
      return ok({ message: 'OAuth2 client created successfully', client }, 201);
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.8',
  summary: 'Register an OAuth client of the caller’s tenant (ADMIN only)',
  tag: 'oauth2',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The client as registered, without its secret.', body: 'ClientCreatedEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Invalid post_logout_redirect_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Invalid backchannel_logout_uri', { code: 'INVALID_REDIRECT_URI' }),
    new ValidationError('Unsupported grant type', { code: 'UNSUPPORTED_GRANT_TYPE' }),
    new ValidationError('Invalid scope', { code: 'INVALID_SCOPE' }),
    new ValidationError('Invalid allowed_origins', { code: 'INVALID_ORIGIN' }),
    new ValidationError('Client secret required', { code: 'CLIENT_SECRET_REQUIRED' }),
    new ValidationError('A public client has no secret', { code: 'PUBLIC_CLIENT_SECRET' }),
    new ValidationError('Client secret too short', { code: 'CLIENT_SECRET_TOO_SHORT' }),
    permissionDenied,
    new ConflictError('OAuth2 client already exists', { code: 'CLIENT_EXISTS' }),
  ],
};
