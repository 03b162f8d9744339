import { describe, expect, inject, it } from 'vitest';
import { testApp } from '../helpers/app';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { scanTable } from '../helpers/isolated-table';

describe('secrets at rest and in logs', () => {
  it('logs a full account flow with tenant, user and request id, and stores and logs no password or token in the clear', async () => {
    const deps = await testDeps();
    const app = testApp(deps);
    const tenantId = uniqueTenant();
    const password = 'Unique-Pa55phrase-For-Logs';
    const wrongPassword = 'Wrong-Pa55phrase-For-Logs';
    const secrets: string[] = [password, wrongPassword];

    const registered = await app.request('register', { body: { username: 'logan', password, role: 'ADMIN', tenantId } });
    const second = await app.request('register', {
      token: registered.body.data.token,
      body: { username: 'logan2', password: `${password}-2`, role: 'ANALYST', tenantId },
    });
    expect([second.body.data.token, second.body.data.refreshToken]).toEqual(['', '']);
    secrets.push(`${password}-2`);
    await app.request('login', { body: { username: 'logan', password: wrongPassword, tenantId } });
    const login = await app.request('login', { body: { username: 'logan', password, tenantId } });
    const refreshed = await app.request('refreshToken', { body: { refreshToken: login.body.data.refreshToken } });
    await app.request('refreshToken', { body: { refreshToken: login.body.data.refreshToken } }); // reuse
    await app.request('me', { token: refreshed.body.data.token });
    const secondLogin = await app.request('login', { body: { username: 'logan2', password: `${password}-2`, tenantId } });
    await app.request('logout', { token: secondLogin.body.data.token });

    for (const data of [registered.body.data, secondLogin.body.data, login.body.data, refreshed.body.data]) {
      secrets.push(data.token, data.refreshToken, data.refreshToken.split('.').at(-1));
    }
    const text = deps.logText();
    for (const secret of secrets) expect(text).not.toContain(secret);
    const table = JSON.stringify(await scanTable(inject('dynamodbEndpoint'), inject('tableName')));
    for (const secret of secrets) expect(table).not.toContain(secret);
    expect(table).toContain(tenantId);

    const events = deps.logs.map((line) => line.event);
    expect(events).toEqual(
      expect.arrayContaining([
        'user_registered',
        'login_failed',
        'login_succeeded',
        'refresh_succeeded',
        'refresh_token_reuse_detected',
        'logout',
      ]),
    );
    for (const line of deps.logs.filter((l) => l.event !== 'token_rejected')) {
      expect(line).toMatchObject({ tenantId, requestId: expect.any(String) });
    }
  });
});
