import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type DatabaseGate, databaseGate } from '../helpers/database-gate';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { isServiceUnavailable, type Response } from '../helpers/http';
import { createTable, scanTable } from '../helpers/isolated-table';
import { authenticator, newTotpSecret } from '../helpers/mfa';
import { authorizationCode, createClient, type TestClient, tokenRequest } from '../helpers/oauth';
import { halfWrittenState } from '../helpers/table-invariants';

/*
 * The database itself goes away: behind a gate of the test's own (test/helpers/database-gate.ts),
 * DynamoDB Local is stopped, killed, frozen or hung under the functions, as their sockets
 * see it (injected-faults/ fails single calls instead, lost-answers.test.ts loses
 * answers of applied writes). Each test has a table of its own, scanned past the gate.
 */
const PASSWORD = 'outage tolerant passphrase';
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const endpoint = inject('dynamodbEndpoint');
/** A table of its own for one test, and a gate in front of the database for its functions. */
const outageTable = async (name: string) => {
  const tableName = `${name}-${Date.now()}`;
  await createTable(endpoint, tableName);
  return { tableName, gate: await databaseGate(endpoint) };
};

/**
 * Stops DynamoDB Local in the middle of a stream of requests and brings it back:
 * every request either succeeds or fails cleanly, nothing is half-written, and the
 * same (not restarted) functions work again once the database is back.
 */
describe('database stopped and restarted between requests', () => {
  let gate: DatabaseGate | undefined;
  afterAll(async () => gate?.close());

  it('fails cleanly while the database is down and recovers without a restart', async () => {
    const outage = await outageTable('faults');
    gate = outage.gate;
    const { tableName } = outage;
    const deps = await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: gate.endpoint });
    const app = testApp(deps);
    const tenantId = uniqueTenant();
    const admin = await app.request('register', { body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId } });
    expect(admin.status).toBe(201);

    // Each stream: register a user, log in, refresh; remember the newest refresh token.
    const latest = new Map<string, string>();
    const statuses: number[] = [];
    const failures = new Set<string>();
    let round = 0;
    const step = async () => {
      const username = `user-${round++}`;
      const answers = [];
      const registered = await app.request('register', {
        token: admin.body.data.token,
        body: { username, password: PASSWORD, role: 'OPERATOR', tenantId },
      });
      answers.push(registered);
      if (registered.status === 201) {
        // An ADMIN's registration starts no session of the user's (docs/api.md 4.3): they log in.
        const login = await app.request('login', { body: { username, password: PASSWORD, tenantId } });
        answers.push(login);
        if (login.status === 200) latest.set(username, login.body.data.refreshToken);
      }
      const current = latest.get('user-0');
      if (current) {
        const refreshed = await app.request('refreshToken', { body: { refreshToken: current } });
        answers.push(refreshed);
        if (refreshed.status === 200) latest.set('user-0', refreshed.body.data.refreshToken);
      }
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status >= 500) {
          expect([500, 503]).toContain(answer.status);
          failures.add(answer.body.error);
        }
      }
    };

    for (let i = 0; i < 5; i++) await step();
    await gate.stop();
    for (let i = 0; i < 5; i++) await step();
    await gate.start();
    for (let i = 0; i < 5; i++) await step();

    expect(statuses.filter((s) => s >= 500).length).toBeGreaterThanOrEqual(5);
    expect([...failures]).toEqual(['Service unavailable']);
    expect(statuses.slice(-10).every((s) => s < 500)).toBe(true);
    expect(deps.logText()).not.toContain(PASSWORD);

    // Nothing half-written: every user has its username record and the other way round.
    const items = await scanTable(endpoint, tableName);
    const users = items.filter((item) => String(item.pk).includes('#USER#'));
    const usernames = items.filter((item) => String(item.pk).includes('#USERNAME#'));
    expect(usernames.map((u) => u.userId).sort()).toEqual(users.map((u) => u.id).sort());

    // Every refresh token a client holds still works: no rotation lost its successor.
    for (const [username, refreshToken] of latest) {
      const response = await app.request('refreshToken', { body: { refreshToken } });
      expect(response.status, username).toBe(200);
    }
  }, 120_000);
});

/**
 * The OAuth client lifecycle (docs/api.md 9.9-9.13) with the database stopped: every
 * route and the client's own token request answer 503 (never 404 Client not found or 401
 * Invalid client, which would look like a deleted client or a wrong secret), nothing is
 * half-written, and after the restart the same functions answer as before.
 */
describe('OAuth client lifecycle with the database stopped', () => {
  let gate: DatabaseGate | undefined;
  afterAll(async () => gate?.close());

  it('answers 503 while the database is down, and rotates and deletes once it is back', async () => {
    const outage = await outageTable('client-outage');
    gate = outage.gate;
    const { tableName } = outage;
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: gate.endpoint }));
    const app = testApp(deps);
    const tenantId = uniqueTenant('client-outage');
    const { token } = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const client = await createClient(app, token, tenantId, { grantTypes: 'client_credentials' });
    const pathParameters = { clientId: client.clientId };
    const next = { ...client, clientSecret: `${client.clientSecret}-next` };
    const requests = () => [
      app.request('listOAuth2Clients', { token }),
      app.request('readOAuth2Client', { token, pathParameters }),
      app.request('updateOAuth2Client', { token, pathParameters, body: { client_name: 'Down' } }),
      app.request('rotateOAuth2ClientSecret', { token, pathParameters, body: { client_secret: next.clientSecret } }),
      app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' })),
      app.request('deleteOAuth2Client', { token, pathParameters }),
    ];

    await gate.stop();
    for (const answer of await Promise.all(requests())) {
      expect(isServiceUnavailable(answer), `${answer.status} ${JSON.stringify(answer.body)}`).toBe(true);
    }
    await gate.start();
    expect(halfWrittenState(await scanTable(endpoint, tableName))).toEqual([]);
    // Nothing of the refused requests applied: the old secret is still the only one.
    expect((await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).status).toBe(200);
    expect((await app.request('oauth2Token', tokenRequest(next, { grant_type: 'client_credentials' }))).status).toBe(401);

    const rotated = await app.request('rotateOAuth2ClientSecret', { token, pathParameters, body: { client_secret: next.clientSecret } });
    expect(rotated.status).toBe(200);
    expect((await app.request('oauth2Token', tokenRequest(next, { grant_type: 'client_credentials' }))).status).toBe(200);
    expect((await app.request('deleteOAuth2Client', { token, pathParameters })).status).toBe(200);
    expect((await app.request('oauth2Token', tokenRequest(next, { grant_type: 'client_credentials' }))).status).toBe(401);
  }, 120_000);
});

/**
 * With requests in flight: four streams of mixed requests (register,
 * login, refresh, me, authorize, the three token grants, introspection) run while
 * DynamoDB Local is killed (SIGKILL, mid-request), restarted, and later frozen
 * (SIGSTOP) and thawed. Every answer is the operation's success or a clean 503
 * envelope, never a wrong 4xx (an outage must not look like bad credentials); the
 * table holds no half-written state; every refresh token a client holds (whose refresh
 * answered) still works; and the same functions serve requests again once the
 * database is back. Then a database that hangs: 503 before the Lambda timeout.
 */
describe('database outage with requests in flight', () => {
  let gate: DatabaseGate | undefined;
  let tableName: string;
  beforeAll(async () => {
    ({ gate, tableName } = await outageTable('outage'));
  });
  afterAll(async () => gate?.close());

  it('answers success or 503 while killed, frozen and restarted, and keeps every held token working', async () => {
    if (!gate) throw new Error('no gate');
    const deps = await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: gate.endpoint });
    nearRealTime(deps);
    const app = testApp(deps);
    const tenantId = uniqueTenant('outage');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const client: TestClient = await createClient(app, admin.token, tenantId);

    type Outcome = { op: string; status: number; phase: string };
    const outcomes: Outcome[] = [];
    const unexpected: string[] = [];
    const heldSessions = new Map<string, string>();
    const heldGrants = new Map<string, string>();
    let phase = 'up';
    let running = true;

    const check = (op: string, response: Response, ok: (r: Response) => boolean) => {
      outcomes.push({ op, status: response.status, phase });
      if (!ok(response) && !isServiceUnavailable(response))
        unexpected.push(`${op} in phase ${phase}: ${response.status} ${JSON.stringify(response.body)}`);
      return ok(response);
    };

    const stream = async (worker: number) => {
      for (let round = 0; running; round++) {
        const username = `w${worker}-r${round}`;
        const registered = await app.request('register', {
          token: admin.token,
          body: { username, password: PASSWORD, role: 'OPERATOR', tenantId },
        });
        if (!check('register', registered, (r) => r.status === 201)) continue;
        const login = await app.request('login', { body: { username, password: PASSWORD, tenantId } });
        if (!check('login', login, (r) => r.status === 200)) continue;
        let refreshToken: string | undefined = login.body.data.refreshToken;
        for (let i = 0; i < 2 && refreshToken; i++) {
          const refreshed = await app.request('refreshToken', { body: { refreshToken } });
          // An unanswered refresh may have rotated the token: the client cannot know, so it lets go of it.
          refreshToken = check('refresh', refreshed, (r) => r.status === 200) ? refreshed.body.data.refreshToken : undefined;
        }
        if (refreshToken) heldSessions.set(username, refreshToken);
        else heldSessions.delete(username);
        check('me', await app.request('me', { token: login.body.data.token }), (r) => r.status === 200);
        // The account routes (docs/api.md 8.3-8.5); signing out the other sessions keeps this one, whose refresh token is held.
        check('listSessions', await app.request('listSessions', { token: login.body.data.token }), (r) => r.status === 200);
        check('revokeOtherSessions', await app.request('revokeOtherSessions', { token: login.body.data.token }), (r) => r.status === 200);
        check('getAccount', await app.request('getAccount', { token: login.body.data.token }), (r) => r.status === 200);
        check(
          'client_credentials',
          await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' })),
          (r) => r.status === 200,
        );
        let code: { code: string; verifier: string } | undefined;
        try {
          code = await authorizationCode(app, login.body.data.token, client);
          outcomes.push({ op: 'authorize', status: 302, phase });
        } catch (error) {
          const message = String(error);
          if (!message.includes('503')) unexpected.push(`authorize in phase ${phase}: ${message}`);
          outcomes.push({ op: 'authorize', status: 503, phase });
        }
        if (!code) continue;
        const issued = await app.request(
          'oauth2Token',
          tokenRequest(client, {
            grant_type: 'authorization_code',
            code: code.code,
            redirect_uri: client.redirectUri,
            code_verifier: code.verifier,
          }),
        );
        if (!check('authorization_code', issued, (r) => r.status === 200)) continue;
        const rotated = await app.request(
          'oauth2Token',
          tokenRequest(client, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token }),
        );
        if (check('refresh_token', rotated, (r) => r.status === 200)) {
          heldGrants.set(username, rotated.body.refresh_token);
          check(
            'introspect',
            await app.request('introspect', tokenRequest(client, { token: rotated.body.refresh_token })),
            (r) => r.status === 200 && r.body.active === true,
          );
        }
      }
    };

    const streams = [0, 1, 2, 3].map((worker) => stream(worker));
    await sleep(1500);
    // Killed mid-request: whatever was in flight gets no answer from the database.
    phase = 'killed';
    await gate.kill();
    await sleep(1500);
    phase = 'restarting';
    await gate.start();
    phase = 'back';
    await sleep(1500);
    // Frozen for less than the client's request timeout (2 s): requests wait and resume.
    // (Longer, the SDK retries writes that land after thawing; those retries must find
    // their own writes: lost-answers.test.ts. A hung database is the next test.)
    phase = 'frozen';
    gate.freeze();
    await sleep(1500);
    gate.thaw();
    phase = 'thawed';
    await sleep(2500);
    phase = 'final';
    const finalFrom = outcomes.length;
    await sleep(1500);
    running = false;
    await Promise.all(streams);

    expect(unexpected).toEqual([]);
    const failed = outcomes.filter((outcome) => outcome.status >= 500);
    expect(failed.length).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome.phase === 'killed' || outcome.phase === 'frozen').length).toBeGreaterThan(0);
    // Recovered without a restart of the functions: the last phase has successes, and one
    // more round of every operation, one request at a time, succeeds throughout.
    const final = outcomes.slice(finalFrom);
    expect(final.filter((outcome) => outcome.status < 400).length).toBeGreaterThan(5);
    running = true;
    const before = outcomes.length;
    const recovery = stream(9);
    await sleep(300);
    running = false;
    await recovery;
    expect(
      outcomes
        .slice(before)
        .map((outcome) => `${outcome.op} ${outcome.status}`)
        .filter((line) => / 5\d\d$/.test(line)),
    ).toEqual([]);
    expect(new Set(outcomes.slice(before).map((outcome) => outcome.op)).size).toBeGreaterThanOrEqual(9);
    expect(deps.logText()).not.toContain(PASSWORD);

    expect(halfWrittenState(await scanTable(endpoint, tableName))).toEqual([]);
    for (const [username, refreshToken] of heldSessions) {
      expect((await app.request('refreshToken', { body: { refreshToken } })).status, `session of ${username}`).toBe(200);
    }
    for (const [username, refreshToken] of heldGrants) {
      expect(
        (await app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: refreshToken }))).status,
        `grant of ${username}`,
      ).toBe(200);
    }
    if (process.env.SHOW_COUNTS) {
      const byPhase: Record<string, Record<number, number>> = {};
      for (const { phase: p, status } of outcomes) {
        byPhase[p] ??= {};
        byPhase[p][status] = (byPhase[p][status] ?? 0) + 1;
      }
      console.log({
        requests: outcomes.length,
        failedCleanly: failed.length,
        heldSessions: heldSessions.size,
        heldGrants: heldGrants.size,
        byPhase,
      });
    }
  }, 120_000);

  it('answers a request to a hung database with a 503 before the Lambda timeout (10 s)', async () => {
    if (!gate) throw new Error('no gate');
    const deps = await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: gate.endpoint });
    nearRealTime(deps);
    const app = testApp(deps);
    const tenantId = uniqueTenant('hung');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const client = await createClient(app, admin.token, tenantId);
    // The Lambda timeout (serverless.yml): an answer after it is API Gateway's, not ours.
    const LAMBDA_TIMEOUT_MS = 10_000;
    const second = await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
    const issued = await authorizationCode(app, admin.token, client);
    const grant = await app.request(
      'oauth2Token',
      tokenRequest(client, {
        grant_type: 'authorization_code',
        code: issued.code,
        redirect_uri: client.redirectUri,
        code_verifier: issued.verifier,
      }),
    );
    const requests = [
      app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } }),
      // A known device (docs/api.md 10): its own budget's counter, the same 503.
      app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId }, headers: { 'x-device-token': admin.deviceToken } }),
      app.request('refreshToken', { body: { refreshToken: admin.refreshToken } }),
      app.request('me', { token: admin.token }),
      app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' })),
      app.request('listSessions', { token: admin.token }),
      app.request('revokeSession', { token: admin.token, pathParameters: { sessionId: String(decodeJwt(second.body.data.token).sid) } }),
      app.request('revokeOtherSessions', { token: admin.token }),
      app.request('listGrants', { token: admin.token }),
      app.request('revokeGrant', { token: admin.token, pathParameters: { grantId: String(grant.body.refresh_token).split('.')[0] ?? '' } }),
      app.request('getAccount', { token: admin.token }),
    ];
    gate.freeze();
    const started = Date.now();
    let answers: Array<{ response?: Response; ms: number }>;
    try {
      answers = await Promise.all(
        requests.map((request) =>
          Promise.race([
            request.then((response) => ({ response, ms: Date.now() - started })),
            sleep(LAMBDA_TIMEOUT_MS + 500).then(() => ({ ms: Date.now() - started })),
          ]),
        ),
      );
    } finally {
      gate.thaw();
    }
    await Promise.allSettled(requests);
    if (process.env.SHOW_COUNTS) console.log(answers.map(({ response, ms }) => [response?.status, ms]));
    for (const { response, ms } of answers) {
      expect(response, `no answer within ${LAMBDA_TIMEOUT_MS} ms`).toBeDefined();
      // client_credentials needs no database once the client is cached: it may succeed.
      expect(response?.status === 200 || (response !== undefined && isServiceUnavailable(response)), JSON.stringify(response?.body)).toBe(
        true,
      );
      expect(ms).toBeLessThan(LAMBDA_TIMEOUT_MS);
    }
    expect((await app.request('me', { token: admin.token })).status).toBe(200);
  }, 60_000);
});

/**
 * The MFA lifecycle routes (docs/api.md 8.6) and a sign-in with a recovery code while the
 * database is stopped: 503 envelopes, nothing changed, and the same functions work (and
 * the codes still count) once it is back.
 */
describe('MFA lifecycle with the database stopped', () => {
  let gate: DatabaseGate | undefined;
  afterAll(async () => gate?.close());

  it('answers 503 while it is down and works again without a restart', async () => {
    const outage = await outageTable('mfa-outage');
    gate = outage.gate;
    const { tableName } = outage;
    const deps = await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: gate.endpoint });
    nearRealTime(deps);
    const app = testApp(deps);
    const tenantId = uniqueTenant('mfa-outage');
    const admin = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    const secret = newTotpSecret();
    await app.request('enableMFA', { token: admin.token, body: { method: 'TOTP', secret } });
    const code = authenticator(deps, secret);
    await app.request('verifyMFA', { token: admin.token, body: { method: 'TOTP', code: code() } });
    const login = (extra: Record<string, unknown>) =>
      app.request('login', { body: { username: 'alice', password: PASSWORD, tenantId, ...extra } });
    const token = (await login({ mfaCode: code(1) })).body.data.token as string;
    const codes = (await app.request('generateRecoveryCodes', { token })).body.data.codes as string[];
    const requests = () => [
      app.request('listMFA', { token }),
      app.request('generateRecoveryCodes', { token }),
      app.request('disableMFA', { token, body: { method: 'TOTP' } }),
      login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] }),
    ];

    await gate.stop();
    for (const response of await Promise.all(requests())) {
      expect(isServiceUnavailable(response), JSON.stringify(response.body)).toBe(true);
    }
    await gate.start();
    expect((await app.request('listMFA', { token })).body.data.mfa.recoveryCodesRemaining).toBe(10);
    expect((await login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).status).toBe(200);
    expect((await app.request('generateRecoveryCodes', { token })).status).toBe(200);
    expect((await app.request('disableMFA', { token, body: { method: 'TOTP' } })).status).toBe(200);
    expect(halfWrittenState(await scanTable(endpoint, tableName))).toEqual([]);
  }, 120_000);
});

/**
 * Shops and the audit trail (docs/api.md 9.7, 9.8) while the database is stopped: every
 * request answers 503 (a sign-in too: its event write failing is not what answers), and
 * the same functions work once it is back, with no half-made shop.
 */
describe('shops and the audit trail with the database stopped', () => {
  let gate: DatabaseGate | undefined;
  afterAll(async () => gate?.close());

  it('answers 503 while it is down and works again after, without a restart', async () => {
    const outage = await outageTable('shops-outage');
    gate = outage.gate;
    const { tableName } = outage;
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: gate.endpoint }));
    const app = testApp(deps);
    const tenantId = uniqueTenant('shops-outage');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const requests = () => [
      app.request('adminCreateShop', { token: admin.token, body: { shopId: 'during', name: 'During' } }),
      app.request('adminListShops', { token: admin.token }),
      app.request('adminListAudit', { token: admin.token }),
      app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } }),
    ];

    await gate.stop();
    for (const response of await Promise.all(requests())) expect(isServiceUnavailable(response), JSON.stringify(response.body)).toBe(true);
    await gate.start();
    expect((await Promise.all(requests())).map((response) => response.status)).toEqual([201, 200, 200, 200]);
    const shops = (await scanTable(endpoint, tableName)).filter((item) => String(item.sk).startsWith('SHOP#'));
    expect(shops.map((shop) => shop.shopId).sort()).toEqual(['default', 'during']);
  }, 120_000);
});
