import { presentedDeviceToken } from '../lib/abuse/device-token';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId, username } from '../lib/http/schemas';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { requestPasswordReset } from '../lib/users/password-reset';
import * as z from '../lib/zod';

export const body = z.object({
  username,
  tenantId: z.optional(existingTenantId),
});

/**
 * POST /auth/password/forgot (docs/api.md 8.7): always 202, in the same time whether the
 * account exists or not. A device token of the account (`X-Device-Token`, docs/api.md
 * 10.1) makes the caller a known device, which gets its code while strangers' wait.
 */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  requireClientSecretPepper(deps.config);
  return httpHandler(deps, { identity: 'none', body }, async ({ body, deps, headers, cookies }) => {
    const account = { tenantId: body.tenantId ?? deps.config.defaultTenantId, username: body.username };
    return ok(await requestPasswordReset(deps, { ...account, deviceToken: presentedDeviceToken(headers, cookies, account) }), 202);
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '8.7',
  summary: 'Ask for a password reset code: the same answer, in the same time, whether the account exists or not',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [{ status: 202, description: 'Always, whether a code was sent or not.', body: 'ResetCodeSentEnvelope', headers: noStore }],
  failures: [],
};
