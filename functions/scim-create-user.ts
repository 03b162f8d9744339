import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { scimOperation } from '../lib/scim/operation';
import { scimAnswer, scimRoute } from '../lib/scim/route';
import { createScimUser, parseUserInput } from '../lib/scim/users';

/**
 * POST /scim/v2/Users (docs/api.md 13.3): a new user without a password, of the tenant's SCIM
 * default role; RFC 7644 3.3: the 201 carries `Location`, the user's `meta.location`.
 */
export function makeHandler(deps: Deps) {
  return scimRoute(deps, async ({ caller, body, deps }) => {
    const user = await createScimUser(deps, caller, parseUserInput(body));
    return scimAnswer(user, 201, { Location: user.meta.location });
  });
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimOperation('Create a user (SCIM token)', 'ScimUser', 201);
