import * as z from 'zod';

/**
 * The answers of the account-security operations (docs/api.md 8), the documented shapes
 * docs/openapi.json is generated from (as lib/http/api-schemas.ts for the others).
 */

/** reauthenticate (docs/api.md 8.1): a new access token of the caller's session. */
export const reauthenticated = z.strictObject({ token: z.string() });

/** PUT /auth/email (docs/api.md 8.8): the address as stored, unverified. */
export const emailSet = z.strictObject({
  message: z.literal('Verification code sent'),
  email: z.string(),
  emailVerified: z.literal(false),
});
