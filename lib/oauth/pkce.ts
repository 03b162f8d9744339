import { createHash } from 'node:crypto';
import { constantEquals } from '../crypto/constant-equals';

/** RFC 7636 4.1: `code-verifier = 43*128unreserved`. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** An S256 code challenge: the base64url SHA-256 of a verifier, always 43 characters (RFC 7636 4.2). */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The S256 transformation of RFC 7636 4.2. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 4.6: whether `verifier` is well-formed and its S256 is `challenge`. */
export function verifyPkce(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !CODE_VERIFIER.test(verifier)) return false;
  return constantEquals(s256(verifier), challenge);
}
