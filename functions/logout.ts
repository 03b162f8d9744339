import { epochSeconds } from '../lib/clock';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** POST /auth/logout: revokes the caller's session; its tokens stop working at once. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required' }, async ({ identity, deps }) => {
    const { tenantId, sessionId, userId } = identity;
    await deps.store.sessions.revoke({ tenantId, id: sessionId }, epochSeconds(deps.clock), 'logout');
    deps.log.info('logout', { tenantId, userId, sessionId });
    return ok({ message: 'Logged out' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.10',
  summary: 'Revoke the caller’s session',
  tag: 'auth',
  caller: 'session',
  answers: [{ status: 200, description: 'The session is revoked.', body: 'LoggedOutEnvelope', headers: noStore }],
  failures: [unauthorized],
};
