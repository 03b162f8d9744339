import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { listMfa } from '../lib/mfa/lifecycle';
import { mfaList as mfaListAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = mfaListAnswer;

/** GET /auth/mfa (docs/api.md 8.6): the caller's methods, destinations masked, and the recovery codes left. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) => ok(await listMfa(deps, accountOf(identity))));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.6',
  summary: 'The caller’s MFA methods (destinations masked) and the recovery codes left',
  tag: 'mfa',
  caller: 'session',
  answers: [{ status: 200, description: 'The methods and the count of unused recovery codes.', body: 'MfaListEnvelope', headers: noStore }],
  failures: [unauthorized],
};
