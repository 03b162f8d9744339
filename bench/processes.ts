/**
 * The processes the benchmark starts: each is pinned to a CPU where that is
 * possible, remembered by PID, and stopped by PID when the run ends however it ends.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

/** Servers under test run on CPU 0; this process, DynamoDB Local and autocannon on CPU 1. */
export const SERVER_CPU = 0;

/**
 * Whether processes can be pinned: taskset exists and the machine has two CPUs.
 * (Counted with os.cpus(): this process is itself pinned, so availableParallelism() says 1.)
 */
export const canPin = cpus().length >= 2 && spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;

/** The command line that runs `node args` on `cpu` (or unpinned). */
export function pinned(cpu: number, args: string[]): [string, string[]] {
  return canPin ? ['taskset', ['-c', String(cpu), process.execPath, ...args]] : [process.execPath, args];
}

const running = new Set<ChildProcess>();

/** Stops a child by its PID: SIGTERM, then SIGKILL after 5 s. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      running.delete(child);
      return done();
    }
    const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      running.delete(child);
      done();
    });
    process.kill(child.pid, 'SIGTERM');
  });
}

/** Stops every child still running (on the way out, also after a failure). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map(stopChild));
}

/**
 * Starts a Node server entry on CPU 0 with an IPC channel and waits for its first
 * message (its port). Its stdout goes to `logFd`; stderr passes through.
 */
export function startServer<T>(entry: string, env: NodeJS.ProcessEnv, logFd: number): Promise<{ child: ChildProcess; message: T }> {
  const [command, args] = pinned(SERVER_CPU, [entry]);
  const child = spawn(command, args, { env, stdio: ['ignore', logFd, 'inherit', 'ipc'] });
  running.add(child);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${entry} did not start within 30 s`)), 30_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      done({ child, message: message as T });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      running.delete(child);
      fail(new Error(`${entry} exited with code ${code} before it was ready`));
    });
  });
}

/** Runs a Node entry on CPU 0 to the end; returns its stdout. */
export function runPinned(entry: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; wallMs: number }> {
  const [command, args] = pinned(SERVER_CPU, [entry]);
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  running.add(child);
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => {
      running.delete(child);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) done({ stdout: Buffer.concat(chunks).toString('utf8'), wallMs });
      else fail(new Error(`${entry} exited with code ${code}`));
    });
  });
}

/** The JSON after `@@<tag> ` in a child's output (its other lines are the functions' logs). */
export function tagged<T>(stdout: string, tag: string): T {
  const line = stdout.split('\n').find((text) => text.startsWith(`@@${tag} `));
  if (!line) throw new Error(`no @@${tag} line in the output`);
  return JSON.parse(line.slice(tag.length + 3)) as T;
}
