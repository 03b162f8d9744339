/**
 * Load with autocannon: a warm-up, then the measured run. Latency is taken per
 * request with a sub-millisecond clock (autocannon's histogram keeps whole
 * milliseconds); requests per second count 2xx answers only.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

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
  /** Sees every answer (e.g. puts a rotated refresh token back in the pool). */
  onResponse?: (status: number, body: string, ticket: unknown) => void;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Answers other than 2xx, errors and timeouts: any of these makes the figure suspect. */
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function once(spec: LoadSpec, seconds: number, latencies: number[] | undefined) {
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
          if (latencies && status >= 200 && status < 300) latencies.push(performance.now() - (context.start as number));
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
  const started = performance.now();
  const result = await once(spec, spec.durationSeconds, latencies);
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count;
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    requests: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
  };
}
