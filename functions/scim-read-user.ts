import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';
import { readScimUser } from '../lib/scim/users';

/** GET /scim/v2/Users/{userId} (docs/api.md 13.3). */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, pathParameters, deps }) =>
    scimAnswer(await readScimUser(deps, caller, pathParameters.userId ?? '')),
  );
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('A user of the tenant (SCIM token)', 'ScimUser');
