/**
 * What writing one audit event costs a sign-in, in CPU of the process that
 * writes it. `recordEvent` (lib/audit/record.ts) is what login runs beside its session
 * write; here it runs alone, against the same DynamoDB Local as the rest of the bench, so
 * its CPU time per event is the audit share of a login's server CPU.
 */
import { recordEvent } from '../lib/audit/record';
import { systemClock } from '../lib/clock';
import type { Config } from '../lib/config';
import { cryptoRandom } from '../lib/crypto/random';
import { createLogger } from '../lib/log';
import { dynamoAuditStore } from '../lib/store/audit';
import { createDynamo } from '../lib/store/dynamo';

export interface AuditCost {
  events: number;
  /** CPU ms of this process per event written (marshalling, signing, HTTP, parsing). */
  cpuMsPerEvent: number;
  /** Wall ms per event at the concurrency used. */
  wallMsPerEvent: number;
}

/** Writes `events` login events of one tenant, `concurrency` at a time, after a warm-up. */
export async function auditCost(config: Config, tenantId: string, events = 2000, concurrency = 8): Promise<AuditCost> {
  const dynamo = createDynamo({ tableName: config.tableName, region: config.awsRegion, endpoint: config.dynamodbEndpoint });
  const deps = {
    config,
    clock: systemClock,
    random: cryptoRandom,
    log: createLogger('error'),
    store: { audit: dynamoAuditStore(dynamo) },
    source: { ipAddress: '198.51.100.7', userAgent: 'Mozilla/5.0 (bench) AppleWebKit/537.36 Chrome/150.0 Safari/537.36' },
  };
  const write = (i: number) =>
    recordEvent(deps as Parameters<typeof recordEvent>[0], {
      tenantId,
      type: 'login_succeeded',
      actor: { type: 'user', id: `u-${i % 100}` },
      targetUserId: `u-${i % 100}`,
      outcome: 'success',
      details: { username: `user-${i % 100}`, amr: ['pwd'] },
    });
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await write(next++);
      }),
    );
  };
  await run(200);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run(events);
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { events, cpuMsPerEvent: (used.user + used.system) / 1000 / events, wallMsPerEvent: wall / events };
}
