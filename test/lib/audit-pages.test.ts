import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../lib/audit/events';
import { type AuditPosition, dynamoAuditStore } from '../../lib/store/audit';
import { uniqueTenant } from '../helpers/deps';
import { localDynamo } from '../helpers/local-dynamo';

/**
 * A page of the audit trail merges the tenant's write partitions (docs/api.md 9.8):
 * without a type filter each partition first reads twice its share of the page, and only
 * a partition that may still hold one of the page's events reads on. Counted here on a
 * client that tallies every query and the items it read.
 */
function countingStore() {
  const dynamo = localDynamo();
  const tally = { queries: 0, items: 0 };
  dynamo.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'QueryCommand') {
        tally.queries += 1;
        tally.items += Array.isArray(result.output.Items) ? result.output.Items.length : 0;
      }
      return result;
    },
    { step: 'deserialize', name: 'countAuditReads' },
  );
  return { store: dynamoAuditStore(dynamo), tally, reset: () => Object.assign(tally, { queries: 0, items: 0 }) };
}

const START = Date.parse('2026-06-01T00:00:00.000Z');
const EXPIRES = Math.floor(START / 1000) + 400 * 24 * 3600;

/**
 * `count` events, one a millisecond (two in the same one now and then: the id orders them),
 * in the partitions `shardOf` gives; their ids newest first, as the trail orders them.
 */
async function record(tenantId: string, count: number, shardOf: (i: number) => number): Promise<string[]> {
  const { store } = countingStore();
  const recorded: AuditEvent[] = [];
  for (let i = 0; i < count; i++) {
    const event: AuditEvent = {
      id: randomUUID(),
      time: new Date(START + Math.floor(i * 0.8)).toISOString(),
      type: 'login_failed',
      actor: { type: 'system', id: null },
      targetUserId: null,
      ipAddress: null,
      userAgent: null,
      outcome: 'failure',
      details: {},
    };
    await store.record(tenantId, event, shardOf(i), EXPIRES);
    recorded.push(event);
  }
  const position = (event: AuditEvent) => `${Date.parse(event.time)}#${event.id}`;
  return recorded.sort((a, b) => (position(a) < position(b) ? 1 : -1)).map((event) => event.id);
}

/** Every page of `limit`, followed to the end: the ids, and the queries of each page. */
async function walk(tenantId: string, shards: number, limit: number) {
  const { store, tally, reset } = countingStore();
  const ids: string[] = [];
  const queries: number[] = [];
  let before: AuditPosition | undefined;
  do {
    reset();
    const page = await store.list(tenantId, { shards, limit, before });
    ids.push(...page.events.map((event) => event.id));
    queries.push(tally.queries);
    if (page.next !== undefined) expect(page.events).toHaveLength(limit);
    before = page.next;
  } while (before !== undefined);
  return { ids, queries };
}

describe('audit pages over write partitions (docs/api.md 9.8)', () => {
  it('reads about twice each partition’s share for a page, where it read a page of each', async () => {
    const tenantId = uniqueTenant('audit-share');
    const newestFirst = await record(tenantId, 400, () => Math.floor(Math.random() * 8));
    const { store, tally, reset } = countingStore();
    for (const limit of [25, 50]) {
      reset();
      const page = await store.list(tenantId, { shards: 8, limit });
      expect(page.events.map((event) => event.id)).toEqual(newestFirst.slice(0, limit));
      // A page of each partition read about 8 × limit; the first round reads 2 × limit, a second now and then.
      expect(tally.items).toBeLessThanOrEqual(5 * limit);
      expect(tally.queries).toBeLessThanOrEqual(16);
      const after = await store.list(tenantId, { shards: 8, limit, before: page.next });
      expect(after.events.map((event) => event.id)).toEqual(newestFirst.slice(limit, 2 * limit));
    }
  });

  it('fills the page in a second round when one partition holds most of the newest events, reading only that one', async () => {
    const tenantId = uniqueTenant('audit-skew');
    // The newest 60 are all in partition 0, the older 40 spread over the others.
    const newestFirst = await record(tenantId, 100, (i) => (i >= 40 ? 0 : 1 + (i % 7)));
    const { store, tally } = countingStore();
    const page = await store.list(tenantId, { shards: 8, limit: 50 });
    expect(page.events.map((event) => event.id)).toEqual(newestFirst.slice(0, 50));
    expect(tally.queries).toBe(8 + 1);
    expect((await walk(tenantId, 8, 50)).ids).toEqual(newestFirst);
  });

  it.each([1, 8, 16, 64])('answers every event once, newest first, in full pages, over %i partitions', async (shards) => {
    const tenantId = uniqueTenant(`audit-${shards}`);
    const newestFirst = await record(tenantId, 90, (i) => (i * 7) % shards);
    for (const limit of [5, 50]) {
      const { ids, queries } = await walk(tenantId, shards, limit);
      expect(ids).toEqual(newestFirst);
      // Two rounds at most without a type filter: a query of each partition, then of those that may hold the page's.
      expect(Math.max(...queries)).toBeLessThanOrEqual(2 * shards);
    }
  });
});
