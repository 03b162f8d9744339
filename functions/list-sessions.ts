import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { listSessions } from '../lib/sessions/user-sessions';
import { sessionList as sessionListAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = sessionListAnswer;

/** GET /auth/sessions (docs/api.md 8.3): the caller's live sessions, the current one flagged. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => ok(await listSessions(deps, identity)));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.3',
  summary: 'The caller’s live sessions, the current one flagged',
  tag: 'auth',
  caller: 'session',
  answers: [{ status: 200, description: 'The live sessions, newest first.', body: 'SessionListEnvelope', headers: noStore }],
  failures: [unauthorized],
};
