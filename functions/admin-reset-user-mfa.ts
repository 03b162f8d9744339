import { userPath } from '../lib/admin/schemas';
import { resetMfa, USER_NOT_FOUND } from '../lib/admin/users';
import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = userPath;

/** POST /admin/users/{userId}/mfa/reset (docs/api.md 9.5): removes every factor and ends the user's sessions. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await resetMfa(deps, identity, params.userId);
    return ok({ message: 'MFA reset' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '9.5',
  summary: 'Remove every MFA factor of a user and end their sessions (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The factors are removed.', body: 'MfaResetEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(USER_NOT_FOUND)],
};
