import { createServer, type Server, Socket } from 'node:net';
import { freePort } from '../../scripts/dynamodb-local';

/**
 * A TCP gate in front of DynamoDB Local, for the outage tests (test/security/outage.test.ts):
 * the functions talk to the gate's endpoint, and the gate makes the database look stopped,
 * killed, frozen or back, as the functions' sockets see it, without stopping the JVM that
 * the other test files share. Each test scans its own table straight at DynamoDB Local.
 *
 * - `stop()`: the connections close and the port refuses new ones (ECONNREFUSED), as after
 *   a stopped process. `start()` listens again on the same port.
 * - `kill()`: every connection is reset at once, mid-request or idle (ECONNRESET), and the
 *   port refuses new ones: a killed process. A request the database had read may have been
 *   applied, its answer lost, as when the process dies after its write.
 * - `freeze()`: connections are accepted, and bytes in either direction are held until
 *   `thaw()`: a process stopped with SIGSTOP, whose kernel still accepts connections.
 */
export interface DatabaseGate {
  endpoint: string;
  stop(): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

interface Pipe {
  write(chunk: Buffer): void;
  flush(): void;
}

export async function databaseGate(target: string): Promise<DatabaseGate> {
  const upstream = new URL(target);
  const port = await freePort();
  const sockets = new Set<Socket>();
  const pipes = new Set<Pipe>();
  let frozen = false;
  let server: Server | undefined;

  /** Bytes from one socket to the other, held while the gate is frozen. */
  const pipe = (to: Socket): Pipe => {
    const held: Buffer[] = [];
    const forward = {
      write(chunk: Buffer) {
        if (frozen) held.push(chunk);
        else if (!to.destroyed) to.write(chunk);
      },
      flush() {
        for (const chunk of held.splice(0)) if (!to.destroyed) to.write(chunk);
      },
    };
    pipes.add(forward);
    to.once('close', () => pipes.delete(forward));
    return forward;
  };

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const connect = (client: Socket) => {
    const database = new Socket();
    track(client);
    track(database);
    const toDatabase = pipe(database);
    const toClient = pipe(client);
    client.on('data', (chunk) => toDatabase.write(chunk));
    database.on('data', (chunk) => toClient.write(chunk));
    client.once('close', () => database.destroy());
    database.once('close', () => client.destroy());
    database.connect(Number(upstream.port), upstream.hostname);
  };

  const listen = () =>
    new Promise<void>((done, fail) => {
      const next = createServer(connect);
      next.once('error', fail);
      next.listen(port, '127.0.0.1', () => {
        server = next;
        done();
      });
    });

  const shut = (end: (socket: Socket) => void) =>
    new Promise<void>((done) => {
      const closing = server;
      server = undefined;
      for (const socket of sockets) end(socket);
      if (!closing) return done();
      closing.close(() => done());
    });

  await listen();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => shut((socket) => socket.destroy()),
    kill: () => shut((socket) => socket.resetAndDestroy()),
    start: async () => {
      if (!server) await listen();
    },
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const forward of pipes) forward.flush();
    },
    close: () => shut((socket) => socket.destroy()),
  };
}
