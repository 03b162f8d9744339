import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
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
