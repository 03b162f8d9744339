import { deleteUser } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { scimOperation } from '../lib/scim/operation';
import { scimRoute } from '../lib/scim/route';

/** DELETE /scim/v2/Users/{userId} (docs/api.md 13.3): erases the user as DELETE /admin/users/{userId} does (9.4). */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, pathParameters, deps }) => {
    await deleteUser(deps, caller, pathParameters.userId ?? '');
    return { statusCode: 204 };
  });
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('Erase a user (SCIM token)', undefined, 204);
