import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { UnauthorizedError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { locked, mfaHeaders, noStore, type OperationDoc, unauthorized } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { SECOND_FACTORS } from '../lib/mfa/methods';
import { deviceOf } from '../lib/sessions/device';
import { reauthenticate } from '../lib/sessions/reauthenticate';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import { reauthenticated as reauthenticatedAnswer } from '../lib/users/account-schemas';
import * as z from '../lib/zod';

export const body = z.object({
  password: z.string().check(z.minLength(1), z.maxLength(1024)),
  mfaCode: z.optional(z.string().check(z.minLength(1), z.maxLength(16))),
  mfaMethod: z.optional(z.enum(SECOND_FACTORS)),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = reauthenticatedAnswer;

/** POST /auth/reauthenticate (docs/api.md 8.1): a fresh proof for the caller's session, a new access token. */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(
    deps,
    { identity: 'required', response, body, prefetch: prefetchKeys(deps.keys) },
    async ({ body, identity, deps, event }) => ok(await reauthenticate(deps, identity, body, deviceOf(event))),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.1',
  summary: 'Prove the password (and the second factor) again for the caller’s session: a new access token',
  tag: 'auth',
  caller: 'session',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'A new access token with auth_time now.', body: 'ReauthenticatedEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid credentials', { code: 'INVALID_CREDENTIALS' }),
    new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
    unauthorized,
    new UnauthorizedError('MFA code required', mfaHeaders, { code: 'MFA_REQUIRED' }),
    new UnauthorizedError('Invalid MFA code', mfaHeaders, { code: 'INVALID_MFA_CODE' }),
    locked,
  ],
};
