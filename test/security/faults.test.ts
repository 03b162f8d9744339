import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DynamoDbLocal, freePort, startDynamoDbLocal } from '../../scripts/dynamodb-local';
import { testApp } from '../helpers/app';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { createTable, scanTable } from '../helpers/isolated-table';

const PASSWORD = 'fault tolerant passphrase';

/**
 * Stops DynamoDB Local in the middle of a stream of requests and brings it back:
 * every request either succeeds or fails cleanly, nothing is half-written, and the
 * same (not restarted) functions work again once the database is back.
 */
describe('database outage', () => {
  let db: DynamoDbLocal | undefined;
  afterAll(async () => db?.stop());

  it('fails cleanly while the database is down and recovers without a restart', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'identity-faults-'));
    db = await startDynamoDbLocal({ port, dataDir });
    const tableName = 'faults';
    await createTable(db.endpoint, tableName);
    const deps = await testDeps({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: db.endpoint });
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
      const registered = await app.request('register', { token: admin.body.data.token, body: { username, password: PASSWORD, role: 'OPERATOR', tenantId } });
      answers.push(registered);
      if (registered.status === 201) latest.set(username, registered.body.data.refreshToken);
      const current = latest.get('user-0');
      if (current) {
        const refreshed = await app.request('refresh', { body: { refreshToken: current } });
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
    await db.stop();
    for (let i = 0; i < 5; i++) await step();
    db = await startDynamoDbLocal({ port, dataDir });
    for (let i = 0; i < 5; i++) await step();

    expect(statuses.filter((s) => s >= 500).length).toBeGreaterThanOrEqual(5);
    expect([...failures]).toEqual(['Service unavailable']);
    expect(statuses.slice(-10).every((s) => s < 500)).toBe(true);
    expect(deps.logText()).not.toContain(PASSWORD);

    // Nothing half-written: every user has its username record and the other way round.
    const items = await scanTable(db.endpoint, tableName);
    const users = items.filter((item) => String(item.pk).includes('#USER#'));
    const usernames = items.filter((item) => String(item.pk).includes('#USERNAME#'));
    expect(usernames.map((u) => u.userId).sort()).toEqual(users.map((u) => u.id).sort());

    // Every refresh token a client holds still works: no rotation lost its successor.
    for (const [username, refreshToken] of latest) {
      const response = await app.request('refresh', { body: { refreshToken } });
      expect(response.status, username).toBe(200);
    }
  }, 120_000);
});
