import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { grantPath } from '../lib/http/account-paths';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { GRANT_NOT_FOUND, revokeGrant } from '../lib/oauth/user-grants';

export const params = grantPath;

/** DELETE /auth/grants/{grantId} (docs/api.md 8.4): withdraws an app's access; its tokens stop working. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', params }, async ({ params, identity, deps }) => {
    await revokeGrant(deps, identity, params.grantId);
    return ok({ message: 'Grant revoked' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.4',
  summary: 'Revoke an app’s grant: its refresh and access tokens stop working',
  tag: 'auth',
  caller: 'session',
  params: true,
  answers: [{ status: 200, description: 'The grant is revoked.', body: 'GrantRevokedEnvelope', headers: noStore }],
  failures: [unauthorized, new NotFoundError(GRANT_NOT_FOUND, { code: 'GRANT_NOT_FOUND' })],
};
