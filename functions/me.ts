import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { me as meAnswer } from '../lib/sessions/api-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = meAnswer;

/** GET /auth/me (docs/api.md 4.9): the caller's request context. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity }) => ok({ user: identity }));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.9',
  summary: 'The caller’s request context',
  tag: 'auth',
  caller: 'session',
  answers: [{ status: 200, description: 'The request context.', body: 'MeEnvelope', headers: noStore }],
  failures: [unauthorized],
};
