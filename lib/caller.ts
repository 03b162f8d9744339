/*
 * The caller of a request as the authorizer vouches for it (docs/api.md 5.3): what the
 * transport (lib/http) hands to the domain, so both read it from here.
 */

/** The roles of a tenant's users (docs/api.md 3). */
export const ROLES = ['ADMIN', 'MANAGER', 'OPERATOR', 'FINANCE', 'SOURCING', 'LOGISTICS', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];

/** The request context the authorizer hands to functions (docs/api.md 3). */
export interface Identity {
  userId: string;
  username: string;
  role: Role;
  tenantId: string;
  shopId: string;
  sessionId: string;
  amr: string[];
  /** Epoch seconds of the session's last proof of the password or a factor (OIDC `auth_time`). */
  authTime: number;
}
