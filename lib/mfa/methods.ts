import * as z from '../zod';

/** The second factors of docs/api.md 4.4: an authenticator app, a text message, an email. */
export const MFA_METHODS = ['TOTP', 'SMS', 'EMAIL'] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

/**
 * What a login or reauthentication may name as `mfaMethod` (docs/api.md 4.1): a method,
 * or `RECOVERY` for a recovery code (docs/api.md 8.6).
 */
export const SECOND_FACTORS = [...MFA_METHODS, 'RECOVERY'] as const;
export type SecondFactor = (typeof SECOND_FACTORS)[number];

/** The methods whose codes the service sends (through the delivery port). */
export type DeliveredMethod = Exclude<MfaMethod, 'TOTP'>;

export const MFA_STATUSES = ['pending', 'active'] as const;
export type MfaStatus = (typeof MFA_STATUSES)[number];

const enrollmentBase = z.object({
  tenantId: z.string(),
  userId: z.string(),
  /** Pending until the first correct code (verifyMFA); only active methods guard login. */
  status: z.enum(MFA_STATUSES),
  /** Epoch seconds. */
  createdAt: z.number(),
  activatedAt: z.optional(z.number()),
  /** Epoch seconds: when a code of this method was last accepted (verifyMFA or a sign-in). */
  lastUsedAt: z.optional(z.number()),
  /**
   * Wrong codes since the last right one, however far apart: at MAX_FAILED_CODES the
   * method is locked until it is enrolled again or an administrator resets it.
   */
  failedCodes: z.optional(z.number().check(z.int(), z.nonnegative())),
});

/** An authenticator app: the shared secret, sealed (lib/mfa/secret-box), and the replay guard. */
export const totpEnrollmentSchema = z.extend(enrollmentBase, {
  method: z.literal('TOTP'),
  sealedSecret: z.string(),
  /** The last accepted RFC 6238 time step: a code of this step or an earlier one is refused. */
  lastTimeStep: z.optional(z.number()),
});

/** A phone number or email address the service sends one-time codes to. */
export const deliveredEnrollmentSchema = z.extend(enrollmentBase, {
  method: z.enum(['SMS', 'EMAIL']),
  /** E.164 phone number or email address. */
  destination: z.string(),
  /** Keyed digest of the outstanding one-time code, if any (never the code). */
  codeDigest: z.optional(z.string()),
  /** Epoch seconds. */
  codeExpiresAt: z.optional(z.number()),
  /** Epoch seconds; at most one code per RESEND_INTERVAL_SECONDS. */
  codeSentAt: z.optional(z.number()),
});

export const enrollmentSchema = z.discriminatedUnion('method', [totpEnrollmentSchema, deliveredEnrollmentSchema]);

export type TotpEnrollment = z.output<typeof totpEnrollmentSchema>;
export type DeliveredEnrollment = z.output<typeof deliveredEnrollmentSchema>;
export type MfaEnrollment = z.output<typeof enrollmentSchema>;
