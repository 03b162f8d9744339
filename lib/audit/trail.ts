import { invalidCursor } from '../admin/page-cursor';
import type { Deps } from '../deps';
import type { Identity } from '../tokens/access-token';
import * as z from '../zod';
import type { AuditEvent, AuditEventType } from './events';

export interface AuditListQuery {
  limit: number;
  cursor?: string | undefined;
  userId?: string | undefined;
  type?: AuditEventType | undefined;
}

/*
 * The cursor is the position of the page's oldest event (one position serves every
 * shard: positions order all of a tenant's events), with the tenant and the filters it
 * was issued for. The query is rebuilt from the caller's tenant, so no cursor reaches
 * another tenant's events; one of another tenant, of other filters, or altered, is refused.
 */
const cursorSchema = z.strictObject({
  t: z.string(),
  p: z.string().check(z.regex(/^EVENT#\d{15}#[A-Za-z0-9-]{1,64}$/)),
  u: z.optional(z.string()),
  y: z.optional(z.string()),
});

function encodeCursor(tenantId: string, position: string, query: AuditListQuery): string {
  return Buffer.from(JSON.stringify({ t: tenantId, p: position, u: query.userId, y: query.type })).toString('base64url');
}

function decodeCursor(tenantId: string, query: AuditListQuery & { cursor: string }): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success) throw invalidCursor();
  const { t, p, u, y } = parsed.data;
  if (t !== tenantId || u !== query.userId || y !== query.type) throw invalidCursor();
  return p;
}

/**
 * docs/api.md 9.8: a page of the tenant's audit events, newest first; with `userId`, the
 * events about that user (one partition of the owner index), with `type`, of that type.
 */
export async function listEvents(
  deps: Pick<Deps, 'config' | 'store'>,
  admin: Identity,
  query: AuditListQuery,
): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
  const before = query.cursor === undefined ? undefined : decodeCursor(admin.tenantId, { ...query, cursor: query.cursor });
  const page = await deps.store.audit.list(admin.tenantId, {
    shards: deps.config.audit.shards,
    limit: query.limit,
    before,
    userId: query.userId,
    type: query.type,
  });
  return { events: page.events, nextCursor: page.next === undefined ? null : encodeCursor(admin.tenantId, page.next, query) };
}
