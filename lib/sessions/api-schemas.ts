import type { Identity } from '../caller';
import { MFA_METHODS } from '../mfa/methods';
import { AMR_VALUES } from '../sessions/session';
import type { AuthPayload } from '../sessions/sessions';
import { ROLES, type UserSummary } from '../users/user';
import * as z from '../zod';

/*
 * The answers of the session routes (docs/api.md 4.1-4.5, 4.9, 5.1-5.3) as schemas:
 * docs/openapi.json is generated from them (scripts/lib/openapi.ts), and tests check real
 * answers against them. Objects are strict, so an answer with a field these schemas do not
 * name fails that check. `satisfies` ties each schema to the type the code answers with.
 */

/** docs/api.md 5.1: the user summary. */
export const userSummary = z.strictObject({
  id: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  tenantId: z.string(),
  shopId: z.string(),
}) satisfies z.ZodMiniType<UserSummary>;

/** docs/api.md 5.2: the data of login, refreshToken and register. */
export const authPayload = z.strictObject({
  token: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().check(z.int(), z.nonnegative()),
  user: userSummary,
  deviceToken: z.optional(z.string()),
}) satisfies z.ZodMiniType<AuthPayload>;

/** docs/api.md 5.3: the request context the authorizer hands to the functions. */
export const requestContext = z.strictObject({
  userId: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  tenantId: z.string(),
  shopId: z.string(),
  sessionId: z.string(),
  amr: z.array(z.enum(AMR_VALUES)),
  authTime: z.number().check(z.int()),
}) satisfies z.ZodMiniType<Identity>;

/** docs/api.md 4.4: the data of enableMFA. */
export const mfaEnabled = z.strictObject({
  message: z.literal('MFA enabled successfully'),
  method: z.enum(MFA_METHODS),
  status: z.literal('pending'),
  /** TOTP only. */
  otpauthUri: z.optional(z.string()),
});

/** docs/api.md 4.9: the data of me. */
export const me = z.strictObject({ user: requestContext });
