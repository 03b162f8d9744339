import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { listScimGroups } from '../lib/scim/groups';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';

/** GET /scim/v2/Groups (docs/api.md 13.3): the roles as groups, by `displayName eq`. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, query, deps }) => scimAnswer(await listScimGroups(deps, caller, query.filter)));
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('The groups: one per role (SCIM token)', 'ScimListResponse');
