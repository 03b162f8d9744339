// `npm test [-- vitest arguments]`: the type checks and the test suite at once.
//
// The type checks (the project, then the client examples) take 17 s and 27 CPU-s from a
// fresh clone. Run before vitest, that was 17 s on every run; run beside it at the lowest
// priority, they take only the CPU the suite leaves idle (it waits on DynamoDB Local for
// part of its run) and end long before it. Their build info is kept in
// node_modules/.cache, so a later run checks only what changed (about 4 s when nothing did).
// The run fails if either fails; the type errors are printed as soon as they are known.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/** `tsc --noEmit` of a project (a tsconfig.json's directory), its build info kept under `name`. */
const typeCheckOf = (project, name) => [
  'node_modules/typescript/bin/tsc',
  ...['--noEmit', '-p', project, '--incremental', '--tsBuildInfoFile', `node_modules/.cache/tsc/${name}.tsbuildinfo`],
];
const typeChecks = [typeCheckOf('.', 'project'), typeCheckOf('clients/typescript/examples', 'examples')];

/** Runs `node args`, its output kept (not shown) unless `show`; resolves to its exit code and output. */
function run(args, { show = false, lowest = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: show ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    if (lowest && child.pid !== undefined) setPriority(child.pid, 19);
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function typeCheck() {
  for (const args of typeChecks) {
    const { code, output } = await run(args, { lowest: true });
    if (code !== 0) {
      process.stderr.write(`\nType check failed (tsc ${args.slice(1).join(' ')}):\n${output}\n`);
      return code;
    }
  }
  return 0;
}

const vitest = ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)];
const [types, tests] = await Promise.all([typeCheck(), run(vitest, { show: true })]);
if (types !== 0) process.stderr.write('\nThe tests ran, but the type check failed (above).\n');
process.exit(types !== 0 ? types : tests.code);
