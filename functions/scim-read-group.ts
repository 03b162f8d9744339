import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { readScimGroup } from '../lib/scim/groups';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';

/** GET /scim/v2/Groups/{groupId} (docs/api.md 13.3): a role's group with its members. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, pathParameters, query, deps }) =>
    scimAnswer(await readScimGroup(deps, caller, pathParameters.groupId ?? '', query.excludedAttributes)),
  );
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('A role’s group with its members (SCIM token)', 'ScimGroup');
