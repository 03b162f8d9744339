import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { createScimToken, newScimToken } from '../lib/scim/tokens';

/** docs/api.md 13.3: a name the tenant's ADMINs recognise the token by (its IdP). */
export const body = newScimToken;

/** POST /admin/scim-tokens (docs/api.md 13.3): a SCIM token of the ADMIN's tenant, shown once. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', body }, async ({ body, identity, deps }) =>
    ok(await createScimToken(deps, identity, body.name), 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.3',
  summary: 'Create a SCIM token for the tenant’s identity provider, shown once (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The token’s record and the token itself.', body: 'ScimTokenCreatedEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
