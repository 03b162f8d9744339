import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { fixedGroups } from '../lib/scim/groups';
import { scimOperation } from '../lib/scim/operation';
import { scimRoute } from '../lib/scim/route';

/** POST /scim/v2/Groups, PUT and DELETE /scim/v2/Groups/{groupId} (docs/api.md 13.3): the groups are the roles, fixed. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async () => {
    throw fixedGroups();
  });
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('Refused: groups are the roles and are fixed (SCIM token)', undefined, 403);
