import * as z from 'zod';

export const ROLES = ['ADMIN', 'MANAGER', 'OPERATOR', 'FINANCE', 'SOURCING', 'LOGISTICS', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];

/** A stored user. `passwordHash` never leaves lib/: responses use `userSummary`. */
export const userSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  shopId: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  email: z.string().optional(),
  passwordHash: z.string(),
  status: z.enum(['active', 'disabled']),
  /** ISO 8601. */
  createdAt: z.string(),
});

export type User = z.output<typeof userSchema>;

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
