/**
 * What the event outbox adds to a change (docs/decisions/024-transactional-outbox.md): the
 * write of a login (a new session item) and of an admin change (an update of the user
 * item), each sent plain and sent carrying its event (one transaction with the subject's
 * outbox update), alternately in one run against the bench's DynamoDB Local. CPU is this
 * process's: the server's share of the write (marshalling, signing, HTTP, parsing).
 */
import { systemClock } from '../lib/clock';
import type { Config } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import { newEvent } from '../lib/events/event';
import { carryingEvents } from '../lib/events/outbox';
import { PutCommand, UpdateCommand } from '../lib/store/commands';
import { createDynamo } from '../lib/store/dynamo';

export interface WriteCost {
  cpuMsPerWrite: number;
  wallP50Ms: number;
}

export interface OutboxCost {
  writes: number;
  login: { plain: WriteCost; carried: WriteCost };
  adminChange: { plain: WriteCost; carried: WriteCost };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? Number.NaN;

export async function outboxCost(config: Config, tenantId: string, writes = 1000): Promise<OutboxCost> {
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const deps = { config, clock: systemClock, random: cryptoRandom };
  const sessionPut = (i: number) =>
    new PutCommand({
      TableName: dynamo.table,
      Item: {
        pk: `T#${tenantId}#SESSION#bench-${i}`,
        sk: 'SESSION',
        userId: `u-${i % 100}`,
        amr: ['pwd'],
        createdAt: Date.now(),
        expiresAt: Date.now() + 3_600_000,
        userAgent: 'Mozilla/5.0 (bench) AppleWebKit/537.36 Chrome/150.0 Safari/537.36',
        refreshHash: 'x'.repeat(43),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  const userUpdate = (i: number) =>
    new UpdateCommand({
      TableName: dynamo.table,
      Key: { pk: `T#${tenantId}#BENCHUSER#u-${i % 100}`, sk: 'PROFILE' },
      UpdateExpression: 'SET #enabled = :enabled, #updatedAt = :now',
      ExpressionAttributeNames: { '#enabled': 'enabled', '#updatedAt': 'updatedAt' },
      ExpressionAttributeValues: { ':enabled': i % 2 === 0, ':now': Date.now() },
    });
  const eventOf = (i: number, type: 'identity.login.succeeded' | 'identity.user.disabled') =>
    newEvent(deps, {
      tenantId,
      type,
      subject: `u-${i % 100}`,
      actor: { type: 'user', id: `u-${i % 100}` },
      data: type === 'identity.login.succeeded' ? { sessionId: `bench-${i}`, methods: ['pwd'] } : {},
    });
  // Four in flight, as a busy function instance's neighbours would be; a fresh range of ids per run.
  let offset = 0;
  const run = async (count: number, send: (i: number) => Promise<unknown>): Promise<WriteCost> => {
    const start = offset;
    offset += count;
    const walls: number[] = [];
    let next = 0;
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < count) {
          const i = start + next++;
          const began = performance.now();
          await send(i);
          walls.push(performance.now() - began);
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return { cpuMsPerWrite: (used.user + used.system) / 1000 / count, wallP50Ms: percentile(walls, 50) };
  };
  const login = {
    plain: (i: number) => dynamo.doc.send(sessionPut(i)),
    carried: (i: number) => carryingEvents(dynamo, [eventOf(i, 'identity.login.succeeded')]).doc.send(sessionPut(i)),
  };
  const admin = {
    plain: (i: number) => dynamo.doc.send(userUpdate(i)),
    carried: (i: number) => carryingEvents(dynamo, [eventOf(i, 'identity.user.disabled')]).doc.send(userUpdate(i)),
  };
  await run(Math.min(200, writes), login.carried);
  await run(Math.min(200, writes), admin.carried);
  // Plain and carried alternate, in halves, so that the drift of a noisy machine falls on both.
  const half = Math.max(1, Math.floor(writes / 2));
  const mean = (a: WriteCost, b: WriteCost) => ({
    cpuMsPerWrite: (a.cpuMsPerWrite + b.cpuMsPerWrite) / 2,
    wallP50Ms: (a.wallP50Ms + b.wallP50Ms) / 2,
  });
  const compare = async (sends: { plain: (i: number) => Promise<unknown>; carried: (i: number) => Promise<unknown> }) => {
    const [plain1, carried1, carried2, plain2] = [
      await run(half, sends.plain),
      await run(half, sends.carried),
      await run(half, sends.carried),
      await run(half, sends.plain),
    ];
    return { plain: mean(plain1, plain2), carried: mean(carried1, carried2) };
  };
  const loginCost = await compare(login);
  const adminCost = await compare(admin);
  return {
    writes,
    login: loginCost,
    adminChange: adminCost,
  };
}

export interface DeliveryLatency {
  changes: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * From a change to its webhook, locally (docs/api.md 17.2): a tenant's webhook on a
 * loopback receiver, the table's stream read as `npm start` reads it (every 200 ms), the
 * stage's planners and the local delivery queue. Each change is a write carrying an
 * `identity.user.disabled` event; its latency runs from the write's answer to the
 * receiver's first byte of the signed delivery. Changes go one at a time, 20 ms apart.
 */
export async function deliveryLatency(env: NodeJS.ProcessEnv, tenantId: string, changes = 200): Promise<DeliveryLatency> {
  const { createServer } = await import('node:http');
  const { defaultDeps } = await import('../lib/deps');
  const { publishRecords } = await import('../lib/events/publish');
  const { STAGE_MAKERS, STAGE_PLANNERS } = await import('../lib/events/publishing');
  const { localDeliveryQueue } = await import('../lib/deliveries/local-queue');
  const { createWebhook } = await import('../lib/webhooks/webhooks');
  const { followStream } = await import('../scripts/lib/local-stream');
  // The function's settings, quieter: a line per event would drown the bench's output.
  Object.assign(process.env, env, { LOG_LEVEL: 'error' });
  const deps = defaultDeps();
  const arrived = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      if (!arrived.has(id)) arrived.set(id, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const { port } = receiver.address() as { port: number };
  const admin = { tenantId, userId: 'bench-admin', username: 'admin', role: 'ADMIN' };
  await createWebhook(deps, admin as never, { url: `http://127.0.0.1:${port}/hook`, events: ['identity.user.disabled'] });
  const queue = localDeliveryQueue(deps, { makers: STAGE_MAKERS });
  const stream = await followStream({
    endpoint: env.DYNAMODB_ENDPOINT ?? '',
    tableName: env.TABLE_NAME ?? '',
    from: 'LATEST',
    onRecords: (records) => publishRecords(deps, { sinks: [], planners: STAGE_PLANNERS, queue }, records),
  });
  const dynamo = createDynamo({ tableName: deps.config.tableName, region: deps.config.awsRegion, endpoint: deps.config.dynamodbEndpoint });
  const written = new Map<string, number>();
  try {
    for (let i = 0; i < changes; i++) {
      const event = newEvent(deps, {
        tenantId,
        type: 'identity.user.disabled',
        subject: `u-${i}`,
        actor: admin.userId ? { type: 'user', id: admin.userId } : { type: 'system', id: null },
      });
      await carryingEvents(dynamo, [event]).doc.send(
        new PutCommand({ TableName: dynamo.table, Item: { pk: `T#${tenantId}#BENCHLATENCY#${i}`, sk: 'X' } }),
      );
      written.set(event.id, performance.now());
      await new Promise((done) => setTimeout(done, 20));
    }
    const deadline = performance.now() + 30_000;
    while (arrived.size < changes && performance.now() < deadline) await new Promise((done) => setTimeout(done, 50));
  } finally {
    await stream.stop();
    queue.stop();
    receiver.close();
  }
  const latencies = [...written].map(([id, at]) => (arrived.get(id) ?? Number.NaN) - at);
  if (latencies.some(Number.isNaN))
    throw new Error(`${latencies.filter(Number.isNaN).length} of ${changes} changes never reached the webhook`);
  return { changes, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}
