import * as z from '../zod';

/*
 * The schemas of the local outbox's records (lib/mfa/delivery.ts), apart from it: only the
 * outbox store parses them, and it loads on first use (lib/store/on-first-call.ts).
 */

/** What the outbox keeps of a code it was handed (local development only). */
export const outboxCodeSchema = z.object({
  tenantId: z.string(),
  userId: z.string(),
  method: z.enum(['SMS', 'EMAIL']),
  destination: z.string(),
  code: z.string(),
  /** Absent for MFA codes. */
  purpose: z.optional(z.enum(['reset', 'verify-email'])),
  /** Epoch seconds. */
  sentAt: z.number(),
});

/** What the outbox keeps of a notification it was handed (local development only). */
export const outboxNotificationSchema = z.object({
  tenantId: z.string(),
  userId: z.string(),
  method: z.literal('EMAIL'),
  destination: z.string(),
  notification: z.object({ event: z.string(), subject: z.string(), text: z.string(), html: z.string() }),
  /** Epoch seconds. */
  sentAt: z.number(),
});

/** What the outbox keeps of every email, by address (local development only; `npm run outbox -- --email`). */
export const outboxEmailSchema = z.object({
  destination: z.string(),
  subject: z.string(),
  text: z.string(),
  /** Epoch seconds. */
  sentAt: z.number(),
});
