import { deviceCookie, presentedDeviceToken } from '../lib/abuse/device-token';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../lib/errors';
import { SSO_REQUIRED } from '../lib/federation/sso-required';
import { httpHandler } from '../lib/http/handler';
import { locked, mfaHeaders, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId, username } from '../lib/http/schemas';
import { SECOND_FACTORS } from '../lib/mfa/methods';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { authPayload as authPayloadAnswer } from '../lib/sessions/api-schemas';
import { deviceOf } from '../lib/sessions/device';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import { login } from '../lib/users/login';
import * as z from '../lib/zod';

export const body = z.object({
  username,
  password: z.string().check(z.minLength(1), z.maxLength(1024)),
  tenantId: z.optional(existingTenantId),
  mfaCode: z.optional(z.string().check(z.minLength(1), z.maxLength(16))),
  mfaMethod: z.optional(z.enum(SECOND_FACTORS)),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = authPayloadAnswer;

/** POST /auth/login (docs/api.md 4.1): the device token comes and goes as a cookie or `X-Device-Token` (docs/api.md 10). */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    { identity: 'none', response, body, prefetch: prefetchKeys(deps.keys) },
    async ({ body, deps, headers, cookies, sourceIp, event }) => {
      const account = { tenantId: body.tenantId ?? deps.config.defaultTenantId, username: body.username };
      const payload = await login(
        deps,
        {
          ...account,
          password: body.password,
          mfaCode: body.mfaCode,
          mfaMethod: body.mfaMethod,
          deviceToken: presentedDeviceToken(headers, cookies, account),
          sourceIp,
        },
        deviceOf(event),
      );
      return ok(payload, 200, { 'Set-Cookie': deviceCookie(account, payload.deviceToken) });
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.1',
  summary: 'Log in with username and password (and an MFA code when the user has an active method)',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['json'],
  answers: [{ status: 200, description: 'A new session.', body: 'AuthPayloadEnvelope', headers: noStore }],
  failures: [
    new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' }),
    new UnauthorizedError('Invalid credentials', {}, { code: 'INVALID_CREDENTIALS' }),
    new UnauthorizedError('MFA code required', mfaHeaders, { code: 'MFA_REQUIRED' }),
    new UnauthorizedError('Invalid MFA code', mfaHeaders, { code: 'INVALID_MFA_CODE' }),
    new ForbiddenError(SSO_REQUIRED, { code: 'SSO_REQUIRED' }),
    locked,
  ],
};
