import type { Random } from '../crypto/random';
import { ROLES, type Role, type User } from '../users/user';
import * as z from '../zod';
import { GetCommand, TransactWriteCommand, type TransactWriteItem } from './commands';
import { cancellationCodes, type Dynamo } from './dynamo';
import { type IndexPageQuery, readIndexPage } from './index-page';
import { type IndexPosition, keys } from './keys';
import { parseRecord } from './records';
import type { ConsumedWith, CreateUserResult, UserStore } from './users';
import { transactOnceOrReasons } from './write-once';

/** An invitation (docs/api.md 13.1). The token is kept only as its hash. */
export const invitationSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  /** As the ADMIN typed it, trimmed and lower-cased. */
  email: z.string(),
  role: z.enum(ROLES),
  shopId: z.string(),
  /** The username the acceptance page suggests. */
  username: z.optional(z.string()),
  status: z.enum(['pending', 'accepted', 'revoked']),
  tokenHash: z.string(),
  /** Epoch seconds. */
  expiresAt: z.number(),
  /** ISO 8601. */
  createdAt: z.string(),
  /** The ADMIN or MANAGER who invited. */
  createdBy: z.string(),
  /** The account the acceptance created. */
  acceptedUserId: z.optional(z.string()),
});
export type Invitation = z.output<typeof invitationSchema>;

export type InvitationWrite = 'written' | 'pending_elsewhere' | 'not_pending';

/** Where a page of a tenant's invitations starts: after this invitation of the index (docs/api.md 13.1). */
export type InvitationPosition = IndexPosition;

/**
 * Which invitations a page lists, in the stored terms: a status (for a pending one, also
 * whether it is `past` its `expiresAt` at `now`), and the roles left out (what a MANAGER
 * may not see).
 */
export type InvitationFilter = (
  | { status?: 'accepted' | 'revoked' | undefined }
  | { status: 'pending'; expiry?: { now: number; past: boolean } | undefined }
) & { withoutRoles?: readonly Role[] | undefined };

export interface InvitationStore {
  /**
   * Stores a new invitation and makes it its address's pending one, in one transaction:
   * `pending_elsewhere` when the address has another pending invitation that has not expired.
   */
  create(invitation: Invitation, now: number): Promise<InvitationWrite>;
  find(tenantId: string, id: string): Promise<Invitation | undefined>;
  /**
   * A page of the tenant's invitations, newest first, at most `limit` of them, after
   * `after`; `next` when there may be more. The filter is applied by DynamoDB after its
   * limit, so a page reads on until it is full, a few queries at most (then `next` goes on).
   */
  list(
    tenantId: string,
    options: InvitationFilter & { limit: number; after?: InvitationPosition | undefined },
  ): Promise<{ invitations: Invitation[]; next?: InvitationPosition }>;
  /**
   * A new token and expiry for a pending invitation (its old link dies), which stays its
   * address's pending one: `not_pending` when it was accepted or revoked meanwhile,
   * `pending_elsewhere` when the address has another pending invitation now.
   */
  renew(invitation: Invitation, tokenHash: string, expiresAt: number, now: number): Promise<InvitationWrite>;
  /**
   * Undoes a renewal whose email could not be sent: the invitation's token and expiry (and
   * its address record's expiry) become those of `previous` again, so its old link works,
   * if it still has `renewedHash` (not accepted, revoked or renewed again meanwhile).
   */
  restore(previous: Invitation, renewedHash: string): Promise<void>;
  /** Revokes a pending invitation: `not_pending` when it is not pending (anymore). */
  revoke(invitation: Invitation): Promise<InvitationWrite>;
  /**
   * Accepts the invitation: creates its user (UserStore.create) in one transaction with the
   * invitation marked accepted by that user, if it is still pending, unexpired and of this
   * token (`refused` otherwise), and its address freed.
   */
  accept(invitation: Invitation, tokenHash: string, user: User, now: number): Promise<CreateUserResult>;
}

type Item = Record<string, unknown>;

/** An update that sets every attribute of `values` (names and values by position, so any attribute name is safe). */
function setAll(values: Item): {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Item;
} {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  return {
    UpdateExpression: `SET ${entries.map((_, index) => `#a${index} = :a${index}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name], index) => [`#a${index}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], index) => [`:a${index}`, value])),
  };
}

/** The filter of a page of invitations as DynamoDB's filter expression, its names and values; none when it lets everything through. */
function filterOf(filter: InvitationFilter): IndexPageQuery<Invitation>['filter'] {
  const terms: string[] = [];
  const names: Record<string, string> = {};
  const values: Item = {};
  if (filter.status !== undefined) {
    terms.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = filter.status;
  }
  if (filter.status === 'pending' && filter.expiry) {
    terms.push(filter.expiry.past ? 'expiresAt <= :now' : 'expiresAt > :now');
    values[':now'] = filter.expiry.now;
  }
  const hidden = filter.withoutRoles ?? [];
  if (hidden.length > 0) {
    terms.push(`NOT (#role IN (${hidden.map((_, index) => `:role${index}`).join(', ')}))`);
    names['#role'] = 'role';
    hidden.forEach((role, index) => {
      values[`:role${index}`] = role;
    });
  }
  return terms.length === 0
    ? undefined
    : { FilterExpression: terms.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** How many times a transaction cancelled only by TransactionConflict is tried. */
const CONFLICT_TRIES = 3;

/** A refusal caused by concurrent transactions alone: no condition failed. */
const conflictOnly = (outcome: true | Array<string | undefined>): outcome is Array<string | undefined> =>
  outcome !== true && outcome.includes('TransactionConflict') && !outcome.includes('ConditionalCheckFailed');

export function dynamoInvitationStore(dynamo: Dynamo, random: Random, users: Pick<UserStore, 'create'>): InvitationStore {
  const { doc, table } = dynamo;
  const parse = (item: Item | undefined) => parseRecord(invitationSchema, 'invitation', item);

  /** The address's pending-invitation record, put if it is free: none, expired, or this invitation's own. */
  const claimAddress = (invitation: Invitation, expiresAt: number, now: number): TransactWriteItem => ({
    Put: {
      TableName: table,
      Item: { ...keys.pendingInvitation(invitation.tenantId, invitation.email), invitationId: invitation.id, expiresAt },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now OR invitationId = :id',
      ExpressionAttributeValues: { ':now': now, ':id': invitation.id },
    },
  });
  /** The address's pending-invitation record deleted, if it is this invitation's. */
  const freeAddress = (invitation: Invitation): TransactWriteItem => ({
    Delete: {
      TableName: table,
      Key: keys.pendingInvitation(invitation.tenantId, invitation.email),
      ConditionExpression: 'attribute_not_exists(pk) OR invitationId = :id',
      ExpressionAttributeValues: { ':id': invitation.id },
    },
  });
  /**
   * transactOnceOrReasons, tried again while it is cancelled only by a concurrent
   * transaction on one of its items (TransactionConflict, no condition failed): such a
   * cancellation says nothing about the invitation, and a second try meets the other
   * transaction's result (a failed condition or a free path).
   */
  const transactRetryingConflicts = async (items: TransactWriteItem[]): Promise<true | Array<string | undefined>> => {
    let outcome = await transactOnceOrReasons(dynamo, random, items);
    for (let retry = 1; retry < CONFLICT_TRIES && conflictOnly(outcome); retry++)
      outcome = await transactOnceOrReasons(dynamo, random, items);
    return outcome;
  };
  /** Why a transaction on a pending invitation was refused: it is no longer pending, or its address is taken. */
  const refusal = (reasons: Array<string | undefined>): InvitationWrite => {
    if (reasons[0] === 'ConditionalCheckFailed') return 'not_pending';
    if (reasons[1] === 'ConditionalCheckFailed') return 'pending_elsewhere';
    throw new Error(`invitation write kept conflicting: ${reasons.join(',')}`);
  };

  return {
    async create(invitation, now) {
      const stored = { ...invitation, ...keys.tenantInvitation(invitation.tenantId, invitation.createdAt, invitation.id) };
      const outcome = await transactRetryingConflicts([
        {
          Update: {
            TableName: table,
            Key: keys.invitation(invitation.tenantId, invitation.id),
            ...setAll(stored),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        claimAddress(invitation, invitation.expiresAt, now),
      ]);
      if (outcome === true) return 'written';
      // Still in conflict after the tries: another create of the address is under way.
      if (outcome[1] === 'ConditionalCheckFailed' || conflictOnly(outcome)) return 'pending_elsewhere';
      throw new Error('invitation creation refused');
    },

    async find(tenantId, id) {
      const { Item } = await doc.send(new GetCommand({ TableName: table, Key: keys.invitation(tenantId, id), ConsistentRead: true }));
      return parse(Item);
    },

    async list(tenantId, { limit, after, ...filter }) {
      const { entries, next } = await readIndexPage(dynamo, {
        kind: 'INVITATION',
        partition: keys.tenantInvitationsPartition(tenantId),
        start: after && { ...keys.invitation(tenantId, after.id), ...keys.tenantInvitation(tenantId, after.createdAt, after.id) },
        limit,
        newestFirst: true,
        filter: filterOf(filter),
        entryOf: parse,
      });
      return next ? { invitations: entries, next } : { invitations: entries };
    },

    async renew(invitation, tokenHash, expiresAt, now) {
      const outcome = await transactRetryingConflicts([
        {
          Update: {
            TableName: table,
            Key: keys.invitation(invitation.tenantId, invitation.id),
            UpdateExpression: 'SET tokenHash = :hash, expiresAt = :expires',
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':hash': tokenHash, ':expires': expiresAt, ':pending': 'pending' },
          },
        },
        claimAddress(invitation, expiresAt, now),
      ]);
      return outcome === true ? 'written' : refusal(outcome);
    },

    async restore(previous, renewedHash) {
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: table,
                  Key: keys.invitation(previous.tenantId, previous.id),
                  UpdateExpression: 'SET tokenHash = :hash, expiresAt = :expires',
                  ConditionExpression: '#status = :pending AND tokenHash = :renewed',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':hash': previous.tokenHash,
                    ':expires': previous.expiresAt,
                    ':pending': 'pending',
                    ':renewed': renewedHash,
                  },
                },
              },
              {
                Update: {
                  TableName: table,
                  Key: keys.pendingInvitation(previous.tenantId, previous.email),
                  UpdateExpression: 'SET expiresAt = :expires',
                  ConditionExpression: 'invitationId = :id',
                  ExpressionAttributeValues: { ':expires': previous.expiresAt, ':id': previous.id },
                },
              },
            ],
          }),
        );
      } catch (error) {
        // Accepted, revoked or renewed again meanwhile: that newer state stands.
        if (!cancellationCodes(error)?.includes('ConditionalCheckFailed')) throw error;
      }
    },

    async revoke(invitation) {
      const revoked: TransactWriteItem = {
        Update: {
          TableName: table,
          Key: keys.invitation(invitation.tenantId, invitation.id),
          UpdateExpression: 'SET #status = :revoked',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':pending': 'pending' },
        },
      };
      const outcome = await transactOnceOrReasons(dynamo, random, [revoked, freeAddress(invitation)]);
      if (outcome === true) return 'written';
      // Only the address refused: it expired and was invited again, so it is not this
      // invitation's to free; the status alone is revoked.
      if (outcome[0] !== 'ConditionalCheckFailed' && outcome[1] === 'ConditionalCheckFailed')
        return (await transactOnceOrReasons(dynamo, random, [revoked])) === true ? 'written' : 'not_pending';
      return 'not_pending';
    },

    accept(invitation, tokenHash, user, now) {
      const consuming: ConsumedWith = [
        {
          Update: {
            TableName: table,
            Key: keys.invitation(invitation.tenantId, invitation.id),
            UpdateExpression: 'SET #status = :accepted, acceptedUserId = :user',
            ConditionExpression: '#status = :pending AND tokenHash = :hash AND expiresAt > :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':accepted': 'accepted',
              ':user': user.id,
              ':pending': 'pending',
              ':hash': tokenHash,
              ':now': now,
            },
          },
        },
        freeAddress(invitation),
      ];
      return users.create(user, { createTenant: false, consuming });
    },
  };
}
