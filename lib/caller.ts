/*
 * The caller of a request as the authorizer vouches for it (docs/api.md 5.3): what the
 * transport (lib/http) hands to the domain, so both read it from here.
 */

/** The roles of a tenant's users (docs/api.md 3). */
export const ROLES = ['ADMIN', 'MANAGER', 'OPERATOR', 'FINANCE', 'SOURCING', 'LOGISTICS', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Authentication methods references (RFC 8176) a session was established with: a
 * password `pwd`, a one-time code `otp`, a passkey `hwk` (device-bound) or `swk` (synced)
 * with `user` (docs/api.md 12), or the organization's identity provider `fed` (docs/api.md
 * 14.3), with `mfa` when that IdP asserted a multi-factor sign-in. ID tokens add `mfa`
 * to a sign-in of more than one factor here (lib/oidc/claims.ts).
 */
export const AMR_VALUES = ['pwd', 'otp', 'hwk', 'swk', 'user', 'fed', 'mfa'] as const;
export type Amr = (typeof AMR_VALUES)[number];

const AMR_SET: ReadonlySet<string> = new Set(AMR_VALUES);
export const isAmr = (value: string): value is Amr => AMR_SET.has(value);

/** The request context the authorizer hands to functions (docs/api.md 3). */
export interface Identity {
  userId: string;
  username: string;
  role: Role;
  tenantId: string;
  shopId: string;
  sessionId: string;
  amr: Amr[];
  /** Epoch seconds of the session's last proof of the password or a factor (OIDC `auth_time`). */
  authTime: number;
  /** The connection (docs/api.md 14) a federated session was opened through. */
  idp?: string | undefined;
}
