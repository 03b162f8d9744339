import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { passkeysOf } from '../lib/passkeys/listing';
import { passkeys as passkeysAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = passkeysAnswer;

/** GET /auth/passkeys (docs/api.md 12.3): the caller's passkeys, newest first. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response }, async ({ identity, deps }) =>
    ok({ passkeys: await passkeysOf(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '12.3',
  summary: 'The caller’s passkeys',
  tag: 'auth',
  caller: 'session',
  answers: [{ status: 200, description: 'The passkeys, newest first.', body: 'PasskeyListEnvelope', headers: noStore }],
  failures: [unauthorized],
};
