import type { AuditActor } from '../audit/events';
import type { Deps } from '../deps';
import { newEvent, type PendingEvent } from '../events/event';
import type { ProfileChange, UserChange } from '../store/tenant-users';
import type { User } from './user';

type EventDeps = Pick<Deps, 'config' | 'clock' | 'random'>;

/** How a user came to be (docs/events.md, Users): `data.via` of `identity.user.created`. */
export type CreatedVia = 'registration' | 'admin' | 'invitation' | 'scim' | 'import' | 'federation';

/** `identity.user.created`, carried by the write that creates the user. */
export const userCreated = (deps: EventDeps, user: User, actor: AuditActor, via: CreatedVia): PendingEvent =>
  newEvent(deps, {
    tenantId: user.tenantId,
    type: 'identity.user.created',
    subject: user.id,
    actor,
    data: { username: user.username, role: user.role, shopId: user.shopId, via },
  });

/** Whether two attribute values differ (attributes of a SCIM profile are JSON). */
const differs = (before: unknown, after: unknown) => JSON.stringify(before ?? null) !== JSON.stringify(after ?? null);

/**
 * The events of a change of a user by an ADMIN or a SCIM client (docs/events.md, Users),
 * from the user as read: one per kind of thing that changed, all carried by the one write.
 * Disabling ends every session and grant of the user (`endedSessions: 'all'`). A change
 * that changes nothing has none.
 */
export function userChangeEvents(
  deps: EventDeps,
  actor: AuditActor,
  user: User,
  set: UserChange,
  profile: ProfileChange | undefined,
): PendingEvent[] {
  const event = (type: Parameters<typeof newEvent>[1]['type'], data: Parameters<typeof newEvent>[1]['data'] = {}) =>
    newEvent(deps, { tenantId: user.tenantId, type, subject: user.id, actor, data });
  const events: PendingEvent[] = [];
  const changed = Object.entries(profile ?? {})
    .filter(([name, value]) => name !== 'updatedAt' && differs(user[name as keyof User], value))
    .map(([name]) => name);
  if (changed.length > 0) events.push(event('identity.user.updated', { changed }));
  if (set.role !== undefined && set.role !== user.role)
    events.push(event('identity.user.role_changed', { role: set.role, previousRole: user.role }));
  if (set.shopId !== undefined && set.shopId !== user.shopId)
    events.push(event('identity.user.shops_changed', { shopId: set.shopId, previousShopId: user.shopId }));
  if (set.status === 'disabled' && user.status !== 'disabled') events.push(event('identity.user.disabled', { endedSessions: 'all' }));
  if (set.status === 'active' && user.status !== 'active') events.push(event('identity.user.enabled'));
  return events;
}
