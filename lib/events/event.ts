import type { AuditActor } from '../audit/events';
import type { Clock } from '../clock';
import type { Random } from '../crypto/random';
import type { EventType } from './catalogue';

/** A value an event's data may hold: identifiers, labels, counts, flags; never a secret. */
export type EventValue = string | number | boolean | null | string[];

/**
 * What the service publishes (docs/events.md): a CloudEvents 1.0 event in its JSON form.
 * `subject` is the user or client (or other resource) the change is about; `tenantid` and
 * `sequence` are extension attributes: the tenant, and the place of the event among its
 * subject's events (a decimal integer, growing by one), so a consumer can put events
 * that arrive out of order back in order.
 */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: EventType;
  time: string;
  subject?: string;
  tenantid: string;
  datacontenttype: 'application/json';
  sequence?: string;
  data: { actor: AuditActor } & Record<string, EventValue | AuditActor>;
}

/** An event of a change, before its write gives it a place (`sequence`) among its subject's events. */
export type PendingEvent = Omit<CloudEvent, 'sequence'>;

export interface NewEvent {
  tenantId: string;
  type: EventType;
  /** The user (or client, connection...) the change is about; null when there is none (a sign-in of an unknown username). */
  subject: string | null;
  actor: AuditActor;
  data?: Record<string, EventValue> | undefined;
}

/**
 * The event of a change, with its id and time drawn now; it is published only if the
 * write that carries it (lib/events/outbox.ts) succeeds. `source` is the service's issuer.
 */
export function newEvent(deps: { config: { issuer: string }; clock: Clock; random: Random }, event: NewEvent): PendingEvent {
  return {
    specversion: '1.0',
    id: deps.random.id(),
    source: deps.config.issuer,
    type: event.type,
    time: new Date(deps.clock.now()).toISOString(),
    ...(event.subject === null ? {} : { subject: event.subject }),
    tenantid: event.tenantId,
    datacontenttype: 'application/json',
    data: { ...event.data, actor: event.actor },
  };
}
