import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { listScimTokens } from '../lib/scim/tokens';

/** GET /admin/scim-tokens (docs/api.md 13.3): the tenant's SCIM tokens, never the tokens themselves. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN' }, async ({ identity, deps }) =>
    ok({ scimTokens: await listScimTokens(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '13.3',
  summary: 'The tenant’s SCIM tokens, oldest first (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  answers: [{ status: 200, description: 'The tokens’ records.', body: 'ScimTokenListEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
