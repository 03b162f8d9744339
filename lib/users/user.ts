export const ROLES = ['ADMIN', 'MANAGER', 'OPERATOR', 'FINANCE', 'SOURCING', 'LOGISTICS', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];

/** A stored user. `passwordHash` never leaves lib/: responses use `userSummary`. */
export interface User {
  id: string;
  tenantId: string;
  shopId: string;
  username: string;
  role: Role;
  email?: string | undefined;
  passwordHash: string;
  status: 'active' | 'disabled';
  createdAt: string;
}

/** The user summary of the contract (seed 2.1). */
export interface UserSummary {
  id: string;
  username: string;
  role: Role;
  tenantId: string;
  shopId: string;
}

export function userSummary(user: User): UserSummary {
  return { id: user.id, username: user.username, role: user.role, tenantId: user.tenantId, shopId: user.shopId };
}
