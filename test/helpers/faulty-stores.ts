import { AsyncLocalStorage } from 'node:async_hooks';
import type { Stores } from '../../lib/deps';
import type { CodeDelivery } from '../../lib/mfa/delivery';
import type { Dynamo } from '../../lib/store/dynamo';

export type FaultMode = 'before' | 'after';

/**
 * A switch that makes one database call fail, as a network fault does: `before`, the
 * call never reaches the database; `after`, the write lands but the answer is lost.
 * Calls are counted from `reset()`; `arm(n, mode)` fails the n-th (1-based). Given the
 * calls of a clean run, `arm(n, mode, clean)` fails the call the n-th of those was (by name
 * and occurrence): calls made at once may start in another order from run to run.
 */
export interface FaultPlan {
  calls: string[];
  /**
   * The calls (numbered as `calls`) that sent DynamoDB a write: any command but GetItem,
   * BatchGetItem, Query, Scan and TransactGetItems. Known only where `faultyStores` was
   * given the stores' client to watch.
   */
  writers: Set<number>;
  reset(): void;
  arm(at: number, mode: FaultMode, clean?: readonly string[]): void;
  disarm(): void;
  /** Whether the armed fault has fired since `arm`. */
  fired(): boolean;
}

/** The armed fault: the call it fails, by number, or by name and occurrence (the first is 1). */
type Armed = { mode: FaultMode } & ({ at: number } | { name: string; occurrence: number });

export function faultPlan(): FaultPlan {
  let armed: Armed | undefined;
  let fired = false;
  const plan: FaultPlan = {
    calls: [],
    writers: new Set(),
    reset() {
      plan.calls = [];
      plan.writers = new Set();
    },
    arm(at, mode, clean) {
      plan.calls = [];
      plan.writers = new Set();
      const name = clean?.[at - 1];
      armed =
        clean === undefined || name === undefined
          ? { at, mode }
          : { mode, name, occurrence: clean.slice(0, at).filter((call) => call === name).length };
      fired = false;
    },
    disarm() {
      armed = undefined;
    },
    fired: () => fired,
  };
  /** Whether the call just counted (the last of `plan.calls`) is the armed one. */
  const hits = () => {
    if (armed === undefined) return false;
    if ('at' in armed) return plan.calls.length === armed.at;
    const name = armed.name;
    return plan.calls.at(-1) === name && plan.calls.filter((call) => call === name).length === armed.occurrence;
  };
  return Object.assign(plan, { armed: () => armed, hits, markFired: () => (fired = true) });
}

/** The error the AWS SDK gives when the connection drops (a transient fault: 503). */
export function connectionReset(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', name: 'Error' });
}

/** The commands that change nothing in the table. */
const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);

/**
 * The number of the store call a command is sent for. A store's own reads and writes run
 * inside its call; only reads are batched across calls (lib/store/read-together.ts).
 */
const currentCall = new AsyncLocalStorage<number>();

/** Store methods that return a part of another store's transaction (synchronous, no database call of their own). */
const TRANSACTION_PARTS = new Set(['linkWithNewUser']);

function wrap<T extends object>(target: T, name: string, plan: FaultPlan): T {
  const control = plan as FaultPlan & { armed: () => Armed | undefined; hits: () => boolean; markFired: () => void };
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      // A method that only builds an item of the caller's transaction calls no database.
      if (TRANSACTION_PARTS.has(String(property))) return value.bind(object);
      return async (...args: unknown[]) => {
        plan.calls.push(`${name}.${String(property)}`);
        const n = plan.calls.length;
        const armed = control.armed();
        const hit = armed !== undefined && control.hits();
        if (hit && armed.mode === 'before') {
          control.markFired();
          throw connectionReset();
        }
        const result = await currentCall.run(n, () => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args));
        if (hit && armed.mode === 'after') {
          control.markFired();
          throw connectionReset();
        }
        return result;
      };
    },
  });
}

/**
 * The stores (and the MFA delivery port) with every call counted and one call failing on
 * demand; given their DynamoDB client, also which calls write (`plan.writers`).
 */
export function faultyStores(
  stores: Stores,
  delivery: CodeDelivery,
  plan: FaultPlan,
  dynamo?: Dynamo,
): { stores: Stores; delivery: CodeDelivery } {
  dynamo?.doc.middlewareStack.add(
    (next, { commandName }) =>
      (args) => {
        const call = currentCall.getStore();
        if (call !== undefined && !READS.has(commandName)) plan.writers.add(call);
        return next(args);
      },
    { step: 'initialize', name: 'faultPlanWriters' },
  );
  const wrapped = Object.fromEntries(
    Object.entries(stores).map(([name, store]) => [name, wrap(store as object, name, plan)]),
  ) as unknown as Stores;
  // The stores whose next write carries events fail on the same plan, counted as one.
  wrapped.emitting = (events) => faultyStores(stores.emitting(events), delivery, plan).stores;
  return { stores: wrapped, delivery: wrap(delivery, 'mfaDelivery', plan) };
}
