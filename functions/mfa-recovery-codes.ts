import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { authorizeFactorChange } from '../lib/mfa/enrolment';
import { createRecoveryCodes } from '../lib/mfa/lifecycle';
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
