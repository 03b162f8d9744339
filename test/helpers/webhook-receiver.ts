import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the receiver answers: 2xx, an error, a redirect, never, or with a body that never ends. */
export type ReceiverBehaviour = { status: number } | { redirectTo: string } | 'hang' | 'endless';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a loopback port (docs/api.md 17.2): records what it receives, answers as told (per path). */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  received: ReceivedRequest[];
  /** How each path answers; a path not set answers 204. */
  behaviour: Map<string, ReceiverBehaviour>;
  /** Bytes the receiver wrote of endless bodies, by path. */
  written: Map<string, number>;
  /** The requests received on `path`, once there are `count` (within `timeoutMs`). */
  until(path: string, count?: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const behaviour = new Map<string, ReceiverBehaviour>();
  const written = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const how = behaviour.get(path) ?? { status: 204 };
      if (how === 'hang') return;
      if (how === 'endless') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const more = () => {
          while (!response.destroyed && response.write(chunk)) written.set(path, (written.get(path) ?? 0) + chunk.length);
          if (!response.destroyed) response.once('drain', more);
        };
        response.on('close', () => response.removeAllListeners('drain'));
        more();
        return;
      }
      if ('redirectTo' in how) {
        response.writeHead(307, { location: how.redirectTo }).end();
        return;
      }
      response.writeHead(how.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    received,
    behaviour,
    written,
    async until(path, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter((one) => one.path === path);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`Only ${found.length} of ${count} requests to ${path} within ${timeoutMs} ms`);
        await new Promise((done) => setTimeout(done, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
