import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';
import { listQuery, parseScim } from '../lib/scim/schema';
import { listScimUsers } from '../lib/scim/users';

/** GET /scim/v2/Users (docs/api.md 13.3): the tenant's users, by `filter`, a page at a time. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, query, deps }) => scimAnswer(await listScimUsers(deps, caller, parseScim(listQuery, query))));
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('List the tenant’s users, filtered (SCIM token)', 'ScimListResponse');
