import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';
import { parseUserInput, replaceScimUser } from '../lib/scim/users';

/** PUT /scim/v2/Users/{userId} (docs/api.md 13.3): replaces the user's attributes; `active: false` disables them. */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, pathParameters, body, deps }) =>
    scimAnswer(await replaceScimUser(deps, caller, pathParameters.userId ?? '', parseUserInput(body))),
  );
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('Replace a user (SCIM token)', 'ScimUser');
