import { type AuditEvent, type AuditEventType, auditEventSchema } from '../audit/events';
import { PutCommand, QueryCommand } from './commands';
import type { Dynamo } from './dynamo';
import { keys } from './keys';
import { parseRecord } from './records';
import { OWNER_INDEX, TTL_ATTRIBUTE } from './table';

/** Where a listing of events starts (exclusive): a position of keys.auditPosition. */
export type AuditPosition = string;

export interface AuditQuery {
  /** The tenant's write partitions (docs/api.md 9.8); all are read. */
  shards: number;
  limit: number;
  before?: AuditPosition | undefined;
  /** Only events about this user: one partition of the owner index instead of every shard. */
  userId?: string | undefined;
  type?: AuditEventType | undefined;
}

/** The audit trail as stored: append-only, nothing here changes or deletes an event. */
export interface AuditStore {
  /**
   * Stores an event in write partition `shard` of its tenant, to be deleted by the TTL at
   * `expiresAt`. A plain put of a new id: the SDK's retry after a lost answer writes the same item again.
   */
  record(tenantId: string, event: AuditEvent, shard: number, expiresAt: number): Promise<void>;
  /** Up to `limit` events, newest first, older than `before`; `next` when there may be more. */
  list(tenantId: string, query: AuditQuery): Promise<{ events: AuditEvent[]; next?: AuditPosition }>;
}

/** Rounds of reads a page may take while a type filter leaves partitions' pages short (without one: two at most). */
const ROUNDS = 4;

interface Stream {
  pk: string;
  index: boolean;
  start?: Record<string, unknown> | undefined;
  done: boolean;
  /** The position of the last item read: everything newer in this stream has been read. */
  frontier?: string | undefined;
}

export function dynamoAuditStore(dynamo: Dynamo): AuditStore {
  const { doc, table } = dynamo;
  return {
    async record(tenantId, event, shard, expiresAt) {
      const time = Date.parse(event.time);
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            ...keys.auditEvent(tenantId, shard, time, event.id),
            ...(event.targetUserId === null ? {} : keys.auditOfUser(tenantId, event.targetUserId, time, event.id)),
            ...event,
            [TTL_ATTRIBUTE]: expiresAt,
          },
        }),
      );
    },

    /*
     * Every partition is read newest first from `before`, in parallel; their items merge
     * by position. An item may be answered only when no partition can still hold a newer
     * one: it is not older than every open partition's frontier. Without a type filter
     * the first round reads twice each partition's share of the page, which almost always
     * fills it; a partition that may still hold one of the newest `limit` (its frontier is
     * newer than the `limit`-th newest read) then reads a page, which settles it, so a
     * second round always fills the page. With a type filter (applied after DynamoDB's
     * limit) every open partition reads a page a round while the page is short, for a few
     * rounds, and the page ends at the frontier (`next`).
     */
    async list(tenantId, { shards, limit, before, userId, type }) {
      const streams: Stream[] =
        userId === undefined
          ? Array.from({ length: shards }, (_, shard) => ({ pk: keys.auditPartition(tenantId, shard), index: false, done: false }))
          : [{ pk: keys.auditUserPartition(tenantId, userId), index: true, done: false }];
      const read: Array<{ position: string; event: AuditEvent }> = [];
      const firstShare = type === undefined ? Math.min(limit, Math.ceil((2 * limit) / streams.length)) : limit;

      const readMore = (size: number) => async (stream: Stream) => {
        const sortKey = stream.index ? OWNER_INDEX.sortKey : 'sk';
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            ...(stream.index ? { IndexName: OWNER_INDEX.name } : {}),
            KeyConditionExpression: before === undefined ? '#pk = :pk' : '#pk = :pk AND #sk < :before',
            ...(type === undefined ? {} : { FilterExpression: '#type = :type' }),
            ExpressionAttributeNames: {
              '#pk': stream.index ? OWNER_INDEX.partitionKey : 'pk',
              ...(before === undefined ? {} : { '#sk': sortKey }),
              ...(type === undefined ? {} : { '#type': 'type' }),
            },
            ExpressionAttributeValues: {
              ':pk': stream.pk,
              ...(before === undefined ? {} : { ':before': before }),
              ...(type === undefined ? {} : { ':type': type }),
            },
            ScanIndexForward: false,
            Limit: size,
            ExclusiveStartKey: stream.start,
          }),
        );
        for (const item of page.Items ?? []) {
          const event = parseRecord(auditEventSchema, 'audit event', item);
          if (event) read.push({ position: String(item[sortKey]), event });
        }
        stream.start = page.LastEvaluatedKey;
        stream.done = stream.start === undefined;
        stream.frontier = stream.start === undefined ? undefined : String(stream.start[sortKey]);
      };

      /** The partitions a round reads: every open one, but after a first round without a filter only those that may hold one of the newest `limit`. */
      const toRead = (round: number) => {
        const open = streams.filter((stream) => !stream.done);
        if (type !== undefined || round === 1) return open;
        const newest = read.map((item) => item.position).sort((a, b) => (a < b ? 1 : -1))[limit - 1];
        return newest === undefined ? open : open.filter((stream) => (stream.frontier ?? '') > newest);
      };

      for (let round = 1; ; round++) {
        await Promise.all(toRead(round).map(readMore(round === 1 ? firstShare : limit)));
        const open = streams.filter((stream) => !stream.done);
        const boundary = open.reduce<string | undefined>(
          (highest, stream) => (highest === undefined || (stream.frontier ?? '') > highest ? stream.frontier : highest),
          undefined,
        );
        const ready = read
          .filter((item) => boundary === undefined || item.position >= boundary)
          .sort((a, b) => (a.position < b.position ? 1 : -1));
        if (ready.length < limit && open.length > 0 && round < ROUNDS) continue;
        const page = ready.slice(0, limit);
        const last = page.at(-1)?.position;
        const more = open.length > 0 || read.length > page.length;
        const next = page.length === limit ? last : open.length > 0 ? boundary : undefined;
        return more && next !== undefined ? { events: page.map((item) => item.event), next } : { events: page.map((item) => item.event) };
      }
    },
  };
}
