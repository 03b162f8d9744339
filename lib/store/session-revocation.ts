import { epochOf, type User } from '../users/user';
import type { TransactWriteCommandInput } from './commands';
import { keys } from './keys';

/** Items of a DynamoDB transaction. */
export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** A revocation of a user's sessions and grants that another store's write carries along (lib/store/mfa.ts). */
export interface SessionRevocation extends RevokeSessionsOptions {
  /** The user as read: the revocation fails if its session generation moved since. */
  user: Pick<User, 'tenantId' | 'id' | 'sessionEpoch'>;
}

export interface RevokeSessionsOptions {
  keepSessionId?: string | undefined;
  set?: Partial<Pick<User, 'passwordHash' | 'status' | 'role' | 'shopId'>>;
}

/**
 * The writes that revoke every session and grant of a user (lib/users/user.ts): the user's
 * session generation moved on, only if it is still the one read, with `set`; with
 * `keepSessionId`, that session (the caller's own, if of the current generation) moved to the new generation. Other
 * stores add them to a transaction of their own (activating the first MFA method).
 */
export function sessionRevocationItems(
  table: string,
  user: Pick<User, 'tenantId' | 'id' | 'sessionEpoch'>,
  { keepSessionId, set = {} }: RevokeSessionsOptions = {},
): TransactItems {
  const current = epochOf(user);
  const changes = Object.entries({ ...set, sessionEpoch: current + 1 }).filter(([, value]) => value !== undefined);
  const items: TransactItems = [
    {
      Update: {
        TableName: table,
        Key: keys.user(user.tenantId, user.id),
        UpdateExpression: `SET ${changes.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        ConditionExpression:
          current === 0
            ? 'attribute_exists(pk) AND (attribute_not_exists(sessionEpoch) OR sessionEpoch = :current)'
            : 'sessionEpoch = :current',
        ExpressionAttributeNames: Object.fromEntries(changes.map(([name], i) => [`#f${i}`, name])),
        ExpressionAttributeValues: { ...Object.fromEntries(changes.map(([, value], i) => [`:f${i}`, value])), ':current': current },
      },
    },
  ];
  if (keepSessionId !== undefined) {
    items.push({
      Update: {
        TableName: table,
        Key: keys.session(user.tenantId, keepSessionId),
        UpdateExpression: 'SET userEpoch = :next',
        // Only a session of the current generation is kept: one revoked meanwhile stays revoked.
        ConditionExpression:
          current === 0
            ? 'userId = :user AND (attribute_not_exists(userEpoch) OR userEpoch = :current)'
            : 'userId = :user AND userEpoch = :current',
        ExpressionAttributeValues: { ':next': current + 1, ':user': user.id, ':current': current },
      },
    });
  }
  return items;
}
