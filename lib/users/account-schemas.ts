import { ROLES } from '../caller';
import { MFA_METHODS, MFA_STATUSES } from '../mfa/methods';
import type { GrantView } from '../oauth/user-grants';
import type { PasskeyView } from '../passkeys/passkey';
import type { SessionView } from '../sessions/user-sessions';
import type { AccountView } from '../users/account';
import * as z from '../zod';

/**
 * The answers of the account-security operations (docs/api.md 8), the documented shapes
 * docs/openapi.json is generated from (as lib/sessions/api-schemas.ts for the others).
 */

/** reauthenticate (docs/api.md 8.1): a new access token of the caller's session. */
export const reauthenticated = z.strictObject({ token: z.string() });

/** One MFA method as its user sees it (docs/api.md 8.6): never a secret or a code. */
export const mfaMethodView = z.strictObject({
  method: z.enum(MFA_METHODS),
  status: z.enum(MFA_STATUSES),
  /** SMS/EMAIL: the phone number (last 2 digits) or address (first character and domain), masked; TOTP: null. */
  destination: z.nullable(z.string()),
  createdAt: z.iso.datetime(),
  /** When a code of the method was last accepted, or null. */
  lastUsedAt: z.nullable(z.iso.datetime()),
});

/** listMFA (docs/api.md 8.6): the user's methods and the recovery codes left. */
export const mfaList = z.strictObject({
  mfa: z.strictObject({ methods: z.array(mfaMethodView), recoveryCodesRemaining: z.number().check(z.int(), z.gte(0), z.lte(10)) }),
});

/** generateRecoveryCodes (docs/api.md 8.6): the new codes, shown this once. */
export const recoveryCodes = z.strictObject({
  codes: z.array(z.string().check(z.regex(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/))).check(z.length(10)),
});
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
      userAgent: z.nullable(z.string()),
      ipAddress: z.nullable(z.string()),
    }),
  ),
}) satisfies z.ZodMiniType<{ sessions: SessionView[] }>;

/** docs/api.md 8.3: the data of revoking the caller's other sessions. */
export const sessionsRevoked = z.strictObject({
  message: z.literal('Sessions revoked'),
  revoked: z.number().check(z.int(), z.nonnegative()),
});

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
}) satisfies z.ZodMiniType<{ grants: GrantView[] }>;

/** docs/api.md 8.5: the `mfa` object of the account, as listMFA answers it (8.6). */
export const mfaSummary = mfaList.shape.mfa;

/** docs/api.md 12.3: a passkey, never its key or credential id. */
export const passkey = z.strictObject({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.nullable(z.string()),
}) satisfies z.ZodMiniType<PasskeyView>;

/** docs/api.md 12.3: the caller's passkeys. */
export const passkeys = z.strictObject({ passkeys: z.array(passkey) });

/** docs/api.md 8.5: the caller's account. */
export const account = z.strictObject({
  account: z.strictObject({
    id: z.string(),
    username: z.string(),
    role: z.enum(ROLES),
    tenantId: z.string(),
    shopId: z.string(),
    email: z.nullable(z.string()),
    emailVerified: z.boolean(),
    createdAt: z.string(),
    mfa: mfaSummary,
    passkeys: z.array(passkey),
  }),
}) satisfies z.ZodMiniType<{ account: AccountView }>;

/** PUT /auth/email (docs/api.md 8.8): the address as stored, unverified. */
export const emailSet = z.strictObject({
  message: z.literal('Verification code sent'),
  email: z.string(),
  emailVerified: z.literal(false),
});
