import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { patchScimGroup } from '../lib/scim/groups';
import { scimOperation } from '../lib/scim/operation';
import { scimRoute } from '../lib/scim/route';
import { parseScim, patchRequest } from '../lib/scim/schema';

/** PATCH /scim/v2/Groups/{groupId} (docs/api.md 13.3): members added or removed set their role. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, pathParameters, body, deps }) => {
    await patchScimGroup(deps, caller, pathParameters.groupId ?? '', parseScim(patchRequest, body));
    return { statusCode: 204 };
  });
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('Add members to or remove them from a role’s group (SCIM token)', undefined, 204);
