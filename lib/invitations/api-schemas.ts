import { ROLES } from '../users/user';
import * as z from '../zod';
import type { InvitationView } from './invitations';

/** docs/api.md 13.1: an invitation as the admin routes answer with it (never its token). */
export const invitation = z.strictObject({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  shopId: z.string(),
  status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
  expiresAt: z.string(),
  createdAt: z.string(),
}) satisfies z.ZodMiniType<InvitationView>;

export const oneInvitation = z.strictObject({ invitation });

export const invitationList = z.strictObject({ invitations: z.array(invitation), nextCursor: z.nullable(z.string()) });

/** The path of the routes on one invitation: an id of any format is looked up (not found unless a UUID). */
export const invitationPath = z.strictObject({ id: z.string() });
