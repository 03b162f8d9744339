import type { Random } from '../crypto/random';
import { AMR_VALUES } from '../sessions/session';
import * as z from '../zod';

/** The grant type of RFC 8628 3.4, as clients register it and send it to the token endpoint. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** How long a device authorization waits for the user (docs/api.md 16.4): 10 minutes. */
export const DEVICE_CODE_TTL_SECONDS = 10 * 60;
/** The least time between two polls of the token endpoint (RFC 8628 3.2), at first. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** What each `slow_down` adds to the interval, for that poll and all later ones (RFC 8628 3.5). */
export const SLOW_DOWN_STEP_SECONDS = 5;
/** How long the record is kept after it expires, so that a late second redemption still revokes its tokens. */
export const DEVICE_CODE_KEPT_SECONDS = 24 * 3600;

/**
 * The user code's alphabet (RFC 8628 6.1): 20 consonants, no vowels (no words), none
 * that look alike; 8 of them are 34.5 bits, which the limit on wrong codes (10 per user
 * in 15 minutes, docs/api.md 16.4) makes far too many to guess.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/**
 * A user code drawn uniformly: random bytes below 240 (12 × 20), each taken modulo 20;
 * the others are dropped, so that no letter is likelier than another.
 */
export function newUserCode(random: Pick<Random, 'token'>): string {
  let code = '';
  while (code.length < USER_CODE_LENGTH) {
    for (const byte of Buffer.from(random.token(16), 'base64url')) {
      if (byte < 240 && code.length < USER_CODE_LENGTH) code += USER_CODE_ALPHABET[byte % 20];
    }
  }
  return code;
}

/** The user code as people read it: `XXXX-XXXX`. */
export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * What a person typed, as a user code (RFC 8628 6.1): case, dashes and white space do
 * not matter; undefined for anything that cannot be one (a wrong letter, a wrong length).
 */
export function normalizeUserCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== USER_CODE_LENGTH || ![...code].every((letter) => USER_CODE_ALPHABET.includes(letter))) return undefined;
  return code;
}

/** Where a device authorization stands: waiting for the user, or decided by them. */
export const DEVICE_AUTHORIZATION_STATUSES = ['pending', 'approved', 'denied'] as const;

/**
 * A device authorization (RFC 8628 3.1-3.5) as stored, under the tenant of its client
 * and the SHA-256 of its device code (256 random bits, given only to the device). Its
 * user code is kept as a hash too, in a record of its own that finds this one
 * (lib/store/device-codes.ts). Approval, denial and redemption each move it on in one
 * conditional write.
 */
export const deviceAuthorizationSchema = z.object({
  deviceCodeHash: z.string(),
  userCodeHash: z.string(),
  tenantId: z.string(),
  clientId: z.string(),
  scope: z.array(z.string()),
  /** Epoch seconds. */
  createdAt: z.number(),
  expiresAt: z.number(),
  /** The least seconds between polls; grows by 5 at each `slow_down`. */
  interval: z.number().check(z.int(), z.positive()),
  /** Epoch seconds: a poll before this answers `slow_down`. */
  nextPollAt: z.number(),
  status: z.enum(DEVICE_AUTHORIZATION_STATUSES),
  /** Set with the decision: who decided, in which browser session, and how that session was signed in. */
  decidedAt: z.optional(z.number()),
  userId: z.optional(z.string()),
  sessionId: z.optional(z.string()),
  authTime: z.optional(z.number()),
  amr: z.optional(z.array(z.enum(AMR_VALUES))),
  /** Set, once, by the token request that redeems the approval, with the grant it stored. */
  redeemedAt: z.optional(z.number()),
  grantId: z.optional(z.string()),
});

export type DeviceAuthorization = z.output<typeof deviceAuthorizationSchema>;

/** The record a user code finds: the tenant and device code hash of its authorization. */
export const userCodeClaimSchema = z.object({
  tenantId: z.string(),
  deviceCodeHash: z.string(),
  expiresAt: z.number(),
});

export type UserCodeClaim = z.output<typeof userCodeClaimSchema>;

/** The approving user and browser session (docs/api.md 16.4): the grant's subject and `sid`. */
export interface DeviceApproval {
  userId: string;
  sessionId: string;
  authTime: number;
  amr: DeviceAuthorization['amr'];
}
