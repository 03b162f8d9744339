import * as z from 'zod';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { changePassword } from '../lib/users/password-change';

export const body = z.object({
  currentPassword: z.string().min(1).max(1024),
  // The registration rules (docs/api.md 4.3).
  newPassword: z.string().min(6).max(128),
});

/** POST /auth/password/change (docs/api.md 8.2): a new password; every other session and grant ends. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', body }, async ({ body, identity, deps }) =>
    ok(await changePassword(deps, identity, body)),
  );
}

export const handler = makeHandler(defaultDeps());
