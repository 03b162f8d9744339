import type { Deps } from '../deps';
import type { CloudEvent } from '../events/event';
import type { DeliveryKind } from './kinds';

export type { DeliveryKind } from './kinds';

/**
 * One delivery, from its first attempt to its last: the same `id` at every attempt (a
 * webhook's `webhook-id`). Its request is made anew at each attempt (signed then, to
 * the target's URL as it is then), from `payload`.
 */
export interface Delivery {
  id: string;
  kind: DeliveryKind;
  tenantId: string;
  /** The webhook's id, or the client's. */
  target: string;
  /** A webhook's event; a logout's `{ sub, sid }`. Never a secret. */
  payload: Record<string, unknown>;
  /** 1 for the first attempt. */
  attempt: number;
  /** Epoch milliseconds of the first attempt: retries end 24 hours after it. */
  firstAttemptAt: number;
}

/** The request of one attempt. */
export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Makes the request of an attempt of one kind; undefined: its target is gone (deleted, or no longer subscribed) and the delivery ends. */
export type RequestMaker = (deps: Deps, delivery: Delivery) => Promise<OutgoingRequest | undefined>;

/** Which deliveries published events call for (a tenant's webhooks subscribed to them; the clients holding sessions they end). */
export type DeliveryPlanner = (deps: Deps, events: CloudEvent[]) => Promise<Delivery[]>;

/** Where deliveries wait for their attempts: SQS in AWS, the local runner under `npm start` and in tests. */
export interface DeliveryQueue {
  enqueue(deliveries: Delivery[]): Promise<void>;
}
