import { beforeAll, describe, expect, it } from 'vitest';
import { listUsers } from '../../lib/admin/users';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';

const PASSWORD = 'tenant admin passphrase';

/** The tenant console's search of the staff list (docs/api.md 15.3.1): a filter of listUsers, page by page. */
describe('listUsers with a search', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let admin: Awaited<ReturnType<typeof app.identityOf>>;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenantId = uniqueTenant('search');
    const registered = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    admin = await app.identityOf(registered.token);
    for (const [username, email, role] of [
      ['Alice.Berg', 'alice@shop.example', 'OPERATOR'],
      ['bob', 'robert.berg@shop.example', 'ANALYST'],
      ['carol', undefined, 'OPERATOR'],
    ] as const) {
      deps.clock.advance(1);
      const created = await app.request('register', {
        token: registered.token,
        body: { username, password: PASSWORD, role, tenantId, ...(email ? { email } : {}) },
      });
      expect(created.status).toBe(201);
    }
  });

  const names = async (query: Parameters<typeof listUsers>[2]) => {
    if (!admin) throw new Error('no admin');
    const page = await listUsers(deps, admin, query);
    return { usernames: page.users.map((user) => user.username), more: page.nextCursor !== null };
  };

  it.each([
    ['part of a username as typed', 'Alice', ['Alice.Berg']],
    ['part of a username in lower case', 'berg', ['Alice.Berg', 'bob']],
    ['part of an email address, whatever its case', 'ROBERT', ['bob']],
    ['nothing that matches', 'zed', []],
  ])('finds staff by %s', async (_, search, usernames) => {
    expect(await names({ limit: 50, search })).toEqual({ usernames, more: false });
  });

  it('combines the search with the role filter, and pages through the matches', async () => {
    expect(await names({ limit: 50, search: 'berg', role: 'ANALYST' })).toEqual({ usernames: ['bob'], more: false });
    if (!admin) throw new Error('no admin');
    const first = await listUsers(deps, admin, { limit: 1, search: 'berg' });
    expect(first.users.map((user) => user.username)).toEqual(['Alice.Berg']);
    const second = await listUsers(deps, admin, { limit: 1, search: 'berg', cursor: first.nextCursor ?? '' });
    expect(second.users.map((user) => user.username)).toEqual(['bob']);
  });
});
