import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { shardOf } from '../store/shards';
import type { Identity } from '../tokens/access-token';
import {
  AUDIT_RETENTION_SECONDS,
  type AuditActor,
  type AuditDetails,
  type AuditEventType,
  auditDetailsSchema,
  auditText,
  safeDetails,
} from './events';

/** What recording an event needs; `source` is the request's (set by the HTTP chain, lib/http/handler.ts). */
export type AuditDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

/** An event to record (docs/api.md 9.8); the id, time and the request's source are added here. */
export interface NewAuditEvent {
  tenantId: string;
  type: AuditEventType;
  actor: AuditActor;
  targetUserId?: string | null | undefined;
  outcome: 'success' | 'failure';
  details?: AuditDetails | undefined;
}

/**
 * The one entry point of the audit trail: records an event of the tenant. It never
 * fails the operation that records it: a write that fails is logged
 * (`audit_event_lost`, with the event but no secret, counted by a metric) and the
 * operation goes on. Callers that must not add a round trip (login) start it alongside
 * their last write and await both.
 */
export async function recordEvent(deps: AuditDeps, event: NewAuditEvent): Promise<void> {
  const id = deps.random.id();
  const now = deps.clock.now();
  // Anonymous input (a username, a user agent) reaches the trail: no control character does.
  const details = auditDetailsSchema.safeParse(safeDetails(event.details ?? {}));
  const userAgent = deps.source?.userAgent;
  const stored = {
    id,
    time: new Date(now).toISOString(),
    type: event.type,
    actor: event.actor,
    targetUserId: event.targetUserId ?? null,
    ipAddress: deps.source?.ipAddress ?? null,
    userAgent: userAgent ? auditText(userAgent) : null,
    outcome: event.outcome,
    // Refused details are a bug of the caller: the event is kept without them.
    details: details.success ? details.data : {},
  };
  const { shards } = deps.config.audit;
  try {
    if (!details.success) deps.log.error('audit_details_refused', { auditType: event.type });
    await deps.store.audit.record(event.tenantId, stored, shardOf(id, shards), epochSeconds(deps.clock) + AUDIT_RETENTION_SECONDS);
  } catch (error) {
    deps.log.error('audit_event_lost', {
      tenantId: event.tenantId,
      auditType: event.type,
      auditId: id,
      targetUserId: stored.targetUserId,
      outcome: event.outcome,
      error,
    });
  }
}

/** The actor and target of something a signed-in user did to their own account. */
export const bySelf = (identity: Pick<Identity, 'tenantId' | 'userId'>) => ({
  tenantId: identity.tenantId,
  actor: { type: 'user' as const, id: identity.userId },
  targetUserId: identity.userId,
});

/** The actor of something an ADMIN did to a user of their tenant. */
export const byAdmin = (admin: Pick<Identity, 'tenantId' | 'userId'>, targetUserId: string | null = null) => ({
  tenantId: admin.tenantId,
  actor: { type: 'user' as const, id: admin.userId },
  targetUserId,
});

/** A SCIM client acting with one of its tenant's tokens (docs/api.md 13.3). */
export interface ScimCaller {
  tenantId: string;
  scimTokenId: string;
}

/** Who administers a tenant's users: an ADMIN of it, or a SCIM client with a token of it. */
export type TenantActor = Pick<Identity, 'tenantId' | 'userId'> | ScimCaller;

/** The actor of something an ADMIN or a SCIM client did to a user of their tenant. */
export const byActor = (actor: TenantActor, targetUserId: string | null = null) =>
  'scimTokenId' in actor
    ? { tenantId: actor.tenantId, actor: { type: 'scim' as const, id: actor.scimTokenId }, targetUserId }
    : byAdmin(actor, targetUserId);
