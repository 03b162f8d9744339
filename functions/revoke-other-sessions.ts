import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { signOutOtherSessions } from '../lib/sessions/user-sessions';
import { sessionsRevoked as sessionsRevokedAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = sessionsRevokedAnswer;

/** DELETE /auth/sessions (docs/api.md 8.3): ends every session of the caller but this one; OAuth grants stay. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => {
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
