import { AMR_VALUES } from '../caller';
import { refreshStateSchema } from '../token-families/refresh-family';
import * as z from '../zod';

export { AMR_VALUES, type Amr } from '../caller';

/**
 * A login session: a refresh-token family (lib/token-families) of one user, as stored.
 * It ends at `expiresAt` (30 days after login by default) or when revoked.
 */
export const sessionSchema = z.extend(refreshStateSchema, {
  id: z.string(),
  tenantId: z.string(),
  userId: z.string(),
  amr: z.array(z.enum(AMR_VALUES)),
  /** Epoch seconds. */
  createdAt: z.number(),
  /** Epoch seconds of the last proof of the password or a factor (`auth_time`); createdAt when absent. */
  authTime: z.optional(z.number()),
  /** The user's session generation when the session began (lib/users/user.ts). */
  userEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** The user's sign-in generation when the session began (lib/users/user.ts `isSessionOfCurrentGeneration`). */
  signInEpoch: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** The device of the sign-in, then of the last refresh (lib/sessions/device.ts); absent on older sessions. */
  userAgent: z.optional(z.string()),
  ipAddress: z.optional(z.string()),
  /** A browser session (docs/api.md 11.6): the hash of its cookie's secret; absent for API sessions. */
  browserHash: z.optional(z.string()),
  /** Epoch seconds of the browser session's last use, for its idle timeout (docs/api.md 11.6). */
  seenAt: z.optional(z.number()),
  /** The connection a federated sign-in came through (docs/api.md 14.3): the session lives only while it is enabled. */
  idp: z.optional(z.string()),
});

export type Session = z.output<typeof sessionSchema>;
