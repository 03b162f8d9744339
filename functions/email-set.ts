import * as z from 'zod';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { emailAddress } from '../lib/http/schemas';
import { recentAuthentication } from '../lib/sessions/recent-auth';
import { emailSet as emailSetAnswer } from '../lib/users/account-schemas';
import { changeEmail } from '../lib/users/email';

export const body = z.object({ email: emailAddress });

/** The `data` of the success envelope (docs/api.md 5). */
export const response = emailSetAnswer;

/** PUT /auth/email (docs/api.md 8.8), recent: the address stored unverified and a code sent to it. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(
    deps,
    { identity: 'required', response, body, authorize: recentAuthentication(deps) },
    async ({ body, identity, deps }) => ok(await changeEmail(deps, identity, body.email)),
  );
}

export const handler = makeHandler(defaultDeps());
