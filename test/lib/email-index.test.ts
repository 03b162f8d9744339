import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';

const PASSWORD = 'correct horse battery';

describe('the email index (lib/store/table.ts): a tenant’s users by email address', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant('email-index');
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
  });

  const register = async (username: string, email: string, tenant = tenantId, token = adminToken) => {
    const response = await app.request('register', {
      token,
      body: { username, password: PASSWORD, role: 'ANALYST', tenantId: tenant, email },
    });
    expect(response.status).toBe(201);
    return response.body.data as { user: { id: string } };
  };
  const found = async (email: string, tenant = tenantId) =>
    (await deps.store.users.findByEmail(tenant, email)).map((user) => user.id).sort();

  it('finds the users of the tenant with an address, regardless of case, and no one of another tenant', async () => {
    const carol = await register('carol', 'carol@example.com');
    const other = uniqueTenant('email-index');
    const otherAdmin = await registerAdmin(app, other, 'admin', PASSWORD);
    await register('carol', 'carol@example.com', other, otherAdmin.token);

    expect(await found('Carol@EXAMPLE.com')).toEqual([carol.user.id]);
    expect(await found('nobody@example.com')).toEqual([]);
    expect((await deps.store.users.findByEmail(tenantId, 'carol@example.com'))[0]).toMatchObject({ username: 'carol', tenantId });
  });

  it('lists every user who shares an address', async () => {
    const first = await register('dave', 'shared@example.com');
    const second = await register('erin', 'shared@example.com');
    expect(await found('shared@example.com')).toEqual([first.user.id, second.user.id].sort());
  });

  it('follows a change of address and forgets an erased user', async () => {
    const frank = await register('frank', 'frank@example.com');
    // Past the resend wait of the code sent at registration (docs/api.md 8.8).
    deps.clock.advance(120);
    const signedIn = await app.request('login', { body: { username: 'frank', password: PASSWORD, tenantId } });
    expect((await app.request('emailSet', { token: signedIn.body.data.token, body: { email: 'frank@example.org' } })).status).toBe(200);
    expect(await found('frank@example.com')).toEqual([]);
    expect(await found('frank@example.org')).toEqual([frank.user.id]);

    const erased = await app.request('adminDeleteUser', { token: adminToken, pathParameters: { userId: frank.user.id } });
    expect(erased.status).toBe(200);
    expect(await found('frank@example.org')).toEqual([]);
  });
});
