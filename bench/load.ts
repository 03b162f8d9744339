/**
 * Load with autocannon: a warm-up, then the measured run. Latency is taken per
 * request with a sub-millisecond clock (autocannon's histogram keeps whole
 * milliseconds); requests per second count 2xx answers only.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** CPU seconds a process has used so far (all its threads), from /proc; undefined where there is none. */
function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th,
    // in clock ticks (USER_HZ, 100 on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has been busy (all CPUs, from /proc/stat); undefined where there is none. */
export function machineBusySeconds(): number | undefined {
  try {
    const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return Number.isFinite(total) ? (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / 100 : undefined;
  } catch {
    return undefined;
  }
}

/** The processes whose CPU use is reported with each run. */
export interface Watched {
  server?: number;
  database?: number;
}

export interface RequestShape {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSpec {
  url: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Builds each request (e.g. takes the next token from a pool); `ticket` comes back in `onResponse`. */
  next?: () => RequestShape & { ticket?: unknown };
  /** Whether a 2xx answer says what it should (e.g. `"active":true`); others count as `wrong`. */
  check?: (body: string) => boolean;
  /** Sees every answer (e.g. puts a rotated refresh token back in the pool). */
  onResponse?: (status: number, body: string, ticket: unknown) => void;
  watch?: Watched;
  /** Called around the measured run (not the warm-up), e.g. to profile the server. */
  around?: { before(): Promise<void>; after(): Promise<void> };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Answers other than 2xx, errors and timeouts: any of these makes the figure suspect. */
  non2xx: number;
  /** 2xx answers that failed the scenario's check. */
  wrong: number;
  errors: number;
  statusCodes: Record<string, number>;
  /**
   * Share of one CPU each process used during the measured run (100 = one core
   * busy), and the server's CPU time per answered request: who the bottleneck is.
   */
  cpu: {
    serverPercent?: number;
    databasePercent?: number;
    loadPercent: number;
    serverMsPerRequest?: number;
    /** CPU the rest of the machine used meanwhile (other people's processes): high means the figures are low. */
    otherPercent?: number;
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function once(spec: LoadSpec, seconds: number, latencies: number[] | undefined, wrong = { count: 0 }) {
  return autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: spec.method,
        path: spec.path,
        headers: { ...spec.headers },
        ...(spec.body !== undefined ? { body: spec.body } : {}),
        setupRequest: (request, context) => {
          const shaped = spec.next?.() ?? {};
          context.ticket = shaped.ticket;
          context.start = performance.now();
          return {
            ...request,
            ...(shaped.method ? { method: shaped.method } : {}),
            ...(shaped.path ? { path: shaped.path } : {}),
            ...(shaped.headers ? { headers: { ...request.headers, ...shaped.headers } } : {}),
            ...(shaped.body !== undefined ? { body: shaped.body } : {}),
          };
        },
        onResponse: (status, body, context) => {
          if (latencies && status >= 200 && status < 300) {
            latencies.push(performance.now() - (context.start as number));
            if (spec.check && !spec.check(body)) wrong.count++;
          }
          spec.onResponse?.(status, body, context.ticket);
        },
      },
    ],
  });
}

/** Warm-up run (discarded), then the measured run. */
export async function measure(spec: LoadSpec): Promise<LoadResult> {
  if (spec.warmupSeconds > 0) await once(spec, spec.warmupSeconds, undefined);
  const latencies: number[] = [];
  const wrong = { count: 0 };
  const watched = [spec.watch?.server, spec.watch?.database];
  await spec.around?.before();
  const cpuBefore = watched.map((pid) => (pid === undefined ? undefined : cpuSeconds(pid)));
  const loadBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  const result = await once(spec, spec.durationSeconds, latencies, wrong);
  const seconds = (performance.now() - started) / 1000;
  const [serverCpu, databaseCpu] = watched.map((pid, i) => {
    const before = cpuBefore[i];
    const after = pid === undefined ? undefined : cpuSeconds(pid);
    return before === undefined || after === undefined ? undefined : after - before;
  });
  const loadUsage = process.cpuUsage(loadBefore);
  const machineAfter = machineBusySeconds();
  await spec.around?.after();
  const loadCpu = (loadUsage.user + loadUsage.system) / 1e6;
  const otherCpu =
    machineBefore === undefined || machineAfter === undefined
      ? undefined
      : Math.max(0, machineAfter - machineBefore - loadCpu - (serverCpu ?? 0) - (databaseCpu ?? 0));
  const percent = (cpu: number | undefined) => (cpu === undefined ? undefined : (100 * cpu) / seconds);
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count;
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    requests: latencies.length,
    non2xx: result.non2xx,
    wrong: wrong.count,
    errors: result.errors + result.timeouts,
    statusCodes,
    cpu: {
      serverPercent: percent(serverCpu),
      databasePercent: percent(databaseCpu),
      loadPercent: (100 * loadCpu) / seconds,
      serverMsPerRequest: serverCpu === undefined || latencies.length === 0 ? undefined : (1000 * serverCpu) / latencies.length,
      otherPercent: percent(otherCpu),
    },
  };
}
