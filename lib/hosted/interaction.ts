import { authorizationQuery } from '../oauth/authorization-request';
import { AMR_VALUES } from '../sessions/session';
import * as z from '../zod';

/** How long a pending sign-in waits for the user (docs/api.md 11.5). */
export const INTERACTION_TTL_SECONDS = 10 * 60;

/**
 * Where a pending interaction stands: waiting for the password, for the second factor
 * of `userId`, for the consent of the signed-in `userId` in `sessionId`; `done` once its
 * one answer went back to the client.
 */
export const INTERACTION_STAGES = ['sign_in', 'second_factor', 'consent', 'done'] as const;
export type InteractionStage = (typeof INTERACTION_STAGES)[number];

/**
 * A pending browser sign-in, as stored: for a client (docs/api.md 11.5), the
 * authorization request as GET /oauth2/authorize validated it, whole (so every parameter
 * the Bearer door knows flows to the code); for one of our own pages (docs/api.md 15.1),
 * the page to go back to. Bound to the tenant, with the hash of the CSRF token its forms
 * carry. Single use: each step moves `stage` on in one conditional write.
 */
export const interactionSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  request: z.optional(authorizationQuery),
  /** A page sign-in (docs/api.md 15.1): the path of ours the browser goes back to, signed in; no client, no code. */
  returnTo: z.optional(z.string()),
  csrfHash: z.string(),
  stage: z.enum(INTERACTION_STAGES),
  userId: z.optional(z.string()),
  sessionId: z.optional(z.string()),
  amr: z.optional(z.array(z.enum(AMR_VALUES))),
  /** Epoch seconds. */
  createdAt: z.number(),
  expiresAt: z.number(),
});

export type Interaction = z.output<typeof interactionSchema>;
