import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { signOutOtherSessions } from '../lib/sessions/user-sessions';

/** DELETE /auth/sessions (docs/api.md 8.3): ends every session of the caller but this one; OAuth grants stay. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required' }, async ({ identity, deps }) => {
    const { revoked } = await signOutOtherSessions(deps, identity);
    return ok({ message: 'Sessions revoked', revoked });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.3',
  summary: 'Revoke every session of the caller but the current one (OAuth grants stay)',
  tag: 'auth',
  caller: 'session',
  answers: [
    {
      status: 200,
      description: 'The other sessions are revoked; how many were live.',
      body: 'SessionsRevokedEnvelope',
      headers: noStore,
    },
  ],
  failures: [unauthorized],
};
