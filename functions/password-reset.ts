import * as z from 'zod';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { existingTenantId, username } from '../lib/http/schemas';
import { SECOND_FACTORS } from '../lib/mfa/methods';
import { resetPassword } from '../lib/users/password-reset';

export const body = z.object({
  username,
  tenantId: existingTenantId.optional(),
  code: z.string().trim().min(1).max(16),
  // The registration rules (docs/api.md 4.3).
  newPassword: z.string().min(6).max(128),
  mfaCode: z.string().min(1).max(16).optional(),
  mfaMethod: z.enum(SECOND_FACTORS).optional(),
  // Removes every passkey of the user with the reset; false (the default) keeps them.
  removePasskeys: z.boolean().optional(),
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
