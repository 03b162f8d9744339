import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';
import { parseScim, patchRequest } from '../lib/scim/schema';
import { patchScimUser } from '../lib/scim/users';

/** PATCH /scim/v2/Users/{userId} (docs/api.md 13.3): RFC 7644 3.5.2 operations, Entra ID's included. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, pathParameters, body, deps }) =>
    scimAnswer(await patchScimUser(deps, caller, pathParameters.userId ?? '', parseScim(patchRequest, body))),
  );
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('Change a user by PATCH operations (SCIM token)', 'ScimUser');
