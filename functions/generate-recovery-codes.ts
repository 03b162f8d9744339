import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, recentRequired, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { createRecoveryCodes } from '../lib/mfa/lifecycle';
import { authorizeFactorChange } from '../lib/mfa/step-up';
import { recentAuthentication } from '../lib/sessions/recent-auth';
import { recoveryCodes as recoveryCodesAnswer } from '../lib/users/account-schemas';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = recoveryCodesAnswer;

/** POST /auth/mfa/recovery-codes (docs/api.md 8.6, recent): 10 new recovery codes, shown this once, replacing earlier ones. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(
    deps,
    { identity: 'required', response, authorize: recentAuthentication(deps, (identity) => authorizeFactorChange(deps, identity)) },
    async ({ identity, deps }) => ok(await createRecoveryCodes(deps, accountOf(identity))),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.6',
  summary: 'Generate 10 recovery codes, shown this once, in place of any earlier ones',
  tag: 'mfa',
  caller: 'session',
  answers: [{ status: 200, description: 'The new recovery codes.', body: 'RecoveryCodesEnvelope', headers: noStore }],
  failures: [
    new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
    unauthorized,
    recentRequired,
    new ForbiddenError(undefined, { code: 'MFA_STEP_UP_REQUIRED' }),
  ],
};
