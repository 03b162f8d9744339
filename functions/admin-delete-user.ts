import { userPath } from '../lib/admin/schemas';
import { deleteUser, LAST_ADMIN, USER_NOT_FOUND } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** DELETE /admin/users/{userId} (docs/api.md 9.4): erases the user; the username can be registered again. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteUser(deps, identity, params.userId);
    return ok({ message: 'User deleted' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.4',
  summary: 'Erase a user, their MFA, sessions and grants (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [
    {
      status: 200,
      description: 'The user is erased; the username can be registered again.',
      body: 'UserDeletedEnvelope',
      headers: noStore,
    },
  ],
  failures: [permissionDenied, new NotFoundError(USER_NOT_FOUND), new ConflictError(LAST_ADMIN, { code: 'LAST_ADMIN' })],
};
