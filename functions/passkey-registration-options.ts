import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { authorizeFactorChange } from '../lib/mfa/step-up';
import { passkeyRegistrationOptions } from '../lib/passkeys/ceremonies';
import { recentAuthentication } from '../lib/sessions/recent-auth';

export const body = z.strictObject({});

/**
 * POST /auth/passkeys/registration/options (docs/api.md 12.1, recent): the creation options
 * of a new passkey; once the user has MFA, only for a session that passed it.
 */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', body, authorize: recentAuthentication(deps, (identity) => authorizeFactorChange(deps, identity)) },
    async ({ identity, deps }) => ok({ options: await passkeyRegistrationOptions(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());
