import * as z from 'zod';
import { MFA_METHODS, MFA_STATUSES } from '../mfa/methods';
import type { MfaSummary } from '../mfa/summary';
import type { GrantView } from '../oauth/user-grants';
import type { SessionView } from '../sessions/user-sessions';
import type { AccountView } from '../users/account';
import { ROLES } from '../users/user';

/**
 * The answers of the account-security operations (docs/api.md 8), the documented shapes
 * docs/openapi.json is generated from (as lib/http/api-schemas.ts for the others).
 */

/** reauthenticate (docs/api.md 8.1): a new access token of the caller's session. */
export const reauthenticated = z.strictObject({ token: z.string() });

/** docs/api.md 8.3: the caller's live sessions. */
export const sessionList = z.strictObject({
  sessions: z.array(
    z.strictObject({
      id: z.string(),
      current: z.boolean(),
      createdAt: z.string(),
      lastUsedAt: z.string(),
      expiresAt: z.string(),
      amr: z.array(z.string()),
      userAgent: z.string().nullable(),
      ipAddress: z.string().nullable(),
    }),
  ),
}) satisfies z.ZodType<{ sessions: SessionView[] }>;

/** docs/api.md 8.3: the data of revoking the caller's other sessions. */
export const sessionsRevoked = z.strictObject({ message: z.literal('Sessions revoked'), revoked: z.number().int().nonnegative() });

/** docs/api.md 8.4: the apps the caller authorized. */
export const grantList = z.strictObject({
  grants: z.array(
    z.strictObject({
      id: z.string(),
      clientId: z.string(),
      clientName: z.string(),
      scope: z.string(),
      createdAt: z.string(),
      lastUsedAt: z.string(),
    }),
  ),
}) satisfies z.ZodType<{ grants: GrantView[] }>;

/** docs/api.md 8.5: the `mfa` object of the account. */
export const mfaSummary = z.strictObject({
  methods: z.array(
    z.strictObject({
      method: z.enum(MFA_METHODS),
      status: z.enum(MFA_STATUSES),
      destination: z.string().nullable(),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
    }),
  ),
  recoveryCodesRemaining: z.number().int().nonnegative(),
}) satisfies z.ZodType<MfaSummary>;

/** docs/api.md 8.5: the caller's account. */
export const account = z.strictObject({
  account: z.strictObject({
    id: z.string(),
    username: z.string(),
    role: z.enum(ROLES),
    tenantId: z.string(),
    shopId: z.string(),
    email: z.string().nullable(),
    emailVerified: z.boolean(),
    createdAt: z.string(),
    mfa: mfaSummary,
    passkeys: z.array(z.never()),
  }),
}) satisfies z.ZodType<{ account: AccountView }>;
