/**
 * One cold start: this fresh process loads one bundle (BENCH_BUNDLE) and serves the
 * event in BENCH_EVENT_FILE with a Lambda context, as the runtime would on a cold
 * Lambda instance (import() for .mjs, require() for .cjs). Prints JSON: load and first-invocation times in milliseconds, and
 * the time since the process started (Node's own boot included).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { lambdaContext, loadBundle } from './adapter';

async function main() {
  const bundle = process.env.BENCH_BUNDLE;
  const eventFile = process.env.BENCH_EVENT_FILE;
  if (!bundle || !eventFile) throw new Error('BENCH_BUNDLE and BENCH_EVENT_FILE must be set');
  const event: unknown = JSON.parse(readFileSync(eventFile, 'utf8'));
  const context = lambdaContext(basename(bundle).replace(/\.[cm]?js$/, ''));

  // With --profile, the first cold start of each bundle is CPU-profiled (bench/.work/profiles/cold-*.cpuprofile).
  const profileFile = process.env.BENCH_PROFILE_FILE;
  const session = profileFile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }

  const start = performance.now();
  const module = await loadBundle<{ handler: (event: unknown, context: unknown) => Promise<unknown> }>(bundle);
  const loaded = performance.now();
  const result = (await module.handler(event, context)) as
    | { statusCode?: number; isAuthorized?: boolean; context?: Record<string, unknown> }
    | undefined;
  const served = performance.now();
  if (session && profileFile) writeFileSync(profileFile, JSON.stringify((await session.post('Profiler.stop')).profile));

  const outcome =
    result?.statusCode ??
    (result?.isAuthorized === undefined ? 200 : Object.keys(result.context ?? {}).length > 0 ? 'context' : 'no context');
  process.stdout.write(
    '\n@@cold-start ' +
      JSON.stringify({
        loadMs: loaded - start,
        invokeMs: served - loaded,
        firstInvocationMs: served - start,
        sinceProcessStartMs: served,
        outcome,
      }) +
      '\n',
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`cold-start: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
