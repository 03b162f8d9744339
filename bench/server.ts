/**
 * The API under test: the adapter (bench/adapter.ts) in front of the bundles in
 * BENCH_FUNCTIONS_DIR, routed as serverless.yml says, on 127.0.0.1 and a free port.
 * Started by bench/main.ts on CPU 0; reports its port over IPC.
 */
import { readFileSync } from 'node:fs';
import { createAdapter, httpServer, routesFromServerlessYml } from './adapter';

async function main() {
  const functionsDir = process.env.BENCH_FUNCTIONS_DIR;
  if (!functionsDir) throw new Error('BENCH_FUNCTIONS_DIR is not set');
  const table = routesFromServerlessYml(readFileSync('serverless.yml', 'utf8'));
  const adapter = await createAdapter(functionsDir, table);
  const server = httpServer(adapter);
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.send?.({
      port,
      routes: adapter.routes.map((route) => `${route.method} ${route.path}${route.authorizer ? ' (authorizer)' : ''} -> ${route.bundle}`),
      missing: adapter.missing.map((route) => `${route.method} ${route.path} -> ${route.bundle}`),
    });
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`server: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
