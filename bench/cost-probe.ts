/**
 * One operation of the merchant profile (bench/cost.ts), alone in a fresh process on
 * CPU 0, as one Lambda instance serves it: loads one bundle, serves a few warm-up
 * events, then asks the parent (which counts the DynamoDB traffic between DynamoDB
 * Local and us) to start counting, serves the measured events one at a time, and
 * reports its CPU time per invocation and the process's peak RSS.
 *
 * Input (BENCH_COST_INPUT, a JSON file): the bundle, its events (cycled), how many to
 * serve, and `chain`: the refresh token of each answer goes into the next request's
 * body, as a client that refreshes every 15 minutes would.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadHandler } from './adapter';
import { lambdaContext } from './lambda-context';

export interface ProbeInput {
  bundle: string;
  events: unknown[];
  warmups: number;
  calls: number;
  chain?: 'refreshToken';
}

export interface ProbeFigures {
  calls: number;
  cpuMsPerCall: number;
  wallMsPerCall: number;
  /** Answers other than 2xx (or an authorizer's refusal). */
  failed: number;
  maxRssMiB: number;
}

type Answer = { statusCode?: number; body?: string; isAuthorized?: boolean } | undefined;

/** Waits for the parent's `{ counting: name }` after sending `{ count: name }`. */
function handshake(name: string): Promise<void> {
  return new Promise((done) => {
    const listen = (message: { counting?: string }) => {
      if (message.counting !== name) return;
      process.off('message', listen);
      done();
    };
    process.on('message', listen);
    process.send?.({ count: name });
  });
}

async function main() {
  const input = JSON.parse(readFileSync(process.env.BENCH_COST_INPUT ?? '', 'utf8')) as ProbeInput;
  const handler = await loadHandler(input.bundle);
  const name = basename(input.bundle).replace(/\.[cm]?js$/, '');
  let refreshToken: string | undefined;
  let next = 0;
  const serve = async () => {
    const event = structuredClone(input.events[next++ % input.events.length]) as { body?: string };
    if (input.chain && refreshToken) event.body = JSON.stringify({ ...JSON.parse(event.body ?? '{}'), refreshToken });
    const answer = (await handler(event, lambdaContext(name))) as Answer;
    if (input.chain && answer?.body) refreshToken = (JSON.parse(answer.body) as { data?: { refreshToken?: string } }).data?.refreshToken;
    return answer?.isAuthorized === false || (answer?.statusCode !== undefined && (answer.statusCode < 200 || answer.statusCode > 299));
  };

  for (let i = 0; i < input.warmups; i++) await serve();
  await handshake('start');
  let failed = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < input.calls; i++) if (await serve()) failed++;
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await handshake('end');
  const figures: ProbeFigures = {
    calls: input.calls,
    cpuMsPerCall: (used.user + used.system) / 1000 / input.calls,
    wallMsPerCall: wallMs / input.calls,
    failed,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`\n@@cost-probe ${JSON.stringify(figures)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`cost-probe: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
