import * as z from 'zod';
import { MFA_METHODS, type MfaMethod } from '../mfa/methods';
import type { TransactWriteItem } from './commands';
import { keys } from './keys';
import { parseRecord } from './records';

/*
 * A user's activity record (docs/decisions/027-bounded-admin-lists.md): what the tenant's
 * user list shows of a user beside the profile, so that a page of 100 users costs a few
 * round trips, not two queries per user. It holds the start of the user's newest session,
 * written in the transaction that stores the session, and the MFA methods the user may
 * hold, added in the transaction that enrolls one: at least every method the user holds
 * (a method that expired or was removed stays listed; the list reads the methods themselves).
 * It sits on the owner index, so erasing what a user owns (lib/store/tenant-users.ts) erases it.
 */

/** The attribute on a user written since activity records exist: their record, or its absence, is the whole truth. */
export const ACTIVITY_KEPT = 'activityKept';

/** A user's activity as the list reads it. */
export interface UserActivity {
  /** The methods whose records the list reads: every method the user may hold. */
  mfaMethods: MfaMethod[];
  /** Epoch seconds of the start of the user's newest session, if any. */
  lastSessionAt?: number | undefined;
}

const activitySchema = z.object({
  mfaMethods: z.set(z.enum(MFA_METHODS)).optional(),
  lastSessionAt: z.number().optional(),
});

/** The activity of a user whose record `item` is (undefined: none yet). */
export function activityOf(item: Record<string, unknown> | undefined): UserActivity {
  const record = parseRecord(activitySchema, 'user activity', item);
  return { mfaMethods: MFA_METHODS.filter((method) => record?.mfaMethods?.has(method)), lastSessionAt: record?.lastSessionAt };
}

/** What a user written before activity records may hold: every method, and a session found by a query. */
export const UNKNOWN_MFA_METHODS: MfaMethod[] = [...MFA_METHODS];

/** An update of the user's activity record, which creates it on the owner index if it is not there yet. */
function activityUpdate(
  table: string,
  user: { tenantId: string; userId: string },
  change: { set?: string; add?: string; condition?: string },
  values: Record<string, unknown>,
) {
  return {
    Update: {
      TableName: table,
      Key: keys.userActivity(user.tenantId, user.userId),
      UpdateExpression: `SET gsi1pk = :owner, gsi1sk = :activity${change.set ? `, ${change.set}` : ''}${change.add ? ` ADD ${change.add}` : ''}`,
      ...(change.condition ? { ConditionExpression: change.condition } : {}),
      ExpressionAttributeValues: { ...values, ':owner': keys.ownerPartition(user.tenantId, user.userId), ':activity': 'ACTIVITY' },
    },
  } satisfies TransactWriteItem;
}

/**
 * The transaction item that records a new session's start as its user's newest, unless a
 * newer one is recorded (a session stored meanwhile): then the session is stored without it.
 */
export const sessionStarted = (table: string, session: { tenantId: string; userId: string; createdAt: number }) =>
  activityUpdate(
    table,
    session,
    { set: 'lastSessionAt = :at', condition: 'attribute_not_exists(lastSessionAt) OR lastSessionAt <= :at' },
    { ':at': session.createdAt },
  );

/** The transaction item that notes an MFA method the user enrolls: from then on the list reads it. */
export const methodEnrolled = (table: string, enrollment: { tenantId: string; userId: string; method: MfaMethod }) =>
  activityUpdate(table, enrollment, { add: 'mfaMethods :method' }, { ':method': new Set([enrollment.method]) });
