import { byAdmin } from '../audit/record';
import type { Deps } from '../deps';
import type { Identity } from '../tokens/access-token';
import type { EventType } from './catalogue';
import { type EventValue, newEvent, type PendingEvent } from './event';

/**
 * An event of a change an ADMIN made to their tenant or one of its resources (docs/events.md,
 * The tenant's resources): `subject` is the tenant, shop, client, invitation, token,
 * connection or domain changed; `data` never holds a secret.
 */
export const adminEvent = (
  deps: Pick<Deps, 'config' | 'clock' | 'random'>,
  admin: Pick<Identity, 'tenantId' | 'userId'>,
  type: EventType,
  subject: string,
  data: Record<string, EventValue> = {},
): PendingEvent => newEvent(deps, { tenantId: admin.tenantId, type, subject, actor: byAdmin(admin).actor, data });
