import type * as z from 'zod/mini';
import type { Role } from '../caller';
import type { userSchema } from './user-record';

export { ROLES, type Role } from '../caller';

export type User = z.output<typeof userSchema>;

/** What a session or grant records of its user's generation (User.sessionEpoch). */
export interface OwnedByUser {
  userEpoch?: number | undefined;
}

export const epochOf = (user: Pick<User, 'sessionEpoch'>): number => user.sessionEpoch ?? 0;

/** Whether a session or grant belongs to its user's current generation, i.e. was not revoked with all the others. */
export function isOfCurrentEpoch(user: Pick<User, 'sessionEpoch'>, owned: OwnedByUser): boolean {
  return (owned.userEpoch ?? 0) === epochOf(user);
}

/** What a session records of its user's generations. */
export interface SessionOfUser extends OwnedByUser {
  signInEpoch?: number | undefined;
}

export const signInEpochOf = (user: Pick<User, 'signInEpoch'>): number => user.signInEpoch ?? 0;

/**
 * Whether a session belongs to its user's current generations: neither every session
 * and grant (`sessionEpoch`) nor every session (`signInEpoch`) was revoked since it began.
 * Grants are checked with `isOfCurrentEpoch` alone.
 */
export function isSessionOfCurrentGeneration(user: Pick<User, 'sessionEpoch' | 'signInEpoch'>, session: SessionOfUser): boolean {
  return isOfCurrentEpoch(user, session) && (session.signInEpoch ?? 0) === signInEpochOf(user);
}

/** The user summary of the contract (docs/api.md 5.1). */
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
