import {
  DeleteCommand,
  type DocumentCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteItem,
  UpdateCommand,
} from '../store/commands';
import { cancellationCodes, type Dynamo } from '../store/dynamo';
import type { DocumentClient } from '../store/dynamo-client';
import { keys } from '../store/keys';
import { shardOf } from '../store/shards';
import { TTL_ATTRIBUTE } from '../store/table';
import type { CloudEvent, PendingEvent } from './event';

/**
 * How long a subject's outbox item outlives its last event. It holds only the events of
 * its last write and a counter; the counter (each event's `sequence`) starts again at 1
 * after a year without an event.
 */
export const OUTBOX_RETENTION_SECONDS = 366 * 24 * 3600;

/** A write that meets a concurrent transaction on an outbox item (two changes of one user at once) tries again, this often. */
const CONFLICT_ATTEMPTS = 4;

/** The pause before the next attempt of a write that met a concurrent transaction on an outbox item. */
const conflictPause = (attempt: number) => new Promise((done) => setTimeout(done, 10 * attempt + Math.random() * 20 * attempt));

/** Outbox items of a tenant's events without a subject (sign-ins of unknown usernames): spread, so that a flood of them meets no hot item. */
const SUBJECTLESS_SHARDS = 16;

/**
 * Where an event waits for the stream: its subject's outbox item; an event without a
 * subject waits in one of its tenant's subjectless items, chosen by its id.
 */
export const outboxKey = (event: Pick<PendingEvent, 'tenantid' | 'subject' | 'id'>) =>
  keys.events(event.tenantid, event.subject ?? `-${shardOf(event.id, SUBJECTLESS_SHARDS)}`);

/**
 * The outbox updates of a write's events (docs/events.md, How events leave): one per
 * subject, which replaces the item's `events` with this write's and adds their number
 * to its `seq`. DynamoDB Streams keep the records of one item in order, so the events
 * of one subject leave in the order of their writes; `seq` numbers them.
 */
export function outboxUpdates(table: string, events: PendingEvent[]): TransactWriteItem[] {
  const bySubject = new Map<string, PendingEvent[]>();
  for (const event of events) {
    const subject = JSON.stringify(outboxKey(event));
    bySubject.set(subject, [...(bySubject.get(subject) ?? []), event]);
  }
  return [...bySubject.values()].map((mine) => {
    const [first] = mine as [PendingEvent, ...PendingEvent[]];
    return {
      Update: {
        TableName: table,
        Key: outboxKey(first),
        UpdateExpression: 'SET #events = :events, #ttl = :ttl ADD #seq :count',
        ExpressionAttributeNames: { '#events': 'events', '#ttl': TTL_ATTRIBUTE, '#seq': 'seq' },
        ExpressionAttributeValues: {
          ':events': mine,
          ':ttl': Math.floor(Date.parse(first.time) / 1000) + OUTBOX_RETENTION_SECONDS,
          ':count': mine.length,
        },
      },
    };
  });
}

/**
 * The events an outbox item holds (its last write's), each with its place among its
 * subject's events: the item's `seq` counts them all, so the last has `seq`.
 */
export function eventsOfOutbox(item: Record<string, unknown>): CloudEvent[] {
  const events = Array.isArray(item.events) ? (item.events as PendingEvent[]) : [];
  const seq = Number(item.seq);
  return events.map((event, index) => ({ ...event, sequence: String(seq - events.length + 1 + index) }));
}

/** A write command as the items of a transaction, and how to answer it as the command would have been. */
interface AsTransaction {
  items: TransactWriteItem[];
  /** An update asked for the item after it: read back (consistently) once the transaction is written. */
  readBack?: { TableName: string | undefined; Key: Record<string, unknown> | undefined };
}

function asTransaction(command: DocumentCommand<unknown, unknown>): AsTransaction | undefined {
  if (command instanceof TransactWriteCommand) return { items: command.input.TransactItems ?? [] };
  if (command instanceof PutCommand || command instanceof DeleteCommand || command instanceof UpdateCommand) {
    const { ReturnValues, ...input } = command.input;
    const returns = ReturnValues !== undefined && ReturnValues !== 'NONE';
    if (command instanceof UpdateCommand) {
      if (returns && ReturnValues !== 'ALL_NEW' && ReturnValues !== 'UPDATED_NEW')
        throw new Error(`A write that carries events cannot answer ${ReturnValues}`);
      const update = input as typeof command.input;
      return {
        items: [{ Update: { ...update, UpdateExpression: update.UpdateExpression } }],
        ...(returns ? { readBack: { TableName: update.TableName, Key: update.Key } } : {}),
      };
    }
    if (returns) throw new Error(`A write that carries events cannot answer ${ReturnValues}`);
    return { items: [command instanceof PutCommand ? { Put: input as PutCommand['input'] } : { Delete: input as DeleteCommand['input'] }] };
  }
  return undefined;
}

/** The refusal a single write would have met: its condition failed, with the item it found (ALL_OLD). */
function conditionFailed(error: Error): Error {
  const [reason] = (error as Error & { CancellationReasons?: Array<{ Item?: Record<string, unknown> }> }).CancellationReasons ?? [];
  return Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    ...(reason?.Item ? { Item: reason.Item } : {}),
  });
}

/**
 * The table, with `events` carried by the next write sent through it: a put, update,
 * delete or transaction becomes one transaction with the outbox updates of the events
 * (docs/events.md, How events leave). The event exists if and only if the change does:
 * a write refused or failed leaves none, and no event is written on its own. Reads pass
 * through; writes after the one that carried them are sent as they are. A write cancelled
 * (its condition failed, or a concurrent transaction) was not written: the events go with
 * the next write, so a store that tries its change again carries them then.
 *
 * The write answers as it would have alone: a failed condition of a single write is a
 * `ConditionalCheckFailedException` with the item found, and an update that asked for the
 * item after it gets it read back (consistently) after the transaction. A transaction
 * that meets a concurrent change of the same subject's outbox is tried again.
 */
export function carryingEvents(dynamo: Dynamo, events: PendingEvent[]): Dynamo {
  if (events.length === 0) return dynamo;
  let carried = false;
  const send = async <Output>(command: DocumentCommand<unknown, Output>): Promise<Output> => {
    const write = carried ? undefined : asTransaction(command);
    if (!write) {
      if (!carried && command.operation === 'BatchWriteItem') throw new Error('A batch write cannot carry events');
      return dynamo.doc.send(command);
    }
    carried = true;
    const single = !(command instanceof TransactWriteCommand);
    const outbox = outboxUpdates(dynamo.table, events);
    for (let attempt = 1; ; attempt++) {
      try {
        await dynamo.doc.send(new TransactWriteCommand({ TransactItems: [...write.items, ...outbox] }));
        break;
      } catch (error) {
        const reasons = cancellationCodes(error);
        if (!reasons || !(error instanceof Error)) throw error;
        const own = reasons.slice(0, write.items.length);
        const onOutbox = reasons.slice(write.items.length).includes('TransactionConflict');
        if (onOutbox && own.every((code) => code === 'None' || code === undefined) && attempt < CONFLICT_ATTEMPTS) {
          await conflictPause(attempt);
          continue;
        }
        // Cancelled, so not written: the events wait for the store's next write (a retry of the change).
        carried = false;
        if (single && own[0] === 'ConditionalCheckFailed') throw conditionFailed(error);
        throw error;
      }
    }
    if (!write.readBack) return command.answer({}) as Output;
    const { Item } = await dynamo.doc.send(new GetCommand({ ...write.readBack, ConsistentRead: true }));
    return { Attributes: Item } as Output;
  };
  const doc: DocumentClient = { ...dynamo.doc, send };
  return { ...dynamo, doc };
}

/** Writes events whose change is nothing else: a sign-in refused before any counter moved. */
export interface EventStore {
  write(events: PendingEvent[]): Promise<void>;
}

export function dynamoEventStore(dynamo: Dynamo): EventStore {
  return {
    // Refusals of one account at once (a burst of wrong passwords) meet on its outbox item:
    // tried again, as a carried write is, rather than answered 503.
    async write(events) {
      if (events.length === 0) return;
      const command = new TransactWriteCommand({ TransactItems: outboxUpdates(dynamo.table, events) });
      for (let attempt = 1; ; attempt++) {
        try {
          await dynamo.doc.send(command);
          return;
        } catch (error) {
          if (attempt >= CONFLICT_ATTEMPTS || !cancellationCodes(error)?.includes('TransactionConflict')) throw error;
          await conflictPause(attempt);
        }
      }
    },
  };
}
