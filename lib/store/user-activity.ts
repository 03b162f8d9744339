import { MFA_METHODS, type MfaMethod } from '../mfa/methods';
import * as z from '../zod';
import type { TransactWriteItem } from './commands';
import { keys } from './keys';

/*
 * A user's activity (docs/decisions/027-bounded-admin-lists.md): what the tenant's user
 * list shows of a user beside the profile, kept on the user's record, so that the tenant
 * index's one query brings it and a page of 100 users costs two round trips, not two
 * queries per user. The start of the user's newest session is written in the transaction
 * that stores the session; the MFA methods the user enrolled are added in the transaction
 * that enrolls one: at least every method the user holds (one that expired or was removed
 * stays named: the list reads the methods themselves, strongly consistent).
 */

/** The attribute on a user written since activity is kept: their activity fields, present or absent, are the whole truth. */
export const ACTIVITY_KEPT = 'activityKept';

/** The fields of a user's activity on their record. */
export const activityFields = {
  [ACTIVITY_KEPT]: z.optional(z.literal(true)),
  /** Epoch seconds of the start of the user's newest session. */
  lastSessionAt: z.optional(z.number()),
  /** Every MFA method the user enrolled since activity is kept, whether they still hold it or not. */
  mfaEnrolled: z.optional(z.set(z.enum(MFA_METHODS))),
};

/** A user's activity as the list reads it. */
export interface UserActivity {
  /** The methods whose records the list reads: every method the user may hold. */
  mfaMethods: MfaMethod[];
  /** Epoch seconds of the start of the user's newest session, if any. */
  lastSessionAt?: number | undefined;
}

/** The activity of a user as their record holds it; undefined for a user written before activity was kept. */
export function activityOf(user: {
  activityKept?: true | undefined;
  lastSessionAt?: number | undefined;
  mfaEnrolled?: Set<MfaMethod> | undefined;
}): UserActivity | undefined {
  if (user.activityKept !== true) return undefined;
  return { mfaMethods: MFA_METHODS.filter((method) => user.mfaEnrolled?.has(method)), lastSessionAt: user.lastSessionAt };
}

/** An update of the user's activity, only while the user is there (a user erased meanwhile is not written back). */
function activityUpdate(
  table: string,
  user: { tenantId: string; userId: string },
  change: { set?: string; add?: string; condition?: string },
  values: Record<string, unknown>,
) {
  return {
    Update: {
      TableName: table,
      Key: keys.user(user.tenantId, user.userId),
      UpdateExpression: [change.set && `SET ${change.set}`, change.add && `ADD ${change.add}`].filter(Boolean).join(' '),
      ConditionExpression: `attribute_exists(pk)${change.condition ? ` AND ${change.condition}` : ''}`,
      ExpressionAttributeValues: values,
    },
  } satisfies TransactWriteItem;
}

/**
 * The transaction item that records a new session's start as its user's newest; refused
 * when a newer one is recorded (a session stored meanwhile) or the user is gone: then the
 * session is stored without it (lib/store/write-once.ts).
 */
export const sessionStarted = (table: string, session: { tenantId: string; userId: string; createdAt: number }) =>
  activityUpdate(
    table,
    session,
    { set: 'lastSessionAt = :at', condition: '(attribute_not_exists(lastSessionAt) OR lastSessionAt <= :at)' },
    { ':at': session.createdAt },
  );

/** The transaction item that names an MFA method the user enrolls: from then on the list reads it. */
export const methodEnrolled = (table: string, enrollment: { tenantId: string; userId: string; method: MfaMethod }) =>
  activityUpdate(table, enrollment, { add: 'mfaEnrolled :method' }, { ':method': new Set([enrollment.method]) });
