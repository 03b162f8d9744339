import * as z from 'zod';
import { MFA_METHODS, MFA_STATUSES } from '../mfa/methods';

/**
 * The answers of the account-security operations (docs/api.md 8), the documented shapes
 * docs/openapi.json is generated from (as lib/http/api-schemas.ts for the others).
 */

/** reauthenticate (docs/api.md 8.1): a new access token of the caller's session. */
export const reauthenticated = z.strictObject({ token: z.string() });

/** One MFA method as its user sees it (docs/api.md 8.6): never a secret or a code. */
export const mfaMethodView = z.strictObject({
  method: z.enum(MFA_METHODS),
  status: z.enum(MFA_STATUSES),
  /** SMS/EMAIL: the phone number (last 2 digits) or address (first character and domain), masked; TOTP: null. */
  destination: z.string().nullable(),
  createdAt: z.iso.datetime(),
  /** When a code of the method was last accepted, or null. */
  lastUsedAt: z.iso.datetime().nullable(),
});

/** listMFA (docs/api.md 8.6): the user's methods and the recovery codes left. */
export const mfaList = z.strictObject({
  mfa: z.strictObject({ methods: z.array(mfaMethodView), recoveryCodesRemaining: z.number().int().min(0).max(10) }),
});

/** generateRecoveryCodes (docs/api.md 8.6): the new codes, shown this once. */
export const recoveryCodes = z.strictObject({ codes: z.array(z.string().regex(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/)).length(10) });
