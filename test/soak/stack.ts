/**
 * What the soak runs against: this commit's bundles (built with `npm run build`, then
 * copied so that a rebuild by someone else cannot change them mid-run), an in-memory
 * DynamoDB Local with the table, and test/soak/server.ts in a child process of its own
 * whose memory can be sampled. Everything started here is stopped by PID in `stop`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { bundleFiles, localFunctionEnv } from '../../bench/adapter';
import { ensureKeysFile } from '../../lib/tokens/signing-keys';
import { startDynamoDbLocal } from '../../scripts/dynamodb-local';
import { createTable } from '../helpers/isolated-table';
import type { MemoryReport } from './server';

/** The bundles the mixed load and its preparation call. */
const NEEDED = ['authorizer', 'login', 'refresh-token', 'me', 'register', 'oauth2-token', 'create-oauth2-client'];

export interface SoakStack {
  url: string;
  dynamodbEndpoint: string;
  tableName: string;
  /** The server's stdout and stderr (the functions' JSON log lines, the adapter's failures). */
  logFile: string;
  /** A full GC in the server, then its memory. */
  memory(): Promise<MemoryReport>;
  stop(): Promise<void>;
}

/**
 * Builds dist/ and copies dist/functions into `work` (beside a `node_modules` link, so
 * the bundles' external packages resolve as they do from dist/). Another build in the
 * same tree empties dist/ first; if that happens between our build and the copy, again.
 */
async function buildBundles(work: string, say: (line: string) => void): Promise<string> {
  const functionsDir = join(work, 'functions');
  await symlink(resolve('node_modules'), join(work, 'node_modules'), 'dir');
  for (let attempt = 1; ; attempt++) {
    say('building the functions (npm run build)');
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status})`);
    try {
      await rm(functionsDir, { recursive: true, force: true });
      await cp('dist/functions', functionsDir, { recursive: true });
      const missing = NEEDED.filter((name) => !bundleFiles(functionsDir).has(name));
      if (missing.length === 0) return functionsDir;
      if (attempt >= 3) throw new Error(`dist/functions has no bundle for ${missing.join(', ')}`);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
    say('dist/ changed under us (another build?): building again');
  }
}

/** Starts the soak server on `functionsDir`; resolves when it listens. */
async function startServer(work: string, env: NodeJS.ProcessEnv, logFd: number): Promise<{ child: ChildProcess; port: number }> {
  const entry = join(work, 'server.mjs');
  await build({
    entryPoints: ['test/soak/server.ts'],
    outfile: entry,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  const child = spawn(process.execPath, ['--expose-gc', entry], { env, stdio: ['ignore', logFd, logFd, 'ipc'] });
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('the soak server did not start within 60 s')), 60_000);
    child.on('message', (message: { type?: string; port?: number }) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      done(message.port ?? 0);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the soak server exited with code ${code} before it was ready (see its log)`));
    });
  });
  return { child, port };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done();
    const pid = child.pid;
    const timer = setTimeout(() => process.kill(pid, 'SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    process.kill(pid, 'SIGTERM');
  });
}

export async function startSoakStack(say: (line: string) => void): Promise<SoakStack> {
  const work = await mkdtemp(join(tmpdir(), 'identity-soak-'));
  const stops: Array<() => Promise<void>> = [() => rm(work, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) await step();
  };
  try {
    const functionsDir = process.env.SOAK_FUNCTIONS_DIR ? resolve(process.env.SOAK_FUNCTIONS_DIR) : await buildBundles(work, say);

    say('starting DynamoDB Local (in memory)');
    const db = await startDynamoDbLocal();
    stops.push(() => db.stop());
    const tableName = 'identity-soak';
    await createTable(db.endpoint, tableName);

    const keysFile = join(work, 'signing-keys.json');
    await ensureKeysFile(keysFile, 'soak-key-1');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...localFunctionEnv({ endpoint: db.endpoint, tableName, keysFile, workDir: work }),
      // Stack traces of a failure as source (serverless.yml leaves this off for cold starts).
      NODE_OPTIONS: '--enable-source-maps',
      SOAK_FUNCTIONS_DIR: functionsDir,
    };
    delete env.AWS_LAMBDA_FUNCTION_NAME;

    say('starting the API (bench/adapter.ts in a child process)');
    const logFile = join(work, 'server.log');
    const logFd = openSync(logFile, 'w');
    stops.push(async () => closeSync(logFd));
    const server = await startServer(work, env, logFd);
    stops.push(() => stopChild(server.child));

    let nextId = 1;
    const memory = () =>
      new Promise<MemoryReport>((done, fail) => {
        const id = nextId++;
        const timer = setTimeout(() => fail(new Error('the soak server did not report its memory within 30 s')), 30_000);
        const listen = (message: MemoryReport) => {
          if (message.type !== 'memory' || message.id !== id) return;
          clearTimeout(timer);
          server.child.off('message', listen);
          done(message);
        };
        server.child.on('message', listen);
        server.child.send({ type: 'memory', id });
      });

    return { url: `http://127.0.0.1:${server.port}`, dynamodbEndpoint: db.endpoint, tableName, logFile, memory, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
