import { ROLES } from '../caller';
import * as z from '../zod';

/*
 * The schema of a stored user, apart from lib/users/user.ts: only the stores parse records,
 * and they load on first use (lib/store/on-first-call.ts), so a function that reads no user
 * does not build it at its cold start (docs/performance.md, Cold starts).
 */

/** A stored user. `passwordHash` never leaves lib/: responses use `userSummary`. */
export const userSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  shopId: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  email: z.optional(z.string()),
  /** Whether the user proved `email` is theirs (docs/api.md 8.8); only a verified address gets codes and notifications. */
  emailVerified: z.optional(z.boolean()),
  /**
   * The password's hash; absent for an account that has none yet (imported without a
   * hash, provisioned over SCIM, or invited and accepted with a passkey): such an account
   * signs in another way or sets a password through the reset flow (docs/api.md 13).
   */
  passwordHash: z.optional(z.string()),
  status: z.enum(['active', 'disabled']),
  /**
   * The generation of the user's sessions and grants (0 when absent): each records the
   * one it was made under, and one of an earlier generation is revoked. Moving it on is
   * how every session and grant of a user ends in one write (sessionsRevokedBy).
   */
  sessionEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  /**
   * The generation of the user's sessions alone (0 when absent): "sign out my other
   * sessions" (docs/api.md 8.3) moves it on and ends every older session, while the
   * user's OAuth grants, which do not record it, stay.
   */
  signInEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** ISO 8601. */
  createdAt: z.string(),
  /**
   * What a SCIM client sent of the user (docs/api.md 13.3), stored and returned as sent:
   * its `externalId` (unique in the tenant), `displayName`, `name` and `emails`.
   */
  externalId: z.optional(z.string()),
  displayName: z.optional(z.string()),
  name: z.optional(z.record(z.string(), z.unknown())),
  emails: z.optional(z.array(z.record(z.string(), z.unknown()))),
  /** The SCIM groups (roles) the user is a member of (docs/api.md 13.3); the role is the highest of them. */
  scimGroups: z.optional(z.array(z.enum(ROLES))),
  /** Moves on with every SCIM change (its ETag): concurrent PATCHes of one user apply one at a time (docs/api.md 13.3). */
  version: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** ISO 8601 of the last SCIM change (`meta.lastModified`). */
  updatedAt: z.optional(z.string()),
});
