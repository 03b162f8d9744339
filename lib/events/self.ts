import type { Identity } from '../tokens/access-token';
import type { EventType } from './catalogue';
import { type EventValue, newEvent, type PendingEvent } from './event';

/**
 * The event of a change users made to their own account (docs/events.md, Sign-in and
 * credentials; Sessions and apps): its subject and its actor are the user, as `bySelf`
 * (lib/audit/record.ts) makes the audit event's.
 */
export function selfEvent(
  deps: Parameters<typeof newEvent>[0],
  account: Pick<Identity, 'tenantId' | 'userId'>,
  type: EventType,
  data: Record<string, EventValue> = {},
): PendingEvent {
  const { tenantId, userId } = account;
  return newEvent(deps, { tenantId, type, subject: userId, actor: { type: 'user', id: userId }, data });
}
