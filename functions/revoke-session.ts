import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { sessionPath } from '../lib/http/account-paths';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { revokeSession, SESSION_NOT_FOUND } from '../lib/sessions/user-sessions';

export const params = sessionPath;

/** DELETE /auth/sessions/{sessionId} (docs/api.md 8.3): ends one of the caller's sessions. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', params }, async ({ params, identity, deps }) => {
    await revokeSession(deps, identity, params.sessionId);
    return ok({ message: 'Session revoked' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.3',
  summary: 'Revoke one of the caller’s sessions',
  tag: 'auth',
  caller: 'session',
  params: true,
  answers: [{ status: 200, description: 'The session is revoked.', body: 'SessionRevokedEnvelope', headers: noStore }],
  failures: [unauthorized, new NotFoundError(SESSION_NOT_FOUND, { code: 'SESSION_NOT_FOUND' })],
};
