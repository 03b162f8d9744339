import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { locked, noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { changePassword } from '../lib/users/password-change';
import * as z from '../lib/zod';

export const body = z.object({
  currentPassword: z.string().check(z.minLength(1), z.maxLength(1024)),
  // The registration rules (docs/api.md 4.3).
  newPassword: z.string().check(z.minLength(6), z.maxLength(128)),
});

/** POST /auth/password/change (docs/api.md 8.2): a new password; every other session and grant ends. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', body }, async ({ body, identity, deps }) =>
    ok(await changePassword(deps, identity, body)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.2',
  summary: 'Change the password: every other session and OAuth grant of the user ends',
  tag: 'auth',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The password is changed.', body: 'PasswordChangedEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' }),
    new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
    unauthorized,
    locked,
  ],
};
