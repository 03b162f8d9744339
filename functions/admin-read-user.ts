import { oneUser as oneUserAnswer } from '../lib/admin/api-schemas';
import { userPath } from '../lib/admin/schemas';
import { readUser, USER_NOT_FOUND } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneUserAnswer;

/** GET /admin/users/{userId} (docs/api.md 9.2): one user of the ADMIN's tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, role: 'ADMIN', params }, async ({ params, identity, deps }) =>
    ok({ user: await readUser(deps, identity, params.userId) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.2',
  summary: 'One user of the tenant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The user.', body: 'UserEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(USER_NOT_FOUND)],
};
