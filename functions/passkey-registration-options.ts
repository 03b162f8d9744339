import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { registrationOptions as registrationOptionsAnswer } from '../lib/passkeys/api-schemas';
import { passkeyRegistrationOptions } from '../lib/passkeys/ceremonies';
import { recentAuthentication } from '../lib/sessions/recent-auth';

export const body = z.strictObject({});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = registrationOptionsAnswer;

/** POST /auth/passkeys/registration/options (docs/api.md 12.1, recent): the creation options of a new passkey. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', response, body, authorize: recentAuthentication(deps) }, async ({ identity, deps }) =>
    ok({ options: await passkeyRegistrationOptions(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());
