/**
 * One cold start: this fresh process loads one bundle (BENCH_BUNDLE) and serves the
 * event in BENCH_EVENT_FILE with a Lambda context, as the runtime would on a cold
 * Lambda instance (require() for .cjs, import() for .mjs). Without BENCH_BUNDLE it does
 * nothing: the empty Node process a cold start is compared with (bench/cold-starts.ts
 * times both from spawn to exit). So that the two differ only by the bundle, it
 * imports nothing else up front. Prints JSON: load and first-invocation times in
 * milliseconds, and the time since the process started (Node's own boot included).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from './lambda-context';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

async function load(bundle: string): Promise<{ handler: Handler }> {
  if (bundle.endsWith('.mjs')) return (await import(pathToFileURL(bundle).href)) as { handler: Handler };
  return createRequire(import.meta.url)(bundle) as { handler: Handler };
}

async function main() {
  const bundle = process.env.BENCH_BUNDLE;
  if (!bundle) {
    process.stdout.write(`\n@@cold-start ${JSON.stringify({ empty: true, sinceProcessStartMs: performance.now() })}\n`);
    return;
  }
  const eventFile = process.env.BENCH_EVENT_FILE;
  if (!eventFile) throw new Error('BENCH_EVENT_FILE must be set with BENCH_BUNDLE');
  const event: unknown = JSON.parse(readFileSync(eventFile, 'utf8'));

  // With --profile, the first cold start of each bundle is CPU-profiled (bench/.work/profiles/cold-*.cpuprofile).
  const profileFile = process.env.BENCH_PROFILE_FILE;
  const session = profileFile ? new (await import('node:inspector/promises')).Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }

  const start = performance.now();
  const module = await load(bundle);
  const loaded = performance.now();
  const result = (await module.handler(event, lambdaContext(basename(bundle).replace(/\.[cm]?js$/, '')))) as
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
        // Peak resident memory of the process, load and first invocation included (bench/cost.ts sizes memory by it).
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
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
