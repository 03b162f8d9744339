import { ValidationError } from '../errors';

/**
 * A `nonce` (OIDC Core 3.1.2.1) as the service takes it: printable ASCII (spaces
 * included), 1 to 512 characters. It comes back verbatim in the ID token, so nothing
 * that could break out of a JSON string or a log line gets in (docs/api.md 11.1).
 */
const NONCE = /^[\x20-\x7E]{1,512}$/;

/** The authorization request's nonce, or 400 `Invalid nonce`; undefined when none was sent. */
export function checkNonce(nonce: string | undefined): string | undefined {
  if (nonce === undefined) return undefined;
  if (!NONCE.test(nonce)) throw new ValidationError('Invalid nonce', { code: 'INVALID_NONCE' });
  return nonce;
}
