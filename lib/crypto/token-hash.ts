import { createHash } from 'node:crypto';

/**
 * SHA-256 of a high-entropy token (refresh token, authorization code), base64url.
 * Such tokens carry 256 random bits, so a fast unsalted hash is enough to make the
 * stored value useless to someone who reads the table.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
