import type { Random } from '../crypto/random';
import type { Device } from '../sessions/device';
import { type Amr, type Session, sessionSchema } from '../sessions/session';
import type { TokenFamilyStore } from '../token-families/refresh-family';
import { epochOf, signInEpochOf, type User } from '../users/user';
import { userSchema } from '../users/user-record';
import * as z from '../zod';
import { BatchGetCommand, GetCommand, TransactGetCommand, UpdateCommand } from './commands';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed } from './dynamo';
import { type Key, keys } from './keys';
import { listOwned } from './owner-index';
import { parseRecord } from './records';
import type { TransactItems } from './session-revocation';
import { TTL_ATTRIBUTE } from './table';
import { deviceUpdate, dynamoFamilyRotation } from './token-families';
import { sessionStarted } from './user-activity';
import { transactOnce, writeOnce } from './write-once';

/** Login sessions: refresh-token families of users (lib/token-families). */
export interface SessionStore extends TokenFamilyStore<Session> {
  create(session: Session): Promise<void>;
  /** Marks the session revoked (idempotent); false if there is no such session. */
  revoke(family: { tenantId: string; id: string }, now: number, reason: string): Promise<boolean>;
  /** The session (consistent read), or undefined. */
  find(tenantId: string, sessionId: string): Promise<Session | undefined>;
  /**
   * The session and the user it names, each read consistently (what the authorizer needs
   * on every request: the session's state and the user's current role, status and
   * session generation); either is undefined when missing. The two reads are not isolated
   * from a transaction that writes both (a password change keeping the caller's session):
   * one may show it done and the other not. With `isolated` they are read as of one
   * moment (TransactGetItems, twice the read cost), to confirm what such a read refused.
   */
  findWithOwner(
    tenantId: string,
    sessionId: string,
    userId: string,
    options?: { isolated?: boolean },
  ): Promise<{ session?: SessionState; user?: OwnerState }>;
  /** The user's sessions, newest first, from the owner index (eventually consistent: for listings, not decisions). */
  listByUser(tenantId: string, userId: string): Promise<Session[]>;
  /**
   * Records a new proof of a credential in a live session of the user (docs/api.md 8.1):
   * its `authTime` and `amr`, in one conditional write; undefined when the session is not
   * the user's, is revoked or has expired, else the session as it is now.
   */
  reauthenticate(
    family: { tenantId: string; id: string },
    userId: string,
    proof: { authTime: number; amr: Amr[] } & Device,
  ): Promise<Session | undefined>;
  /**
   * Revokes a session of the user (docs/api.md 8.3) in one conditional write; false when
   * there is no such session of that user (unknown, or another user's). Idempotent: a
   * session already revoked stays revoked as it was, and counts as found.
   */
  revokeOfUser(family: { tenantId: string; id: string }, userId: string, now: number, reason: string): Promise<boolean>;
  /**
   * Ends every session of the user but `keepSessionId` (docs/api.md 8.3): the user's
   * sign-in generation moves on, only while it and the session generation are as read,
   * with the kept session moved along, in one transaction. False when the user changed
   * meanwhile or the kept session is not of the user's current generations: read again.
   */
  signOutOthers(user: Pick<User, 'tenantId' | 'id' | 'sessionEpoch' | 'signInEpoch'>, keepSessionId: string): Promise<boolean>;
  /**
   * Records a use of a browser session (docs/api.md 11.6) in one conditional write, which
   * is also the check: the cookie's secret hash is the session's, it is not revoked or
   * expired, and it was last seen after `idleSince`. The session as it is now, or undefined.
   */
  touchBrowser(family: { tenantId: string; id: string }, browserHash: string, now: number, idleSince: number): Promise<Session | undefined>;
}

/** What the authorizer reads of a session. */
export const sessionStateSchema = z.pick(sessionSchema, {
  tenantId: true,
  userId: true,
  expiresAt: true,
  revokedAt: true,
  authTime: true,
  createdAt: true,
  userEpoch: true,
  signInEpoch: true,
  amr: true,
  browserHash: true,
  seenAt: true,
  idp: true,
});
export type SessionState = z.output<typeof sessionStateSchema>;

/** What the authorizer reads of a user: never the password hash. */
export const ownerStateSchema = z.pick(userSchema, {
  id: true,
  tenantId: true,
  username: true,
  role: true,
  shopId: true,
  status: true,
  sessionEpoch: true,
  signInEpoch: true,
});
export type OwnerState = Pick<User, 'id' | 'tenantId' | 'username' | 'role' | 'shopId' | 'status' | 'sessionEpoch' | 'signInEpoch'>;

const toSession = (item: Record<string, unknown> | undefined) => parseRecord(sessionSchema, 'session', item);

export function dynamoSessionStore(dynamo: Dynamo, random: Random): SessionStore {
  const { doc, table } = dynamo;
  /** Revokes a session once (a revoked one keeps its first time and reason); false when it is not there, or not `owner`'s. */
  async function markRevoked(key: Key, now: number, reason: string, owner?: string): Promise<boolean> {
    try {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now), revokedReason = if_not_exists(revokedReason, :reason)',
          ConditionExpression: owner === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND userId = :user',
          ExpressionAttributeValues: { ':now': now, ':reason': reason, ...(owner === undefined ? {} : { ':user': owner }) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
  // What the liveness rule reads of a session and its user (lib/sessions/liveness.ts).
  const projection = {
    ProjectionExpression:
      'pk, sk, tenantId, userId, expiresAt, revokedAt, authTime, createdAt, userEpoch, signInEpoch, amr, browserHash, seenAt, idp, ' +
      'id, username, #role, shopId, #status, sessionEpoch',
    ExpressionAttributeNames: { '#role': 'role', '#status': 'status' },
  };

  /** The items of `wanted` by BatchGetItem (each read consistent, the two not isolated from a transaction), in order. */
  const readTogether = async (wanted: Key[]) => {
    let pending = wanted;
    const found: Record<string, unknown>[] = [];
    // BatchGetItem may leave keys unprocessed under load: asked again, a few times.
    for (let round = 0; pending.length > 0 && round < 3; round++) {
      const { Responses, UnprocessedKeys } = await doc.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ...projection } } }),
      );
      found.push(...(Responses?.[table] ?? []));
      pending = (UnprocessedKeys?.[table]?.Keys ?? []).map((key) => ({ pk: String(key.pk), sk: String(key.sk) }));
    }
    if (pending.length > 0) throw Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ThrottlingException' });
    return wanted.map((key) => found.find((candidate) => candidate.pk === key.pk && candidate.sk === key.sk));
  };

  /**
   * The items of `wanted` as of one moment (TransactGetItems), in order. DynamoDB cancels
   * the read while a transaction writes one of them (`TransactionConflict`): read again,
   * a few times, as the transaction takes milliseconds.
   */
  const readIsolated = async (wanted: Key[]) => {
    for (let round = 0; ; round++) {
      try {
        const { Responses } = await doc.send(
          new TransactGetCommand({ TransactItems: wanted.map((Key) => ({ Get: { TableName: table, Key, ...projection } })) }),
        );
        return wanted.map((_, index) => Responses?.[index]?.Item);
      } catch (error) {
        if (round >= 2 || !cancellationCodes(error)?.includes('TransactionConflict')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** round));
      }
    }
  };

  return {
    async create(session) {
      const { written } = await writeOnce(dynamo, random, {
        put: {
          Item: {
            ...keys.session(session.tenantId, session.id),
            ...keys.ownedBy(session.tenantId, session.userId, 'SESSION', session.createdAt, session.id),
            ...session,
            [TTL_ATTRIBUTE]: session.expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
        alongside: [sessionStarted(table, session)],
      });
      if (!written) throw new Error('Session id collision');
    },

    rotate: dynamoFamilyRotation(dynamo, random, { key: (ref) => keys.session(ref.tenantId, ref.id), parse: toSession }),

    revoke: ({ tenantId, id }, now, reason) => markRevoked(keys.session(tenantId, id), now, reason),

    async find(tenantId, sessionId) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.session(tenantId, sessionId), ConsistentRead: true }));
      return toSession(Item);
    },

    async findWithOwner(tenantId, sessionId, userId, options = {}) {
      const sessionKey = keys.session(tenantId, sessionId);
      const userKey = keys.user(tenantId, userId);
      const [session, user] = options.isolated ? await readIsolated([sessionKey, userKey]) : await readTogether([sessionKey, userKey]);
      return { session: parseRecord(sessionStateSchema, 'session', session), user: parseRecord(ownerStateSchema, 'user', user) };
    },

    listByUser: (tenantId, userId) => listOwned(dynamo, { tenantId, userId, kind: 'SESSION' }, toSession),

    async reauthenticate({ tenantId, id }, userId, { authTime, amr, ...device }) {
      // Setting the same values again is harmless, so an SDK retry after a lost answer is too.
      const recorded = deviceUpdate(device);
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.session(tenantId, id),
            UpdateExpression: `SET authTime = :authTime, amr = :amr${recorded.set}`,
            ConditionExpression: 'userId = :user AND attribute_not_exists(revokedAt) AND expiresAt > :authTime',
            ExpressionAttributeValues: { ':authTime': authTime, ':amr': amr, ':user': userId, ...recorded.values },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toSession(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    // The owner is part of the condition: no read decides, and another user's session is not found.
    revokeOfUser: ({ tenantId, id }, userId, now, reason) => markRevoked(keys.session(tenantId, id), now, reason, userId),

    signOutOthers: (user, keepSessionId) => transactOnce(dynamo, random, signOutOthersItems(table, user, keepSessionId)),

    async touchBrowser({ tenantId, id }, browserHash, now, idleSince) {
      // Setting the same time again is harmless, so an SDK retry after a lost answer is too.
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: keys.session(tenantId, id),
            UpdateExpression: 'SET seenAt = :now',
            ConditionExpression: 'browserHash = :hash AND attribute_not_exists(revokedAt) AND expiresAt > :now AND seenAt > :idleSince',
            ExpressionAttributeValues: { ':now': now, ':hash': browserHash, ':idleSince': idleSince },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toSession(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },
  };
}

/**
 * The transaction of "sign out my other sessions": the user's sign-in generation moves on
 * (only if both of its generations are as read), and the kept session, if it is the
 * user's, not revoked and of both current generations, moves with it.
 */
function signOutOthersItems(
  table: string,
  user: Pick<User, 'tenantId' | 'id' | 'sessionEpoch' | 'signInEpoch'>,
  keepSessionId: string,
): TransactItems {
  const epoch = epochOf(user);
  const current = signInEpochOf(user);
  // An absent generation is generation 0.
  const is = (name: string, value: number, placeholder: string) =>
    value === 0 ? `(attribute_not_exists(${name}) OR ${name} = ${placeholder})` : `${name} = ${placeholder}`;
  return [
    {
      Update: {
        TableName: table,
        Key: keys.user(user.tenantId, user.id),
        UpdateExpression: 'SET signInEpoch = :next',
        ConditionExpression: `attribute_exists(pk) AND ${is('sessionEpoch', epoch, ':epoch')} AND ${is('signInEpoch', current, ':current')}`,
        ExpressionAttributeValues: { ':next': current + 1, ':epoch': epoch, ':current': current },
      },
    },
    {
      Update: {
        TableName: table,
        Key: keys.session(user.tenantId, keepSessionId),
        UpdateExpression: 'SET signInEpoch = :next',
        ConditionExpression: `userId = :user AND attribute_not_exists(revokedAt) AND ${is('userEpoch', epoch, ':epoch')} AND ${is('signInEpoch', current, ':current')}`,
        ExpressionAttributeValues: { ':next': current + 1, ':user': user.id, ':epoch': epoch, ':current': current },
      },
    },
  ];
}
