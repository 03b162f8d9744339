import { oneTenant as oneTenantAnswer } from '../lib/admin/api-schemas';
import { readTenant } from '../lib/admin/tenant';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneTenantAnswer;

/** GET /admin/tenant (docs/api.md 9.14): the ADMIN's own tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN' }, async ({ identity, deps }) =>
    ok({ tenant: await readTenant(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.14',
  summary: 'The tenant: its id, display name, creation time and default shop (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  answers: [{ status: 200, description: 'The tenant.', body: 'TenantEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
