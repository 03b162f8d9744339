import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { activateTotp } from '../helpers/mfa';

const PASSWORD = 'tenant admin passphrase';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const denied = { status: 403, headers: expect.anything(), body: failure('Permission denied') };
const notFound = { status: 404, headers: expect.anything(), body: failure('User not found') };
const lastAdmin = { status: 409, headers: expect.anything(), body: failure('A tenant must keep an active ADMIN') };

describe('tenant administration: users (docs/api.md 9)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  /** A new tenant with its ADMIN and members of the given roles. */
  async function tenant(...roles: string[]) {
    const tenantId = uniqueTenant('admin');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const members = [];
    for (const [i, role] of roles.entries()) {
      // Listed by creation time: one second apart.
      deps.clock.advance(1);
      // An ADMIN's registration gives no session of the member's: the member logs in.
      members.push(await registerStaff(app, admin.token, { username: `member-${i}`, password: PASSWORD, role, tenantId }));
    }
    return { tenantId, admin, members };
  }

  const listed = (user: { id: string; username: string; role: string }, overrides: Record<string, unknown> = {}) => ({
    id: user.id,
    username: user.username,
    role: user.role,
    shopId: deps.config.defaultShopId,
    status: 'active',
    email: null,
    emailVerified: false,
    mfaMethods: [],
    createdAt: expect.stringMatching(ISO),
    lastLoginAt: expect.stringMatching(ISO),
    ...overrides,
  });

  describe('GET /admin/users', () => {
    it('answers the tenant’s users, oldest first, page by page with an opaque cursor', async () => {
      const { admin, members } = await tenant('OPERATOR', 'ANALYST');
      const first = await app.request('adminListUsers', { token: admin.token, query: { limit: '2' } });
      expect(first).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { users: [listed(admin.user), listed(members[0]!.user)], nextCursor: expect.any(String) } },
      });
      const second = await app.request('adminListUsers', { token: admin.token, query: { limit: '2', cursor: first.body.data.nextCursor } });
      expect(second.body).toEqual({ success: true, data: { users: [listed(members[1]!.user)], nextCursor: null } });
    });

    it('filters by role and status', async () => {
      const { admin, members } = await tenant('OPERATOR', 'ANALYST', 'OPERATOR');
      const byRole = await app.request('adminListUsers', { token: admin.token, query: { role: 'OPERATOR' } });
      expect(byRole.body).toEqual({
        success: true,
        data: { users: [listed(members[0]!.user), listed(members[2]!.user)], nextCursor: null },
      });
      await app.request('adminUpdateUser', {
        token: admin.token,
        pathParameters: { userId: members[1]!.user.id },
        body: { status: 'disabled' },
      });
      const disabled = await app.request('adminListUsers', { token: admin.token, query: { status: 'disabled' } });
      expect(disabled.body).toEqual({
        success: true,
        data: { users: [listed(members[1]!.user, { status: 'disabled' })], nextCursor: null },
      });
    });

    it.each([
      [{ limit: '0' }, 'limit: Too small: expected number to be >=1'],
      [{ limit: '101' }, 'limit: Too big: expected number to be <=100'],
      [{ role: 'ROOT' }, expect.stringMatching(/^role: Invalid option/)],
      [{ status: 'gone' }, expect.stringMatching(/^status: Invalid option/)],
      [{ tenantId: 'other' }, expect.stringMatching(/^query: Unrecognized key/)],
      [{ cursor: 'not-a-cursor' }, 'Invalid cursor'],
      [{ cursor: Buffer.from('{"t":"x","c":"2020-01-01T00:00:00.000Z","i":"a"}').toString('base64url') }, 'Invalid cursor'],
    ])('answers 400 for the query %j', async (query, error) => {
      const { admin } = await tenant();
      expect(await app.request('adminListUsers', { token: admin.token, query })).toEqual({
        status: 400,
        headers: expect.anything(),
        body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
      });
    });

    it('answers 400 Invalid cursor for a cursor of another tenant, never its users', async () => {
      const a = await tenant('OPERATOR', 'OPERATOR');
      const b = await tenant();
      const page = await app.request('adminListUsers', { token: a.admin.token, query: { limit: '1' } });
      expect(await app.request('adminListUsers', { token: b.admin.token, query: { cursor: page.body.data.nextCursor } })).toEqual({
        status: 400,
        headers: expect.anything(),
        body: failure('Invalid cursor'),
      });
    });

    it('answers 403 Permission denied to anyone but an ADMIN, also without a token', async () => {
      const { members } = await tenant('MANAGER');
      expect(await app.request('adminListUsers', { token: members[0]!.token })).toEqual(denied);
      expect(await app.request('adminListUsers', { query: { limit: 'x' } })).toEqual(denied);
    });
  });

  describe('GET /admin/users/{userId}', () => {
    it('answers the user, with their active MFA methods', async () => {
      const { admin, members } = await tenant('FINANCE');
      await activateTotp(app, deps, members[0]!.token);
      expect(await app.request('adminReadUser', { token: admin.token, pathParameters: { userId: members[0]!.user.id } })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { user: listed(members[0]!.user, { mfaMethods: ['TOTP'] }) } },
      });
    });

    it('answers 404 User not found for an unknown id and for a user of another tenant alike, 400 for a malformed id', async () => {
      const a = await tenant();
      const b = await tenant('OPERATOR');
      expect(await app.request('adminReadUser', { token: a.admin.token, pathParameters: { userId: randomUUID() } })).toEqual(notFound);
      expect(await app.request('adminReadUser', { token: a.admin.token, pathParameters: { userId: b.members[0]!.user.id } })).toEqual(
        notFound,
      );
      expect(await app.request('adminReadUser', { token: a.admin.token, pathParameters: { userId: 'x' } })).toEqual({
        status: 400,
        headers: expect.anything(),
        body: failure('userId: Invalid UUID'),
      });
    });
  });

  describe('PATCH /admin/users/{userId}', () => {
    it('changes role and shop, and the user’s next request carries them', async () => {
      const { admin, members } = await tenant('OPERATOR');
      const member = members[0]!;
      await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'shop-2', name: 'Second shop' } });
      const response = await app.request('adminUpdateUser', {
        token: admin.token,
        pathParameters: { userId: member.user.id },
        body: { role: 'MANAGER', shopId: 'shop-2' },
      });
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { user: listed(member.user, { role: 'MANAGER', shopId: 'shop-2' }) } },
      });
      const me = await app.request('me', { token: member.token });
      expect(me.body.data.user).toEqual(expect.objectContaining({ role: 'MANAGER', shopId: 'shop-2' }));
    });

    it('disabling refuses the user’s live access token and refresh token on their next request', async () => {
      const { admin, members } = await tenant('OPERATOR');
      const member = members[0]!;
      const response = await app.request('adminUpdateUser', {
        token: admin.token,
        pathParameters: { userId: member.user.id },
        body: { status: 'disabled' },
      });
      expect(response.body).toEqual({ success: true, data: { user: listed(member.user, { status: 'disabled' }) } });
      expect(await app.request('me', { token: member.token })).toEqual({
        status: 401,
        headers: expect.anything(),
        body: failure('Unauthorized'),
      });
      expect((await app.request('refreshToken', { body: { refreshToken: member.refreshToken } })).body).toEqual(
        failure('Invalid refresh token'),
      );
      expect(
        (await app.request('login', { body: { username: member.user.username, password: PASSWORD, tenantId: member.user.tenantId } }))
          .status,
      ).toBe(401);
    });

    it('a demoted ADMIN’s next request carries the new role', async () => {
      const { admin, members } = await tenant('ADMIN');
      const other = members[0]!;
      const demoted = await app.request('adminUpdateUser', {
        token: admin.token,
        pathParameters: { userId: other.user.id },
        body: { role: 'ANALYST' },
      });
      expect(demoted.status).toBe(200);
      expect(await app.request('adminListUsers', { token: other.token })).toEqual(denied);
    });

    it('answers 409 when the last active ADMIN would be demoted or disabled, and lets one of two go', async () => {
      const { admin, members } = await tenant('OPERATOR');
      const self = { token: admin.token, pathParameters: { userId: admin.user.id } };
      expect(await app.request('adminUpdateUser', { ...self, body: { role: 'MANAGER' } })).toEqual(lastAdmin);
      expect(await app.request('adminUpdateUser', { ...self, body: { status: 'disabled' } })).toEqual(lastAdmin);
      await app.request('adminUpdateUser', {
        token: admin.token,
        pathParameters: { userId: members[0]!.user.id },
        body: { role: 'ADMIN' },
      });
      expect((await app.request('adminUpdateUser', { ...self, body: { role: 'MANAGER' } })).status).toBe(200);
    });

    it('two ADMINs demoting each other at the same moment: one stays ADMIN', async () => {
      const { admin, members } = await tenant('ADMIN');
      const other = members[0]!;
      const answers = await Promise.all([
        app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId: other.user.id }, body: { role: 'OPERATOR' } }),
        app.request('adminUpdateUser', { token: other.token, pathParameters: { userId: admin.user.id }, body: { role: 'OPERATOR' } }),
      ]);
      const roles = await Promise.all(
        [admin.user.id, other.user.id].map(async (id) => (await deps.store.users.findById(admin.user.tenantId, id))?.role),
      );
      expect(roles.filter((role) => role === 'ADMIN')).toHaveLength(1);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, expect.any(Number)]);
    });

    it.each([
      [{ role: 'ROOT' }, expect.stringMatching(/^role: Invalid option/)],
      [{ status: 'deleted' }, expect.stringMatching(/^status: Invalid option/)],
      [{ shopId: '' }, 'shopId: Too small: expected string to have >=1 characters'],
      [{ passwordHash: 'x' }, expect.stringMatching(/^body: Unrecognized key/)],
    ])('answers 400 for the body %j', async (body, error) => {
      const { admin, members } = await tenant('OPERATOR');
      expect(await app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId: members[0]!.user.id }, body })).toEqual({
        status: 400,
        headers: expect.anything(),
        body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
      });
    });
  });

  describe('DELETE /admin/users/{userId}', () => {
    it('erases the user, their sessions and MFA; the username registers again', async () => {
      const { tenantId, admin, members } = await tenant('OPERATOR');
      const member = members[0]!;
      await activateTotp(app, deps, member.token);
      expect(await app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId: member.user.id } })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'User deleted' } },
      });
      expect((await app.request('me', { token: member.token })).status).toBe(401);
      expect(await deps.store.users.findById(tenantId, member.user.id)).toBeUndefined();
      expect(await deps.store.mfa.list(tenantId, member.user.id)).toEqual([]);
      expect(await deps.store.sessions.listByUser(tenantId, member.user.id)).toEqual([]);
      expect(await app.request('adminReadUser', { token: admin.token, pathParameters: { userId: member.user.id } })).toEqual(notFound);
      expect(await app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId: member.user.id } })).toEqual(notFound);
      const again = await app.request('register', {
        token: admin.token,
        body: { username: member.user.username, password: PASSWORD, role: 'OPERATOR', tenantId },
      });
      expect(again.status).toBe(201);
    });

    it('answers 409 for the last active ADMIN', async () => {
      const { admin } = await tenant();
      expect(await app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId: admin.user.id } })).toEqual(lastAdmin);
      expect((await app.request('me', { token: admin.token })).status).toBe(200);
    });
  });

  describe('POST /admin/users/{userId}/mfa/reset', () => {
    it('removes every factor and ends the user’s sessions; the user signs in with the password alone', async () => {
      const { tenantId, admin, members } = await tenant('OPERATOR');
      const member = members[0]!;
      await activateTotp(app, deps, member.token);
      expect(await app.request('adminResetUserMfa', { token: admin.token, pathParameters: { userId: member.user.id } })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'MFA reset' } },
      });
      expect((await app.request('me', { token: member.token })).status).toBe(401);
      expect(await deps.store.mfa.list(tenantId, member.user.id)).toEqual([]);
      const login = await app.request('login', { body: { username: member.user.username, password: PASSWORD, tenantId } });
      expect(login.status).toBe(200);
    });
  });

  describe('DELETE /admin/users/{userId}/sessions', () => {
    it('signs the user out everywhere and says how many sessions ended', async () => {
      const { tenantId, admin, members } = await tenant('OPERATOR');
      const member = members[0]!;
      const second = await app.request('login', { body: { username: member.user.username, password: PASSWORD, tenantId } });
      expect(await app.request('adminSignOutUser', { token: admin.token, pathParameters: { userId: member.user.id } })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { revoked: 2 } },
      });
      expect((await app.request('me', { token: member.token })).status).toBe(401);
      expect((await app.request('me', { token: second.body.data.token })).status).toBe(401);
      expect((await app.request('adminSignOutUser', { token: admin.token, pathParameters: { userId: member.user.id } })).body).toEqual({
        success: true,
        data: { revoked: 0 },
      });
    });

    it('answers 403 to a non-ADMIN and 404 for a user of another tenant', async () => {
      const a = await tenant('MANAGER');
      const b = await tenant('OPERATOR');
      const target = { pathParameters: { userId: b.members[0]!.user.id } };
      expect(await app.request('adminSignOutUser', { token: a.members[0]!.token, ...target })).toEqual(denied);
      expect(await app.request('adminSignOutUser', { token: a.admin.token, ...target })).toEqual(notFound);
      expect((await app.request('me', { token: b.members[0]!.token })).status).toBe(200);
    });
  });
});
