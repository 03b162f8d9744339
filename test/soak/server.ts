/**
 * The API under soak: bench/adapter.ts in front of the bundles in SOAK_FUNCTIONS_DIR,
 * routed as serverless.yml says, on 127.0.0.1 and a free port. Started by
 * test/soak/stack.ts as a child process (bundled by esbuild, run with --expose-gc) so
 * that its memory is its own: on `{ type: 'memory' }` over IPC it runs a full garbage
 * collection and answers with process.memoryUsage() and its CPU time so far.
 */
import { serveBundles } from '../../bench/adapter';

/** What the server answers to a memory request. */
export interface MemoryReport {
  type: 'memory';
  id: number;
  /** Whether a full GC ran first (node --expose-gc): heapUsed is then live data only. */
  collected: boolean;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  cpuMs: number;
}

async function main() {
  const functionsDir = process.env.SOAK_FUNCTIONS_DIR;
  if (!functionsDir) throw new Error('SOAK_FUNCTIONS_DIR is not set');
  const { adapter, port } = await serveBundles(functionsDir);
  process.send?.({ type: 'ready', port, routes: adapter.routes.length });

  const gc = (globalThis as { gc?: () => void }).gc;
  process.on('message', (message: { type?: string; id?: number }) => {
    if (message.type !== 'memory') return;
    gc?.();
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    const report: MemoryReport = {
      type: 'memory',
      id: message.id ?? 0,
      collected: gc !== undefined,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    process.send?.(report);
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`soak server: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
