import * as z from '../zod';

/** An id the service made (a session's, a grant's: 128 random bits, base64url); anything else is refused before a read. */
const issuedId = z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/));

/** The path of `DELETE /auth/sessions/{sessionId}` (docs/api.md 8.3). */
export const sessionPath = z.strictObject({ sessionId: issuedId });

/** The path of `DELETE /auth/grants/{grantId}` (docs/api.md 8.4). */
export const grantPath = z.strictObject({ grantId: issuedId });

/** The path of `DELETE /auth/passkeys/{id}` (docs/api.md 12.4): a passkey id is a base64url SHA-256 (43 characters). */
export const passkeyPath = z.strictObject({ id: issuedId });
