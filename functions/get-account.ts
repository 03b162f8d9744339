import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/users/account';
import { account as accountAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = accountAnswer;

/** GET /auth/account (docs/api.md 8.5): the caller's own account, with its MFA methods masked. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => ok(await accountOf(deps, identity)));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.5',
  summary: 'The caller’s own account, with its MFA methods (destinations masked)',
  tag: 'auth',
  caller: 'session',
  answers: [{ status: 200, description: 'The account.', body: 'AccountEnvelope', headers: noStore }],
  failures: [unauthorized],
};
