import * as z from 'zod';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { authorizeFactorChange, enableMfa } from '../lib/mfa/enrolment';
import { MFA_METHODS } from '../lib/mfa/methods';
import { mfaEnabled as mfaEnabledAnswer } from '../lib/sessions/api-schemas';
import { recentAuthentication } from '../lib/sessions/recent-auth';

export const body = z.object({
  method: z.enum(MFA_METHODS),
  // TOTP: base32 secret; SMS: E.164 number; EMAIL: address. Checked per method by enableMfa.
  secret: z.string().min(1).max(1024),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = mfaEnabledAnswer;

/** POST /auth/mfa/enable (docs/api.md 4.4, recent: 8.1): a pending method; TOTP answers with the otpauth URI. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(
    deps,
    { identity: 'required', response, body, authorize: recentAuthentication(deps, (identity) => authorizeFactorChange(deps, identity)) },
    async ({ body, identity, deps }) => ok(await enableMfa(deps, accountOf(identity), body)),
  );
}

export const handler = makeHandler(defaultDeps());
