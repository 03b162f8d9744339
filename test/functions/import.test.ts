import bcrypt from 'bcryptjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

/** docs/api.md 13.2: POST /admin/users/import. */
describe('POST /admin/users/import', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  /** A bcrypt hash of PASSWORD at the lowest cost: the format is the subject elsewhere (test/lib/imported-hashes.test.ts). */
  let hash: string;
  const PASSWORD = 'their old passphrase';

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenantId = uniqueTenant('import');
    admin = await registerAdmin(app, tenantId, 'admin', 'tenant admin passphrase');
    hash = bcrypt.hashSync(PASSWORD, 4);
    expect((await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'berlin-1', name: 'Berlin' } })).status).toBe(201);
  });

  const importRows = (users: unknown, token = admin.token) => app.request('adminImportUsers', { token, body: { users } });
  const answer = (imported: number, failed: Array<{ index: number; error: string }> = []) => ({
    status: 200,
    headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
    body: { success: true, data: { imported, failed } },
  });
  const badRequest = (message: string) => ({ status: 400, headers: expect.anything(), body: expect.objectContaining(failure(message)) });
  const login = (username: string, password = PASSWORD, tenant = tenantId) =>
    app.request('login', { body: { username, password, tenantId: tenant } });
  const userOf = (username: string, tenant = tenantId) => deps.store.users.findByUsername(tenant, username);

  // A thousand transactions: beside the run's other files on two cores, they may take over the default 20 s.
  it('creates 1,000 users in one call, each with its role, shop and hash, and they sign in', async () => {
    const users = Array.from({ length: 1000 }, (_, i) => ({
      username: `bulk-${i}`,
      role: i % 2 ? 'OPERATOR' : 'ANALYST',
      ...(i % 3 ? { shopId: 'berlin-1' } : {}),
      passwordHash: hash,
    }));
    const commands: string[] = [];
    deps.dynamo.doc.middlewareStack.add(
      (next, { commandName }) =>
        (args) => {
          commands.push(commandName);
          return next(args);
        },
      { step: 'initialize', name: 'countImportCommands' },
    );
    const response = await importRows(users).finally(() => deps.dynamo.doc.middlewareStack.remove('countImportCommands'));
    expect(response).toEqual(answer(1000));
    // Within the function's timeout (29 s, serverless.yml) in AWS: one transaction per row,
    // 16 at a time (lib/admin/import.ts), so about 63 transactions' time one after the
    // other; besides them, the authorizer's read, the shops' reads and the audit event.
    // A wall-clock bound here measured the machine: beside the other files on two cores,
    // the same import took from 10 to over 20 s.
    const transactions = commands.filter((name) => name === 'TransactWriteItemsCommand');
    expect(transactions).toHaveLength(1000);
    expect(commands.length - transactions.length).toBeLessThanOrEqual(5);
    const [first, last] = await Promise.all([userOf('bulk-0'), userOf('bulk-997')]);
    expect(first).toMatchObject({ tenantId, role: 'ANALYST', shopId: deps.config.defaultShopId, passwordHash: hash, status: 'active' });
    expect(last).toMatchObject({ tenantId, role: 'OPERATOR', shopId: 'berlin-1', passwordHash: hash, status: 'active' });
    expect((await login('bulk-997')).status).toBe(200);
  }, 60_000);

  it('answers 400 on `users` for 1,001 rows, none, or not a list, and writes nothing', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => ({ username: `over-${i}`, role: 'ANALYST' }));
    expect(await importRows(rows)).toEqual(badRequest('users: Too big: expected array to have <=1000 items'));
    expect(await userOf('over-0')).toBeUndefined();
    expect(await importRows([])).toEqual(badRequest('users: Too small: expected array to have >=1 items'));
    expect(await importRows({ username: 'x', role: 'ANALYST' })).toEqual(
      badRequest('users: Invalid input: expected array, received object'),
    );
    expect(await app.request('adminImportUsers', { token: admin.token, body: '{"users": [' })).toEqual(badRequest('Invalid JSON body'));
  });

  it('takes bodies up to 1 MiB, where every other route keeps 16 KiB', async () => {
    // 1,000 rows of ~1 KiB each (a long email is the padding a real export has least of, but it counts the same).
    const padded = (prefix: string, count: number, size: number) =>
      Array.from({ length: count }, (_, i) => ({
        username: `${prefix}-${i}`,
        role: 'ANALYST',
        passwordHash: `$2b$04$${'x'.repeat(size)}`,
      }));
    const large = JSON.stringify({ users: padded('large', 400, 2000) });
    expect(large.length).toBeGreaterThan(512 * 1024);
    const accepted = await app.request('adminImportUsers', { token: admin.token, body: large });
    // Accepted as a body; each row then fails its own check (the hashes are malformed).
    expect(accepted).toMatchObject({ status: 200, body: { success: true, data: { imported: 0 } } });
    expect(accepted.body.data.failed).toHaveLength(400);
    const tooLarge = JSON.stringify({ users: padded('huge', 600, 2000) });
    expect(tooLarge.length).toBeGreaterThan(1024 * 1024);
    expect(await app.request('adminImportUsers', { token: admin.token, body: tooLarge })).toEqual({
      status: 413,
      headers: expect.anything(),
      body: failure('Request body too large'),
    });
    // Refused before identity, as every route's limit (docs/api.md 2).
    expect((await app.request('adminImportUsers', { body: tooLarge })).status).toBe(413);
    const shop = JSON.stringify({ shopId: 'padded-shop', name: 'x'.repeat(17 * 1024) });
    expect((await app.request('adminCreateShop', { token: admin.token, body: shop })).status).toBe(413);
  });

  it('fails each bad row with its index and error, and imports the others', async () => {
    const rows = [
      { username: 'row-ok-1', role: 'ANALYST' },
      {},
      'alice',
      { username: 'row-bad-role', role: 'BOSS' },
      { username: 'row-extra', role: 'ANALYST', password: 'plain text' },
      { username: 'row-email', role: 'ANALYST', email: 'not an address' },
      { username: 'row-verified', role: 'ANALYST', emailVerified: true },
      { username: 'x'.repeat(129), role: 'ANALYST' },
      { username: 'row-shop-form', role: 'ANALYST', shopId: 'Berlin 1' },
      { username: 'row-unknown-shop', role: 'ANALYST', shopId: 'paris-1' },
      { username: 'row-hash', role: 'ANALYST', passwordHash: 'md5$salt$abc' },
      { username: 'ROW-OK-1', role: 'ANALYST' },
      null,
      { username: 'row-ok-2', role: 'MANAGER', email: 'Row.Two@Example.com', emailVerified: true, passwordHash: hash },
    ];
    expect(await importRows(rows)).toEqual(
      answer(2, [
        { index: 1, error: 'username: Invalid input: expected string, received undefined' },
        { index: 2, error: 'row: Invalid input: expected object, received string' },
        {
          index: 3,
          error: 'role: Invalid option: expected one of "ADMIN"|"MANAGER"|"OPERATOR"|"FINANCE"|"SOURCING"|"LOGISTICS"|"ANALYST"',
        },
        { index: 4, error: 'row: Unrecognized key: "password"' },
        { index: 5, error: 'email: Invalid email address' },
        { index: 6, error: 'emailVerified: A verified email needs an email' },
        { index: 7, error: 'username: Too big: expected string to have <=128 characters' },
        {
          index: 8,
          error: 'shopId: Invalid id: expected 3 to 63 lower-case letters, digits and hyphens, not starting or ending with a hyphen',
        },
        { index: 9, error: 'Unknown shop' },
        { index: 10, error: 'Unsupported password hash' },
        // Usernames are case-insensitive (docs/api.md 4.3): the batch's own first row has it.
        { index: 11, error: 'User already exists' },
        { index: 12, error: 'row: Invalid input: expected object, received null' },
      ]),
    );
    for (const username of ['row-bad-role', 'row-extra', 'row-unknown-shop', 'row-hash']) expect(await userOf(username)).toBeUndefined();
    // The email as given, verified as given; without a hash, the password login refuses like a wrong password.
    const imported = await userOf('row-ok-2');
    const read = await app.request('adminReadUser', { token: admin.token, pathParameters: { userId: String(imported?.id) } });
    expect(read.body.data.user).toMatchObject({ username: 'row-ok-2', role: 'MANAGER', email: 'Row.Two@Example.com', emailVerified: true });
    expect(await userOf('row-ok-1')).not.toHaveProperty('passwordHash');
    expect(await userOf('row-ok-1')).not.toHaveProperty('email');
    expect(await login('row-ok-1', '')).toMatchObject({ status: 400 });
    expect(await login('row-ok-1', 'any password at all')).toEqual({
      status: 401,
      headers: expect.anything(),
      body: failure('Invalid credentials'),
    });
  });

  it('gives a username repeated in one call to its first good row', async () => {
    const rows = [
      { username: 'twice', role: 'ANALYST', passwordHash: 'not a hash' },
      { username: 'Twice', role: 'OPERATOR', passwordHash: hash },
      { username: 'TWICE', role: 'FINANCE' },
    ];
    expect(await importRows(rows)).toEqual(
      answer(1, [
        { index: 0, error: 'Unsupported password hash' },
        { index: 2, error: 'User already exists' },
      ]),
    );
    expect(await userOf('twice')).toMatchObject({ username: 'Twice', role: 'OPERATOR', passwordHash: hash });
  });

  it('is safe to run again: existing usernames fail with User already exists and keep what they had', async () => {
    const rows = [
      { username: 'rerun-1', role: 'ANALYST', passwordHash: hash },
      { username: 'rerun-2', role: 'FINANCE' },
    ];
    expect(await importRows(rows)).toEqual(answer(2));
    const before = await userOf('rerun-1');
    const again = [
      { ...rows[0], role: 'ADMIN', passwordHash: bcrypt.hashSync('another', 4) },
      rows[1],
      { username: 'rerun-3', role: 'ANALYST' },
    ];
    expect(await importRows(again)).toEqual(
      answer(1, [
        { index: 0, error: 'User already exists' },
        { index: 1, error: 'User already exists' },
      ]),
    );
    expect(await userOf('rerun-1')).toEqual(before);
    // A registered user is an existing username too.
    expect(await importRows([{ username: 'admin', role: 'ANALYST' }])).toEqual(answer(0, [{ index: 0, error: 'User already exists' }]));
  });

  it('records one audit event per call, with the counts and no hash', async () => {
    // After the events of the calls before, in time.
    deps.clock.advance(1);
    expect(
      await importRows([
        { username: 'audited-1', role: 'ANALYST', passwordHash: hash },
        { username: 'bad', role: 'X' },
      ]),
    ).toEqual(
      answer(1, [
        {
          index: 1,
          error: 'role: Invalid option: expected one of "ADMIN"|"MANAGER"|"OPERATOR"|"FINANCE"|"SOURCING"|"LOGISTICS"|"ANALYST"',
        },
      ]),
    );
    const events = await app.request('adminListAudit', { token: admin.token, query: { type: 'users_imported', limit: '1' } });
    expect(events.body.data.events[0]).toMatchObject({
      type: 'users_imported',
      actor: { type: 'user', id: admin.user.id },
      targetUserId: null,
      outcome: 'success',
      details: { imported: 1, failed: 1 },
    });
    expect(JSON.stringify(events.body)).not.toContain(hash.slice(7));
    expect(deps.logText()).not.toContain(hash.slice(7));
  });

  it('answers 403 Permission denied to anyone but an ADMIN of the tenant, also without a token', async () => {
    const denied = { status: 403, headers: expect.anything(), body: failure('Permission denied') };
    for (const role of ['MANAGER', 'OPERATOR']) {
      const staff = await registerStaff(app, admin.token, {
        username: `staff-${role}`,
        password: 'staff member passphrase',
        role,
        tenantId,
      });
      expect(await importRows([{ username: `by-${role}`, role: 'ANALYST' }], staff.token)).toEqual(denied);
      expect(await userOf(`by-${role}`)).toBeUndefined();
    }
    expect(await app.request('adminImportUsers', { body: { users: 'not even a list' } })).toEqual(denied);
  });

  it('creates users in the caller’s tenant only: another tenant’s shop is unknown, its usernames are no clash', async () => {
    const other = uniqueTenant('import-other');
    const otherAdmin = await registerAdmin(app, other, 'admin', 'other admin passphrase');
    await app.request('adminCreateShop', { token: otherAdmin.token, body: { shopId: 'their-shop', name: 'Theirs' } });
    await importRows([{ username: 'shared-name', role: 'ANALYST', passwordHash: hash }], otherAdmin.token);
    expect(
      await importRows([
        { username: 'shared-name', role: 'OPERATOR', passwordHash: bcrypt.hashSync('mine', 4) },
        { username: 'their-shop-user', role: 'ANALYST', shopId: 'their-shop' },
      ]),
    ).toEqual(answer(1, [{ index: 1, error: 'Unknown shop' }]));
    expect(await userOf('shared-name')).toMatchObject({ tenantId, role: 'OPERATOR' });
    expect(await userOf('shared-name', other)).toMatchObject({ tenantId: other, role: 'ANALYST', passwordHash: hash });
    expect((await login('shared-name', PASSWORD, other)).status).toBe(200);
    expect((await login('shared-name', PASSWORD)).status).toBe(401);
  });

  it('lets a user imported without a hash set a password through the reset flow', async () => {
    expect(await importRows([{ username: 'no-hash', role: 'ANALYST', email: 'no-hash@example.com', emailVerified: true }])).toEqual(
      answer(1),
    );
    const user = await userOf('no-hash');
    expect((await app.request('passwordForgot', { body: { username: 'no-hash', tenantId } })).status).toBe(202);
    const code = (await deps.outbox.latest(tenantId, String(user?.id), 'EMAIL', 'reset'))?.code;
    expect(code).toMatch(/^\d{6}$/);
    const newPassword = 'a brand new passphrase';
    const reset = await app.request('passwordReset', { body: { username: 'no-hash', tenantId, code, newPassword } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await login('no-hash', newPassword)).status).toBe(200);
  });
});
