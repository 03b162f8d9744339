import type { Random } from '../crypto/random';

/** docs/api.md 4.4/4.5: SMS and EMAIL codes have 6 digits and live 10 minutes. */
export const CODE_DIGITS = 6;
export const CODE_TTL_SECONDS = 10 * 60;

/** At most one code per method every 30 seconds (docs/api.md 4.1), against SMS/email bombing. */
export const RESEND_INTERVAL_SECONDS = 30;

/** A uniformly random 6-digit one-time code (leading zeros kept). */
export function generateCode(random: Pick<Random, 'digits'>): string {
  return random.digits(CODE_DIGITS);
}

/** Whether `code` has the shape of a one-time code at all. */
export function isCodeShaped(code: string): boolean {
  return /^\d{6}$/.test(code);
}
