import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { passkeyPath } from '../lib/http/account-paths';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, recentRequired, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { removePasskey } from '../lib/passkeys/ceremonies';
import { recentAuthentication } from '../lib/sessions/recent-auth';

export const params = passkeyPath;

/** DELETE /auth/passkeys/{id} (docs/api.md 12.4, recent): removes one of the caller's passkeys. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', params, authorize: recentAuthentication(deps) }, async ({ params, identity, deps }) => {
    await removePasskey(deps, identity, params.id);
    return ok({ message: 'Passkey removed' });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '12.4',
  summary: 'Remove one of the caller’s passkeys (recent authentication)',
  tag: 'auth',
  caller: 'session',
  params: true,
  answers: [{ status: 200, description: 'The passkey is removed.', body: 'PasskeyRemovedEnvelope', headers: noStore }],
  failures: [unauthorized, recentRequired, new NotFoundError('Passkey not found', { code: 'PASSKEY_NOT_FOUND' })],
};
