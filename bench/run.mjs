// `npm run bench`: builds the functions (scripts/build.mjs), bundles the benchmark
// (bench/*.ts) into bench/.work/, and runs it. The benchmark process itself, and so
// DynamoDB Local and the load generator it starts, runs on CPU 1; every server under
// test runs on CPU 0 (taskset, where it exists).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { build } from 'esbuild';

const run = (command, args) => {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
};

// Pinning needs two CPUs; bench/main.ts makes the same check for the servers.
const pin = cpus().length >= 2 && spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;

if (run(process.execPath, ['scripts/build.mjs']) !== 0) process.exit(1);

const entries = ['main', 'server', 'peer', 'cold-start', 'argon2-probe', 'overhead', 'cost-probe'];
for (const name of entries) {
  if (!readdirSync('bench').includes(`${name}.ts`)) throw new Error(`bench/${name}.ts is missing`);
}
await build({
  entryPoints: entries.map((name) => `bench/${name}.ts`),
  outdir: 'bench/.work/out',
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  packages: 'external',
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});

const main = ['bench/.work/out/main.mjs', ...process.argv.slice(2)];
const status = pin ? run('taskset', ['-c', '1', process.execPath, ...main]) : run(process.execPath, main);
process.exit(status);
