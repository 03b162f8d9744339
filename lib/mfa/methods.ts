/** The second factors of CONTRACT 4.4: an authenticator app, a text message, an email. */
export const MFA_METHODS = ['TOTP', 'SMS', 'EMAIL'] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

/** The methods whose codes the service sends (through the delivery port). */
export type DeliveredMethod = Exclude<MfaMethod, 'TOTP'>;

export type MfaStatus = 'pending' | 'active';

interface EnrollmentBase {
  tenantId: string;
  userId: string;
  /** Pending until the first correct code (verifyMFA); only active methods guard login. */
  status: MfaStatus;
  /** Epoch seconds. */
  createdAt: number;
  activatedAt?: number | undefined;
}

/** An authenticator app: the shared secret, sealed (lib/mfa/secret-box), and the replay guard. */
export interface TotpEnrollment extends EnrollmentBase {
  method: 'TOTP';
  sealedSecret: string;
  /** The last accepted RFC 6238 time step: a code of this step or an earlier one is refused. */
  lastTimeStep?: number | undefined;
}

/** A phone number or email address the service sends one-time codes to. */
export interface DeliveredEnrollment extends EnrollmentBase {
  method: DeliveredMethod;
  /** E.164 phone number or email address. */
  destination: string;
  /** Keyed digest of the outstanding one-time code, if any (never the code). */
  codeDigest?: string | undefined;
  /** Epoch seconds. */
  codeExpiresAt?: number | undefined;
  /** Epoch seconds; at most one code per RESEND_INTERVAL_SECONDS. */
  codeSentAt?: number | undefined;
}

export type MfaEnrollment = TotpEnrollment | DeliveredEnrollment;

/** A phone number or address as it may appear in a log line: enough to recognise, not to use. */
export function maskDestination(destination: string): string {
  const at = destination.indexOf('@');
  if (at > 0) return `${destination.slice(0, 1)}***${destination.slice(at)}`;
  return `${'*'.repeat(Math.max(0, destination.length - 2))}${destination.slice(-2)}`;
}
