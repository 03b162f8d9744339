import * as z from 'zod';
import { requireMfaConfig } from '../lib/config';
import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { ok } from '../lib/http/reply';
import { tenantId, username } from '../lib/http/schemas';
import { SECOND_FACTORS } from '../lib/mfa/methods';
import { deviceOf } from '../lib/sessions/device';
import { login } from '../lib/users/login';

export const body = z.object({
  username,
  password: z.string().min(1).max(1024),
  tenantId: tenantId.optional(),
  mfaCode: z.string().min(1).max(16).optional(),
  mfaMethod: z.enum(SECOND_FACTORS).optional(),
});

/** POST /auth/login (docs/api.md 4.1). */
export function makeHandler(deps: Deps) {
  requireMfaConfig(deps.config);
  return httpHandler(deps, { identity: 'none', body }, async ({ body, deps, event }) => {
    const payload = await login(
      deps,
      {
        tenantId: body.tenantId ?? deps.config.defaultTenantId,
        username: body.username,
        password: body.password,
        mfaCode: body.mfaCode,
        mfaMethod: body.mfaMethod,
      },
      deviceOf(event),
    );
    return ok(payload);
  });
}

export const handler = makeHandler(defaultDeps());
