import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { listGrants } from '../lib/oauth/user-grants';
import { grantList as grantListAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = grantListAnswer;

/** GET /auth/grants (docs/api.md 8.4): the apps the caller authorized (live OAuth grants). */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => ok(await listGrants(deps, identity)));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.4',
  summary: 'The apps the caller authorized (live OAuth grants)',
  tag: 'auth',
  caller: 'session',
  answers: [{ status: 200, description: 'The live grants, newest first.', body: 'GrantListEnvelope', headers: noStore }],
  failures: [unauthorized],
};
