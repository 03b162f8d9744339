import { deviceCookie } from '../lib/abuse/device-token';
import { UNKNOWN_SHOP } from '../lib/admin/shops';
import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { existingTenantId, shopId, username } from '../lib/http/schemas';
import { requireClientSecretPepper } from '../lib/oauth/client-secret';
import { authPayload as authPayloadAnswer } from '../lib/sessions/api-schemas';
import { deviceOf } from '../lib/sessions/device';
import { prefetchKeys } from '../lib/tokens/signing-keys';
import { authorizeRegistration, register } from '../lib/users/register';
import { ROLES } from '../lib/users/user';
import * as z from '../lib/zod';

export const body = z.object({
  username,
  password: z.string().check(z.minLength(6), z.maxLength(128)),
  role: z.enum(ROLES),
  // Canonical when it creates the tenant (lib/users/register.ts): the only case a new id is taken.
  tenantId: existingTenantId,
  shopId: z.optional(shopId),
  email: z.optional(z.email().check(z.maxLength(254))),
});

/** The `data` of the success envelope (docs/api.md 5). */
export const response = authPayloadAnswer;

/** POST /auth/register (docs/api.md 4.3): anonymous for a new tenant's first ADMIN, else an ADMIN of the tenant. */
export function makeHandler(deps: Deps) {
  requireClientSecretPepper(deps.config);
  return httpHandler(
    deps,
    {
      identity: 'optional',
      response,
      body,
      prefetch: prefetchKeys(deps.keys),
      authorize: (caller, raw) => authorizeRegistration(deps, caller, existingTenantId.safeParse(raw.tenantId).data),
    },
    async ({ body, identity, deps, event }) => {
      const payload = await register(deps, identity, body, deviceOf(event));
      const cookie: Record<string, string> = payload.deviceToken ? { 'Set-Cookie': deviceCookie(body, payload.deviceToken) } : {};
      return ok(payload, 201, cookie);
    },
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '4.3',
  summary: "Register a user: anonymously a new tenant's first ADMIN, else by an ADMIN of the tenant",
  tag: 'auth',
  caller: 'optionalSession',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The new user with a session.', body: 'AuthPayloadEnvelope', headers: noStore }],
  failures: [
    new ValidationError('The first user of a tenant must have role ADMIN', { code: 'FIRST_USER_MUST_BE_ADMIN' }),
    new ValidationError('Password is too common', { code: 'PASSWORD_TOO_COMMON' }),
    new ValidationError('Username already exists', { code: 'USERNAME_TAKEN' }),
    new ValidationError(UNKNOWN_SHOP, { code: 'UNKNOWN_SHOP' }),
    permissionDenied,
  ],
};
