import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { locked, mfaHeaders, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId, username } from '../lib/http/schemas';
import { SECOND_FACTORS } from '../lib/mfa/methods';
import { resetPassword } from '../lib/users/password-reset';
import * as z from '../lib/zod';

export const body = z.object({
  username,
  tenantId: z.optional(existingTenantId),
  code: z.string().check(z.trim(), z.minLength(1), z.maxLength(16)),
  // The registration rules (docs/api.md 4.3).
  newPassword: z.string().check(z.minLength(6), z.maxLength(128)),
  mfaCode: z.optional(z.string().check(z.minLength(1), z.maxLength(16))),
  mfaMethod: z.optional(z.enum(SECOND_FACTORS)),
  // Removes every passkey of the user with the reset; false (the default) keeps them.
  removePasskeys: z.optional(z.boolean()),
});

/**
 * POST /auth/password/reset (docs/api.md 8.7): a reset code (and a second factor) set a new
 * password; every session and grant ends, and with `removePasskeys` every passkey.
 */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(deps, { identity: 'none', body }, async ({ body, deps }) =>
    ok(await resetPassword(deps, { ...body, tenantId: body.tenantId ?? deps.config.defaultTenantId })),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.7',
  summary: 'Set a new password with a reset code (and a second factor when MFA is active): every session and grant ends',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'The password is reset.', body: 'PasswordResetEnvelope', headers: noStore }],
  failures: [
    new ValidationError('Invalid reset code', { code: 'INVALID_RESET_CODE' }),
    new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
    new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
    new UnauthorizedError('MFA code required', mfaHeaders, { code: 'MFA_REQUIRED' }),
    new UnauthorizedError('Invalid MFA code', mfaHeaders, { code: 'INVALID_MFA_CODE' }),
    new ForbiddenError('MFA method locked', { code: 'MFA_METHOD_LOCKED' }),
    locked,
  ],
};
