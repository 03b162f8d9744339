/**
 * `npm run test:soak` (not part of `npm test`): a steady mixed load (login, refresh,
 * me, token) through the benchmark's HTTP adapter on this commit's bundles, for
 * SOAK_SECONDS (60 by default). Then: no unexpected answer, the rate held, no memory
 * growth beyond 20% after the warm-up, and every session exactly where its client
 * thinks it is.
 *
 *   SOAK_SECONDS=10 npm run test:soak   a short run while developing
 *   SOAK_RATE=150  SOAK_USERS=32        requests per second (all kinds), virtual users
 *   SOAK_REPORT=soak.json               also writes the figures as JSON
 *   SOAK_FUNCTIONS_DIR=dir              soaks the bundles in dir instead of building dist/
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../lib/crypto/token-hash';
import { scanTable } from '../helpers/isolated-table';
import { type ClientSession, KINDS, type Kind, type LoadResult, runMixedLoad, sendJson, sessionOf, type VirtualUser } from './mixed-load';
import type { MemoryReport } from './server';
import { type SoakStack, startSoakStack } from './stack';

const positive = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
};

const SECONDS = positive('SOAK_SECONDS', 60);
const RATE = positive('SOAK_RATE', 150);
const USERS = Math.round(positive('SOAK_USERS', 32));
/** Memory is compared from the end of the warm-up (JITs, connection pools, lazy modules settle) to the end. */
const WARMUP_SECONDS = Math.min(10, Math.floor(SECONDS / 3));
const SAMPLE_EVERY_SECONDS = 5;
/** Per 15 requests: a login (Argon2id, the dearest by far), 5 refreshes, 6 me, 3 client_credentials tokens. */
const MIX: Record<Kind, number> = { login: 1, refresh: 5, me: 6, token: 3 };
const MAX_MEMORY_GROWTH = 0.2;

const say = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const percent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);
}

interface MemorySample extends MemoryReport {
  /** Seconds into the load. */
  at: number;
}

/** The server's log lines written during the load, by level; lines that are not our JSON (stderr) apart. */
function readServerLog(text: string) {
  const byLevel: Record<string, number> = {};
  const notable: string[] = [];
  const other: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: { level?: string; event?: string; errorMessage?: string } | undefined;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (!parsed?.level) {
      other.push(line.slice(0, 300));
      continue;
    }
    byLevel[parsed.level] = (byLevel[parsed.level] ?? 0) + 1;
    if (parsed.level === 'warn' || parsed.level === 'error')
      notable.push(`${parsed.level} ${parsed.event}${parsed.errorMessage ? `: ${parsed.errorMessage}` : ''}`);
  }
  return { byLevel, notable, other };
}

describe(`soak: ${SECONDS} s of mixed load at ${RATE} req/s through the bench adapter`, () => {
  let stack: SoakStack;
  let load: LoadResult;
  let users: VirtualUser[];
  let adminSession: ClientSession;
  const registrations = USERS + 1;
  const memory: { idle?: MemorySample; samples: MemorySample[] } = { samples: [] };
  let log: ReturnType<typeof readServerLog>;
  const figures: Record<string, unknown> = {};

  beforeAll(
    async () => {
      stack = await startSoakStack(say);
      const { url } = stack;
      const tenantId = `soak-${randomBytes(4).toString('hex')}`;
      const password = () => randomBytes(18).toString('base64url');

      say(`preparing: an ADMIN, ${USERS} users without MFA, an OAuth client with client_credentials`);
      const adminPassword = password();
      const admin = await sendJson(url, 'POST', '/auth/register', {
        username: 'soak-admin',
        password: adminPassword,
        role: 'ADMIN',
        tenantId,
      });
      expect(admin.status, JSON.stringify(admin.body)).toBe(201);
      const sessionFrom = (userId: string, data: { token: string; refreshToken: string }): ClientSession => {
        const { sessionId, generation } = sessionOf(data.refreshToken);
        return {
          id: sessionId,
          userId,
          refreshToken: data.refreshToken,
          generation,
          accessToken: data.token,
          busy: false,
          uncertain: false,
        };
      };
      adminSession = sessionFrom(admin.body.data.user.id, admin.body.data);
      users = [];
      for (let i = 0; i < USERS; i++) {
        const username = `soak-user-${i}`;
        const userPassword = password();
        const registered = await sendJson(
          url,
          'POST',
          '/auth/register',
          { username, password: userPassword, role: 'OPERATOR', tenantId },
          adminSession.accessToken,
        );
        expect(registered.status, JSON.stringify(registered.body)).toBe(201);
        // An ADMIN's registration opens no session for the new user (docs/api.md 4.3): they sign in.
        const signedIn = await sendJson(url, 'POST', '/auth/login', { username, password: userPassword, tenantId });
        expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
        users.push({
          tenantId,
          username,
          password: userPassword,
          userId: registered.body.data.user.id,
          current: sessionFrom(registered.body.data.user.id, signedIn.body.data),
        });
      }
      const client = {
        id: `soak-client-${randomBytes(4).toString('hex')}`,
        secret: randomBytes(32).toString('base64url'),
        scope: 'orders:read',
      };
      const created = await sendJson(
        url,
        'POST',
        '/oauth2/clients',
        {
          client_id: client.id,
          client_secret: client.secret,
          redirect_uri: 'https://client.example.com/callback',
          grant_types: 'client_credentials',
          scope: client.scope,
          tenant_id: tenantId,
        },
        adminSession.accessToken,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);

      memory.idle = { ...(await stack.memory()), at: 0 };
      const logStart = readFileSync(stack.logFile).length;
      say(`load: ${SECONDS} s at ${RATE} req/s (warm-up ${WARMUP_SECONDS} s, memory sampled every ${SAMPLE_EVERY_SECONDS} s after it)`);
      const pending: Array<Promise<void>> = [];
      const sample = (at: number) =>
        pending.push(
          stack.memory().then((report) => {
            memory.samples.push({ ...report, at });
          }),
        );
      load = await runMixedLoad({
        url,
        users,
        client,
        rate: RATE,
        mix: MIX,
        seconds: SECONDS,
        onSecond: (elapsed) => {
          if (elapsed >= WARMUP_SECONDS && elapsed < SECONDS && (elapsed - WARMUP_SECONDS) % SAMPLE_EVERY_SECONDS === 0) sample(elapsed);
        },
      });
      sample(SECONDS);
      await Promise.all(pending);
      memory.samples.sort((a, b) => a.at - b.at);
      log = readServerLog(readFileSync(stack.logFile).subarray(logStart).toString('utf8'));
      say(`load done: ${load.answered} answers in ${load.seconds.toFixed(1)} s`);
    },
    (SECONDS + 420) * 1000,
  );

  afterAll(async () => {
    if (load) printSummary();
    if (process.env.SOAK_REPORT) writeFileSync(process.env.SOAK_REPORT, `${JSON.stringify(figures, null, 2)}\n`);
    await stack?.stop();
  }, 60_000);

  function printSummary() {
    const lines: string[] = [];
    const sentTotal = KINDS.reduce((sum, kind) => sum + load.byKind[kind].sent, 0);
    // Whole seconds of the schedule after the warm-up (the last one is partly the drain).
    const steady = load.perSecond.slice(WARMUP_SECONDS, Math.floor(SECONDS));
    lines.push(
      `Soak: ${SECONDS} s, target ${RATE} req/s, ${USERS} virtual users (mix login:refresh:me:token = ${KINDS.map((kind) => MIX[kind]).join(':')})`,
    );
    lines.push(
      `  sent ${sentTotal} (${(sentTotal / SECONDS).toFixed(1)} req/s), answered ${load.answered} in ${load.seconds.toFixed(1)} s; after the warm-up answers per second min ${Math.min(...steady)} max ${Math.max(...steady)}; max in flight ${load.maxInFlight}`,
    );
    lines.push(
      `  refreshes that waited for a free session ${load.delayed.count} (longest wait ${load.delayed.maxWaitMs.toFixed(0)} ms), never sent ${load.skipped}`,
    );
    for (const kind of KINDS) {
      const stats = load.byKind[kind];
      const statuses = Object.entries(stats.statuses)
        .map(([code, count]) => `${code}: ${count}`)
        .join(', ');
      lines.push(
        `  ${kind.padEnd(8)} ${String(stats.sent).padStart(6)} sent, ${String(stats.unexpected).padStart(3)} unexpected, statuses {${statuses}}, p50 ${percentile(stats.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(stats.latenciesMs, 99).toFixed(1)} ms, max ${percentile(stats.latenciesMs, 100).toFixed(1)} ms`,
      );
    }
    lines.push(`  answers per second: ${load.perSecond.join(' ')}`);
    for (const sample of load.unexpectedSamples) lines.push(`  UNEXPECTED ${sample}`);
    lines.push(
      `  server log during the load: ${Object.entries(log.byLevel)
        .map(([level, count]) => `${level} ${count}`)
        .join(', ')}; other lines ${log.other.length}`,
    );
    for (const line of [...log.notable, ...log.other].slice(0, 10)) lines.push(`    ${line}`);
    const base = memory.samples[0];
    const end = memory.samples[memory.samples.length - 1];
    if (memory.idle) lines.push(`  memory idle before the load: heap ${mib(memory.idle.heapUsed)}, rss ${mib(memory.idle.rss)}`);
    if (base && end) {
      lines.push(
        `  memory after warm-up (${base.at} s): heap ${mib(base.heapUsed)}, rss ${mib(base.rss)}; at the end (${end.at} s): heap ${mib(end.heapUsed)} (${percent(end.heapUsed / base.heapUsed - 1)}), rss ${mib(end.rss)} (${percent(end.rss / base.rss - 1)})`,
      );
      const afterWarmup = load.perSecond.slice(base.at).reduce((sum, count) => sum + count, 0);
      lines.push(
        `  heap change after the warm-up: ${(((end.heapUsed - base.heapUsed) / 1024) * (1000 / afterWarmup)).toFixed(1)} KiB per 1,000 requests (${afterWarmup} requests)`,
      );
      lines.push(
        `  heap samples (MiB, after a full GC): ${memory.samples.map((sample) => `${sample.at}s ${(sample.heapUsed / 2 ** 20).toFixed(1)}`).join(', ')}`,
      );
      lines.push(`  rss samples (MiB): ${memory.samples.map((sample) => `${sample.at}s ${(sample.rss / 2 ** 20).toFixed(1)}`).join(', ')}`);
      lines.push(`  server CPU during the load: ${((end.cpuMs - (memory.idle?.cpuMs ?? 0)) / 10 / load.seconds).toFixed(0)}% of one core`);
    }
    if (figures.consistency) lines.push(`  consistency: ${JSON.stringify(figures.consistency)}`);
    Object.assign(figures, {
      seconds: SECONDS,
      targetRate: RATE,
      users: USERS,
      mix: MIX,
      sent: sentTotal,
      answered: load.answered,
      delayedRefreshes: load.delayed,
      skipped: load.skipped,
      maxInFlight: load.maxInFlight,
      perSecond: { min: Math.min(...steady), max: Math.max(...steady) },
      byKind: Object.fromEntries(
        KINDS.map((kind) => {
          const stats = load.byKind[kind];
          return [
            kind,
            {
              sent: stats.sent,
              unexpected: stats.unexpected,
              statuses: stats.statuses,
              p50Ms: percentile(stats.latenciesMs, 50),
              p99Ms: percentile(stats.latenciesMs, 99),
            },
          ];
        }),
      ),
      serverLog: log.byLevel,
      memory: { idle: memory.idle, samples: memory.samples },
    });
    console.log(lines.join('\n'));
  }

  it('answers every request as expected: no error, no unexpected status, no warning or error logged', () => {
    const unexpected = Object.fromEntries(KINDS.map((kind) => [kind, load.byKind[kind].unexpected]));
    expect(unexpected, load.unexpectedSamples.join('\n')).toEqual({ login: 0, refresh: 0, me: 0, token: 0 });
    for (const kind of KINDS) expect(Object.keys(load.byKind[kind].statuses), kind).toEqual(['200']);
    expect(log.notable, 'warn and error lines of the server during the load').toEqual([]);
    expect(
      log.other.filter((line) => line.startsWith('adapter:')),
      'invocations that failed in the adapter',
    ).toEqual([]);
  });

  it(`holds the rate: every request of the mix sent on time (at least 95% of ${RATE} req/s)`, () => {
    const sent = KINDS.reduce((sum, kind) => sum + load.byKind[kind].sent, 0);
    expect(load.skipped, 'refreshes never sent: no session could be refreshed any more').toBe(0);
    expect(sent / SECONDS).toBeGreaterThanOrEqual(0.95 * RATE);
    expect(load.answered).toBe(sent);
    // Every kind got its share of the mix.
    const weight = KINDS.reduce((sum, kind) => sum + MIX[kind], 0);
    for (const kind of KINDS)
      expect(load.byKind[kind].sent, kind).toBeGreaterThanOrEqual(Math.floor((0.95 * RATE * SECONDS * MIX[kind]) / weight));
  });

  it(`does not grow the server's memory by more than ${MAX_MEMORY_GROWTH * 100}% after the warm-up`, () => {
    const base = memory.samples[0];
    const end = memory.samples[memory.samples.length - 1];
    expect(base && end && base !== end, 'memory samples after the warm-up and at the end').toBeTruthy();
    if (!base || !end) return;
    expect(base.at).toBe(WARMUP_SECONDS);
    expect(end.at).toBe(SECONDS);
    expect(end.collected, 'heap measured after a full GC (node --expose-gc)').toBe(true);
    expect(end.heapUsed / base.heapUsed - 1, `heapUsed ${mib(base.heapUsed)} -> ${mib(end.heapUsed)}`).toBeLessThanOrEqual(
      MAX_MEMORY_GROWTH,
    );
    expect(end.rss / base.rss - 1, `rss ${mib(base.rss)} -> ${mib(end.rss)}`).toBeLessThanOrEqual(MAX_MEMORY_GROWTH);
  });

  it('leaves every session as its client knows it, and each last refresh token works exactly once', async () => {
    const scanSessions = async () => {
      const items: Array<Record<string, any>> = (await scanTable(stack.dynamodbEndpoint, stack.tableName)).filter(
        (item) => item.sk === 'SESSION',
      );
      return new Map(items.map((item) => [item.id as string, item]));
    };

    const known = new Map(load.sessions);
    known.set(adminSession.id, adminSession);
    const logins = load.byKind.login.statuses['200'] ?? 0;
    const stored = await scanSessions();
    const now = Math.floor(Date.now() / 1000);

    // One session record per login and registration, and exactly the ones the clients were given.
    expect(stored.size).toBe(logins + registrations);
    expect([...stored.keys()].sort()).toEqual([...known.keys()].sort());
    const uncertain = [...known.values()].filter((session) => session.uncertain).length;
    expect(uncertain, 'sessions whose refresh failed during the load').toBe(0);
    // Each record is active, of its user, and its current refresh token is the last one its client got.
    const mismatched: string[] = [];
    for (const session of known.values()) {
      const record = stored.get(session.id);
      if (!record) continue;
      const problems = [
        record.revokedAt !== undefined && `revoked (${record.revokedReason})`,
        !(record.expiresAt > now) && 'expired',
        record.userId !== session.userId && 'another user',
        record.refreshGeneration !== session.generation && `generation ${record.refreshGeneration}, client has ${session.generation}`,
        record.refreshHash !== hashToken(session.refreshToken) && 'current refresh token is not the client’s last one',
      ].filter(Boolean);
      if (problems.length > 0) mismatched.push(`${session.id}: ${problems.join(', ')}`);
    }
    expect(mismatched).toEqual([]);
    const refreshed = [...known.values()].filter((session) => session.generation > 0).length;

    // Each virtual user's last refresh token works exactly once; presenting it again is
    // reuse, which revokes that session (its newest tokens too) and no other.
    const probes: string[] = [];
    for (const user of users) {
      const last = user.current;
      const first = await sendJson(stack.url, 'POST', '/auth/refresh', { refreshToken: last.refreshToken });
      const again = await sendJson(stack.url, 'POST', '/auth/refresh', { refreshToken: last.refreshToken });
      const successor =
        first.status === 200
          ? await sendJson(stack.url, 'POST', '/auth/refresh', { refreshToken: first.body.data.refreshToken })
          : undefined;
      const me = first.status === 200 ? await sendJson(stack.url, 'GET', '/auth/me', undefined, first.body.data.token) : undefined;
      probes.push(`${user.username}: ${first.status} ${again.status} ${successor?.status} ${me?.status} ${again.body?.error}`);
    }
    expect(probes).toEqual(users.map((user) => `${user.username}: 200 401 401 401 Invalid refresh token`));
    const after = await scanSessions();
    const revoked = [...after.values()].filter((record) => record.revokedAt !== undefined);
    expect(revoked.map((record) => `${record.id} ${record.revokedReason}`).sort()).toEqual(
      users.map((user) => `${user.current.id} refresh_token_reuse`).sort(),
    );

    figures.consistency = {
      sessionRecords: stored.size,
      logins,
      registrations,
      sessionsRefreshed: refreshed,
      mismatched: mismatched.length,
      revokedBeforeProbe: [...stored.values()].filter((record) => record.revokedAt !== undefined).length,
      lastTokenWorkedOnce: users.length,
      revokedByProbeReuse: revoked.length,
    };
  }, 60_000);
});
