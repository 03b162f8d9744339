import * as z from 'zod';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { accountOf } from '../lib/mfa/account';
import { verifyMfa } from '../lib/mfa/enrolment';
import { MFA_METHODS } from '../lib/mfa/methods';

export const body = z.object({
  method: z.enum(MFA_METHODS),
  code: z.string().min(1).max(16),
});

/** POST /auth/mfa/verify (docs/api.md 4.5): a right code activates a pending method; the first one ends the other sessions (8.1). */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(deps, { identity: 'required', body }, async ({ body, identity, deps }) =>
    ok(await verifyMfa(deps, accountOf(identity), body, identity.sessionId)),
  );
}

export const handler = makeHandler(defaultDeps());
