import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_RETENTION_SECONDS, type AuditEventType } from '../../lib/audit/events';
import { recordEvent } from '../../lib/audit/record';
import { dynamoStores } from '../../lib/deps';
import { QueryCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { connectionReset } from '../helpers/faulty-stores';
import { localDynamo } from '../helpers/local-dynamo';
import { authenticator, newTotpSecret } from '../helpers/mfa';
import { createClient } from '../helpers/oauth';

const PASSWORD = 'audited passphrase';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** What the captured API Gateway event (test/fixtures) says of the caller. */
const SOURCE = { ipAddress: '203.0.113.10', userAgent: 'Mozilla/5.0' };
const denied = { status: 403, headers: expect.anything(), body: failure('Permission denied') };
const invalidCursor = { status: 400, headers: expect.anything(), body: failure('Invalid cursor') };

describe('tenant administration: the audit trail (docs/api.md 9.8)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  /** Every event of the tenant, newest first, page by page. */
  async function everyEvent(token: string, query: Record<string, string> = {}, limit = 100) {
    const events = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const response = await app.request('adminListAudit', {
        token,
        query: { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) },
      });
      expect(response.status).toBe(200);
      events.push(...response.body.data.events);
      cursor = response.body.data.nextCursor ?? undefined;
      if (!cursor) return events;
    }
    throw new Error('the trail did not end');
  }
  /** Moves the clock on, so that each step's events are newer than the last's. */
  const tick = () => deps.clock.advance(1);

  it('records every sign-in outcome with actor, target, source and reason, newest first', async () => {
    const tenantId = uniqueTenant('audit');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    tick();
    const login = (username: string, password: string) => app.request('login', { body: { username, password, tenantId } });
    await app.request('register', { token: admin.token, body: { username: 'clerk', password: PASSWORD, role: 'OPERATOR', tenantId } });
    tick();
    const clerk = (await login('clerk', PASSWORD)).body.data;
    tick();
    expect((await login('clerk', 'not the passphrase')).status).toBe(401);
    tick();
    expect((await login('nobody', 'not the passphrase')).status).toBe(401);
    tick();
    for (let i = 0; i < 4; i++) await login('clerk', 'still not it');
    tick();
    expect((await login('clerk', PASSWORD)).status).toBe(429);

    const response = await app.request('adminListAudit', { token: admin.token, query: { limit: '4' } });
    const event = (type: AuditEventType, actorId: string | null, targetUserId: string | null, outcome: string, details: object) => ({
      id: expect.stringMatching(UUID),
      time: expect.stringMatching(ISO),
      type,
      actor: { type: 'user', id: actorId },
      targetUserId,
      ...SOURCE,
      outcome,
      details,
    });
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: {
        success: true,
        data: {
          events: [
            event('login_locked', clerk.user.id, clerk.user.id, 'failure', { username: 'clerk', reason: 'password_attempts' }),
            ...Array.from({ length: 3 }, () =>
              event('login_failed', clerk.user.id, clerk.user.id, 'failure', { username: 'clerk', reason: 'wrong_password' }),
            ),
          ],
          nextCursor: expect.any(String),
        },
      },
    });
    const all = await everyEvent(admin.token);
    expect(all.map((e: { type: string; details: { reason?: string } }) => [e.type, e.details.reason])).toEqual([
      ['login_locked', 'password_attempts'],
      ...Array.from({ length: 4 }, () => ['login_failed', 'wrong_password']),
      ['login_failed', 'unknown_user'],
      ['login_failed', 'wrong_password'],
      ['login_succeeded', undefined],
      ['user_registered', undefined],
      ['user_registered', undefined],
    ]);
    expect(all[5]).toEqual(event('login_failed', null, null, 'failure', { username: 'nobody', reason: 'unknown_user' }));
    expect(all[7]).toEqual(event('login_succeeded', clerk.user.id, clerk.user.id, 'success', { username: 'clerk', amr: ['pwd'] }));
    expect(all[8]).toEqual(
      event('user_registered', admin.user.id, clerk.user.id, 'success', {
        username: 'clerk',
        role: 'OPERATOR',
        shopId: 'default',
        newTenant: false,
      }),
    );
    expect(all[9]).toEqual(
      event('user_registered', admin.user.id, admin.user.id, 'success', {
        username: 'admin',
        role: 'ADMIN',
        shopId: 'default',
        newTenant: true,
      }),
    );
  });

  it('records MFA and password changes, second-factor refusals, refresh-token reuse, client and admin actions', async () => {
    const tenantId = uniqueTenant('audit');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const user = await registerStaff(app, admin.token, { username: 'staff', password: PASSWORD, role: 'ANALYST', tenantId });
    tick();
    const secret = newTotpSecret();
    await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } });
    tick();
    await app.request('verifyMFA', { token: user.token, body: { method: 'TOTP', code: authenticator(deps, secret)() } });
    deps.clock.advance(30);
    expect((await app.request('login', { body: { username: 'staff', password: PASSWORD, tenantId } })).status).toBe(401);
    tick();
    const wrongCode = await app.request('login', {
      body: { username: 'staff', password: PASSWORD, tenantId, mfaCode: '000000', mfaMethod: 'TOTP' },
    });
    expect(wrongCode.status).toBe(401);
    tick();
    const changed = await app.request('changePassword', {
      token: user.token,
      body: { currentPassword: 'wrong', newPassword: 'x'.repeat(12) },
    });
    expect(changed.status).toBe(400);
    tick();
    const refreshed = await app.request('refreshToken', { body: { refreshToken: admin.refreshToken } });
    expect(refreshed.status).toBe(200);
    tick();
    expect((await app.request('refreshToken', { body: { refreshToken: admin.refreshToken } })).status).toBe(401);
    tick();
    const adminToken = (await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } })).body.data.token;
    tick();
    const client = await createClient(app, adminToken, tenantId);
    tick();
    await app.request('adminUpdateUser', { token: adminToken, pathParameters: { userId: user.user.id }, body: { role: 'FINANCE' } });
    tick();
    await app.request('adminSignOutUser', { token: adminToken, pathParameters: { userId: user.user.id } });
    tick();
    await app.request('adminResetUserMfa', { token: adminToken, pathParameters: { userId: user.user.id } });
    tick();
    await app.request('adminCreateShop', { token: adminToken, body: { shopId: 'annex', name: 'Annex' } });
    tick();
    await app.request('adminDeleteUser', { token: adminToken, pathParameters: { userId: user.user.id } });

    const all = await everyEvent(adminToken);
    const brief = (e: { type: string; actor: object; targetUserId: string | null; outcome: string; details: object }) => [
      e.type,
      e.actor,
      e.targetUserId,
      e.outcome,
      e.details,
    ];
    const byAdmin = { type: 'user', id: admin.user.id };
    const target = user.user.id;
    expect(all.slice(0, 10).map(brief)).toEqual([
      ['admin_user_deleted', byAdmin, target, 'success', {}],
      ['shop_created', byAdmin, null, 'success', { shopId: 'annex', name: 'Annex' }],
      ['admin_mfa_reset', byAdmin, target, 'success', {}],
      ['admin_user_signed_out', byAdmin, target, 'success', { revoked: 1 }],
      ['admin_user_changed', byAdmin, target, 'success', { role: 'FINANCE' }],
      ['oauth_client_created', byAdmin, null, 'success', { clientId: client.clientId }],
      ['login_succeeded', byAdmin, admin.user.id, 'success', { username: 'admin', amr: ['pwd'] }],
      ['refresh_token_reused', { type: 'system', id: null }, admin.user.id, 'failure', { sessionId: expect.any(String) }],
      ['password_change_failed', { type: 'user', id: target }, target, 'failure', { reason: 'wrong_password' }],
      ['login_failed', { type: 'user', id: target }, target, 'failure', { username: 'staff', reason: 'invalid_mfa_code', method: 'TOTP' }],
    ]);
    expect(all.slice(10, 13).map(brief)).toEqual([
      ['login_failed', { type: 'user', id: target }, target, 'failure', { username: 'staff', reason: 'mfa_required' }],
      ['mfa_method_activated', { type: 'user', id: target }, target, 'success', { method: 'TOTP' }],
      ['mfa_method_added', { type: 'user', id: target }, target, 'success', { method: 'TOTP' }],
    ]);
  });

  describe('paging, filters and shards', () => {
    const types: AuditEventType[] = ['login_failed', 'login_succeeded', 'password_changed'];
    const users = [randomUUID(), randomUUID()];
    let tenantId: string;
    let token: string;
    /** The 60 events recorded below, newest first (by time, then id). */
    let expected: Array<{ id: string; type: string; targetUserId: string }>;

    beforeAll(async () => {
      tenantId = uniqueTenant('audit-pages');
      token = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
      tick();
      const before = new Set((await everyEvent(token)).map((event: { id: string }) => event.id));
      for (let i = 0; i < 60; i++) {
        // Two events in each millisecond: the id orders them.
        if (i % 2 === 0) deps.clock.advance(0.001);
        const type = types[i % 3] as AuditEventType;
        await recordEvent(deps, { tenantId, type, actor: { type: 'system', id: null }, targetUserId: users[i % 2], outcome: 'success' });
      }
      const recorded = (await everyEvent(token)).filter((event: { id: string }) => !before.has(event.id));
      expected = recorded.map(({ id, type, targetUserId }: { id: string; type: string; targetUserId: string }) => ({
        id,
        type,
        targetUserId,
      }));
    });

    /** The events of `expected` among `events`, as `expected` holds them. */
    const summary = (events: Array<{ id: string; type: string; targetUserId: string }>) => {
      const ours = new Set(expected.map((event) => event.id));
      return events.filter((event) => ours.has(event.id)).map(({ id, type, targetUserId }) => ({ id, type, targetUserId }));
    };

    it('spreads one tenant’s events over the write partitions, each kept 400 days', async () => {
      const { doc, table } = localDynamo();
      const counts = [];
      for (let shard = 0; shard < deps.config.audit.shards; shard++) {
        const { Items = [] } = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.auditPartition(tenantId, shard) },
          }),
        );
        counts.push(Items.length);
        for (const item of Items) expect(item.ttl).toBe(Math.floor(Date.parse(String(item.time)) / 1000) + AUDIT_RETENTION_SECONDS);
      }
      expect(deps.config.audit.shards).toBe(8);
      expect(counts.reduce((sum, n) => sum + n, 0)).toBe(61);
      expect(counts.filter((n) => n > 0).length).toBeGreaterThan(3);
      expect(Math.max(...counts)).toBeLessThan(30);
    });

    it('answers every event once, newest first, across pages and shards', async () => {
      expect(expected).toHaveLength(60);
      const times = expected.map((event) => event.id);
      expect(new Set(times).size).toBe(60);
      for (const limit of [1, 7, 60, 100]) expect(summary(await everyEvent(token, {}, limit))).toEqual(expected);
    });

    it('filters by type and by user, also together and across pages', async () => {
      for (const type of types) {
        const only = expected.filter((event) => event.type === type);
        expect(summary(await everyEvent(token, { type }, 3))).toEqual(only);
      }
      for (const userId of users) {
        expect(summary(await everyEvent(token, { userId }, 4))).toEqual(expected.filter((event) => event.targetUserId === userId));
        expect(summary(await everyEvent(token, { userId, type: 'password_changed' }, 2))).toEqual(
          expected.filter((event) => event.targetUserId === userId && event.type === 'password_changed'),
        );
      }
      expect(await everyEvent(token, { userId: randomUUID() })).toEqual([]);
    });

    it('answers 400 Invalid cursor for a cursor of another tenant, of other filters, or altered; never another tenant’s events', async () => {
      const page = await app.request('adminListAudit', { token, query: { limit: '2', type: 'login_failed' } });
      const cursor = page.body.data.nextCursor as string;
      const other = await registerAdmin(app, uniqueTenant('audit-other'));
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      const forged = (changes: object) => Buffer.from(JSON.stringify({ ...decoded, ...changes })).toString('base64url');
      const ask = (query: Record<string, string>, as = token) => app.request('adminListAudit', { token: as, query });
      expect(await ask({ cursor, type: 'login_failed' }, other.token)).toEqual(invalidCursor);
      // Re-labelled for the other tenant, it is a position in that tenant's own trail: never this tenant's events.
      const relabelled = await ask({ cursor: forged({ t: other.user.tenantId }), type: 'login_failed' }, other.token);
      expect(relabelled.body).toEqual({ success: true, data: { events: [], nextCursor: null } });
      expect(await ask({ cursor })).toEqual(invalidCursor);
      expect(await ask({ cursor, type: 'login_succeeded' })).toEqual(invalidCursor);
      expect(await ask({ cursor, type: 'login_failed', userId: users[0] as string })).toEqual(invalidCursor);
      expect(await ask({ cursor: forged({ p: 'EVENT#x' }), type: 'login_failed' })).toEqual(invalidCursor);
      expect(await ask({ cursor: forged({ p: `${decoded.p}#T#x` }), type: 'login_failed' })).toEqual(invalidCursor);
      expect(await ask({ cursor: 'not-a-cursor' })).toEqual(invalidCursor);
      expect((await ask({ cursor, type: 'login_failed' })).status).toBe(200);
    });
  });

  it.each([
    [{ limit: '0' }, 'limit: Too small: expected number to be >=1'],
    [{ limit: '101' }, 'limit: Too big: expected number to be <=100'],
    [{ type: 'everything' }, expect.stringMatching(/^type: Invalid option/)],
    [{ userId: 'x' }, 'userId: Invalid UUID'],
    [{ tenantId: 'other' }, expect.stringMatching(/^query: Unrecognized key/)],
  ])('answers 400 for the query %j', async (query, error) => {
    const { token } = await registerAdmin(app, uniqueTenant('audit'));
    expect(await app.request('adminListAudit', { token, query })).toEqual({
      status: 400,
      headers: expect.anything(),
      body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
    });
  });

  it('answers 403 Permission denied to anyone but an ADMIN, also without a token', async () => {
    const tenantId = uniqueTenant('audit');
    const admin = await registerAdmin(app, tenantId);
    const staff = await registerStaff(app, admin.token, { username: 'analyst', password: PASSWORD, role: 'ANALYST', tenantId });
    expect(await app.request('adminListAudit', { token: staff.token })).toEqual(denied);
    expect(await app.request('adminListAudit', { query: { limit: 'x' } })).toEqual(denied);
  });

  it('never fails a sign-in because its event could not be written: the loss is logged, without secrets', async () => {
    const tenantId = uniqueTenant('audit');
    await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const audit = { ...deps.store.audit, record: async () => Promise.reject(connectionReset()) };
    const failing = testApp({ ...deps, store: { ...deps.store, audit } });
    const logged = deps.logs.length;
    const ok = await failing.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
    expect(ok).toMatchObject({ status: 200, body: { success: true } });
    const wrong = await failing.request('login', { body: { username: 'admin', password: 'a wrong passphrase', tenantId } });
    expect(wrong).toEqual({ status: 401, headers: expect.anything(), body: failure('Invalid credentials') });
    const lost = deps.logs.slice(logged).filter((line) => line.event === 'audit_event_lost');
    expect(lost.map((line) => [line.level, line.auditType, line.outcome])).toEqual([
      ['error', 'login_succeeded', 'success'],
      ['error', 'login_failed', 'failure'],
    ]);
    expect(JSON.stringify(lost)).not.toContain(PASSWORD);
    expect(JSON.stringify(lost)).not.toContain('a wrong passphrase');
    expect(JSON.stringify(lost)).not.toContain(String(ok.body.data.refreshToken));
  });

  /**
   * Every database call takes 150 ms more. The event's put must run while the session's
   * put is in flight (their intervals overlap), not after it: a round trip of its own
   * would start only once the session was written. The answer still waits for it.
   */
  it('adds no database round trip to a successful sign-in (measured with a slow store)', async () => {
    const tenantId = uniqueTenant('audit-slow');
    await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const dynamo = localDynamo();
    const delay = 150;
    const calls: Array<{ kind: 'audit' | 'session' | 'other'; start: number; end: number }> = [];
    dynamo.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input);
        const put = context.commandName === 'PutItemCommand';
        // The session's write is a transaction: it carries the sign-in's published event (docs/events.md).
        const transaction = context.commandName === 'TransactWriteItemsCommand';
        const kind: 'audit' | 'session' | 'other' =
          put && input.includes('#AUDIT#') ? 'audit' : transaction && input.includes('#SESSION#') ? 'session' : 'other';
        const call = { kind, start: performance.now(), end: 0 };
        calls.push(call);
        await new Promise((resolve) => setTimeout(resolve, delay));
        const result = await next(args);
        call.end = performance.now();
        return result;
      },
      { step: 'initialize', name: 'slowStoreForAuditTest' },
    );
    const slow = testApp({ ...deps, store: dynamoStores(dynamo, deps) });
    const response = await slow.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
    const answered = performance.now();
    expect(response.status).toBe(200);
    const [audit, session] = (['audit', 'session'] as const).map((kind) => calls.find((call) => call.kind === kind));
    if (!audit || !session) throw new Error(`no audit or session write: ${JSON.stringify(calls)}`);
    // Started together (the event did not wait for the session), and both done before the answer.
    expect(audit.start).toBeLessThan(session.end - delay / 2);
    expect(session.start).toBeLessThan(audit.end - delay / 2);
    expect(answered).toBeGreaterThanOrEqual(Math.max(audit.end, session.end));
    // Nothing started after them: they are the last round trip.
    expect(calls.filter((call) => call.start > Math.min(audit.start, session.start) + delay / 2)).toEqual([]);
  });
});
