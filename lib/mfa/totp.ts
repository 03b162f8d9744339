import { Secret, TOTP } from 'otpauth';
import { constantEquals } from '../crypto/constant-equals';
import { isStrongSecret } from '../crypto/secret-strength';

/** RFC 6238 as authenticator apps implement it: HMAC-SHA-1, 6 digits, 30-second steps. */
export const TOTP_SETTINGS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

/** Steps either side of now that are accepted, for clock drift (RFC 6238 5.2). */
export const TOTP_DRIFT_STEPS = 1;

/** RFC 4226 4 (R6): shared secrets of at least 128 bits. */
const MIN_SECRET_BYTES = 16;
/** An upper bound that keeps records small; apps use 20 to 64 bytes. */
const MAX_SECRET_BYTES = 128;

/**
 * The canonical form (upper case, no spaces, no padding) of a base32 (RFC 4648 6)
 * shared secret, or undefined for anything that is not one of at least 128 bits.
 * Apps show secrets in groups and lower case; both are accepted.
 */
export function parseTotpSecret(input: string): string | undefined {
  const secret = input.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (!/^[A-Z2-7]+$/.test(secret)) return undefined;
  // Lengths that leave 1, 3 or 6 characters over are not valid base32.
  if ([1, 3, 6].includes(secret.length % 8)) return undefined;
  const bytes = Secret.fromBase32(secret).bytes;
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) return undefined;
  // A secret that is plainly not random (all "A", "ABAB…", a repeated word) is refused,
  // however long: its length says nothing of how hard it is to guess.
  if (!isStrongSecret(secret)) return undefined;
  return secret;
}

/** The RFC 6238 time step (T) at `nowMs`. */
export function timeStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_SETTINGS.period);
}

/** The code of one time step. */
export function totpCode(secret: string, step: number): string {
  return TOTP.generate({ ...TOTP_SETTINGS, secret: Secret.fromBase32(secret), timestamp: step * TOTP_SETTINGS.period * 1000 });
}

/**
 * The time step whose code `code` is, within ±TOTP_DRIFT_STEPS of now and after
 * `lastAcceptedStep` (a code is accepted once: RFC 6238 5.2), or undefined. Every
 * candidate is compared, in constant time, whatever matched before.
 */
export function matchTotp(secret: string, code: string, nowMs: number, lastAcceptedStep = -1): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = timeStep(nowMs);
  let matched: number | undefined;
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    if (constantEquals(totpCode(secret, step), code) && step > lastAcceptedStep) matched = step;
  }
  return matched;
}

/**
 * The `otpauth://totp/` URI (Google Authenticator key URI format) an authenticator
 * app reads from a QR code. It holds the secret: it goes only into the enrollment answer.
 */
export function otpauthUri(secret: string, issuer: string, account: string): string {
  return new TOTP({ ...TOTP_SETTINGS, issuer, label: account, secret: Secret.fromBase32(secret) }).toString();
}
