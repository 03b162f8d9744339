/**
 * The API under test: the adapter (bench/adapter.ts) in front of the bundles in
 * BENCH_FUNCTIONS_DIR, routed as serverless.yml says, on 127.0.0.1 and a free port.
 * Started by bench/main.ts on CPU 0; reports its port over IPC.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { serveBundles } from './adapter';

/**
 * With `npm run bench -- --profile`, bench/main.ts asks for a CPU profile of each
 * measured run: written to bench/.work/profiles/<scenario>.cpuprofile (open it in
 * Chrome DevTools, or summarise it with bench/profile-summary.mjs).
 */
function profiler() {
  const session = new Session();
  session.connect();
  return async (message: { profile?: 'start' | 'stop'; name?: string }) => {
    if (message.profile === 'start') {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      process.send?.({ profiling: true });
    } else if (message.profile === 'stop') {
      const { profile } = await session.post('Profiler.stop');
      const dir = join('bench', '.work', 'profiles');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${(message.name ?? 'run').replace(/[^A-Za-z0-9_-]+/g, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      process.send?.({ profiled: file });
    }
  };
}

async function main() {
  const functionsDir = process.env.BENCH_FUNCTIONS_DIR;
  if (!functionsDir) throw new Error('BENCH_FUNCTIONS_DIR is not set');
  const { adapter, table, port } = await serveBundles(functionsDir);
  process.send?.({
    port,
    routes: adapter.routes.map((route) => `${route.method} ${route.path}${route.authorizer ? ' (authorizer)' : ''} -> ${route.bundle}`),
    missing: adapter.missing.map((route) => `${route.method} ${route.path} -> ${route.bundle}`),
    fromContract: table.fromContract.map((route) => `${route.method} ${route.path} -> ${route.bundle}`),
  });
  const profile = profiler();
  process.on('message', (message: { profile?: 'start' | 'stop'; name?: string }) => void profile(message));
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`server: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
