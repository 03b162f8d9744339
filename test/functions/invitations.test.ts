import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock';
import { FILTERED_BATCH, MAX_QUERIES_A_PAGE } from '../../lib/store/index-page';
import { dynamoInvitationStore } from '../../lib/store/invitations';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { storeInvitations } from '../helpers/invitations';
import { localDynamo } from '../helpers/local-dynamo';
import { FORM } from '../helpers/oauth';

const PASSWORD = 'tenant admin passphrase';
const NEW_PASSWORD = 'a fresh staff passphrase';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = 24 * 3600;

/** The answer of a failure, whole. */
const refused = (status: number, error: string) => ({ status, headers: expect.anything(), body: failure(error) });

/** The token of the newest invitation link emailed to `address` (the local outbox). */
async function linkTo(deps: TestDeps, address: string): Promise<{ link: string; token: string; text: string; count: number }> {
  const emails = await deps.outbox.emails(address);
  const last = emails.at(-1);
  const link = /https?:\/\/\S+\/invitations\/(\S+)/.exec(last?.text ?? '');
  if (!last || !link?.[1]) throw new Error(`no invitation emailed to ${address}`);
  return { link: link[0], token: link[1], text: last.text, count: emails.length };
}

describe('invitations (docs/api.md 13.1)', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let admin: string;
  let manager: string;
  let operator: string;
  let other: { tenantId: string; token: string };
  let address: number;
  /** An address no other test invites. */
  const newAddress = () => `Staff.${++address}.${tenantId}@Example.com`;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant('invite');
    address = 0;
    const otherTenant = uniqueTenant('invite-other');
    const [registered, otherAdmin] = await Promise.all([
      registerAdmin(app, tenantId, 'admin', PASSWORD),
      registerAdmin(app, otherTenant, 'admin', PASSWORD),
    ]);
    admin = registered.token;
    other = { tenantId: otherTenant, token: otherAdmin.token };
    const [managerSession, operatorSession] = await Promise.all([
      registerStaff(app, admin, { username: 'manager', password: PASSWORD, role: 'MANAGER', tenantId }),
      registerStaff(app, admin, { username: 'operator', password: PASSWORD, role: 'OPERATOR', tenantId }),
      app.request('adminCreateShop', { token: admin, body: { shopId: 'berlin-1', name: 'Berlin' } }),
    ]);
    manager = managerSession.token;
    operator = operatorSession.token;
  });

  const invite = (token: string | undefined, body: Record<string, unknown>) =>
    app.request('adminCreateInvitation', { ...(token ? { token } : {}), body });
  const accept = (body: Record<string, unknown>) => app.request('acceptInvitation', { body });

  describe('POST /admin/invitations', () => {
    it('answers 201 with the pending invitation and emails an absolute single-use link', async () => {
      const email = newAddress();
      const created = await invite(admin, { email, role: 'OPERATOR', shopId: 'berlin-1' });
      expect(created).toEqual({
        status: 201,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            invitation: {
              id: expect.stringMatching(UUID),
              email: email.toLowerCase(),
              role: 'OPERATOR',
              shopId: 'berlin-1',
              status: 'pending',
              expiresAt: new Date(deps.clock.now() + 7 * DAY * 1000).toISOString(),
              createdAt: expect.stringMatching(ISO),
            },
          },
        },
      });
      const { link, token, text } = await linkTo(deps, email);
      expect(link).toBe(`${deps.config.issuer}/invitations/${token}`);
      expect(text).toContain(`You are invited to join ${tenantId} as OPERATOR.`);
      // ≥ 128 random bits; stored only as a hash.
      expect(token.split('.').at(-1)).toHaveLength(43);
      const stored = await deps.store.invitations.find(tenantId, created.body.data.invitation.id);
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(deps.logText()).not.toContain(token);
    });

    it.each([
      ['an ADMIN', 'ADMIN', 201, () => admin],
      ['an ADMIN', 'MANAGER', 201, () => admin],
      ['a MANAGER', 'OPERATOR', 201, () => manager],
      ['a MANAGER', 'ANALYST', 201, () => manager],
      ['a MANAGER', 'MANAGER', 403, () => manager],
      ['a MANAGER', 'ADMIN', 403, () => manager],
      ['an OPERATOR', 'ANALYST', 403, () => operator],
      ['nobody', 'ANALYST', 403, () => undefined],
    ])('%s inviting a %s: %i', async (_, role, status, caller) => {
      const response = await invite(caller(), { email: newAddress(), role });
      expect(response.status).toBe(status);
      if (status === 403) expect(response.body).toEqual(failure('Permission denied'));
    });

    it('answers 403 before 400: a MANAGER with a bad body is refused, not told what is wrong', async () => {
      expect(await invite(manager, { email: 'not an address', role: 'ADMIN' })).toEqual(refused(403, 'Permission denied'));
      expect(await invite(operator, { email: 'not an address', role: 'ANALYST' })).toEqual(refused(403, 'Permission denied'));
    });

    it('answers 409 Invitation already pending for an address with a pending invitation, whatever its case', async () => {
      const email = newAddress();
      expect((await invite(admin, { email, role: 'ANALYST' })).status).toBe(201);
      expect(await invite(manager, { email: email.toUpperCase(), role: 'OPERATOR' })).toEqual(refused(409, 'Invitation already pending'));
      // Another tenant may invite the same address.
      expect((await invite(other.token, { email, role: 'ANALYST' })).status).toBe(201);
    });

    it('answers 409 User already exists for an address a user of the tenant has', async () => {
      const email = `known.${tenantId}@example.com`;
      const registered = await app.request('register', {
        token: admin,
        body: { username: 'known', password: PASSWORD, role: 'ANALYST', tenantId, email },
      });
      expect(registered.status).toBe(201);
      expect(await invite(admin, { email: email.toUpperCase(), role: 'ANALYST' })).toEqual(refused(409, 'User already exists'));
    });

    it('answers 400 Unknown shop for a shop that is not the tenant’s, and invites nobody', async () => {
      const email = newAddress();
      await app.request('adminCreateShop', { token: other.token, body: { shopId: 'paris-1', name: 'Paris' } });
      expect(await invite(admin, { email, role: 'ANALYST', shopId: 'paris-1' })).toEqual(refused(400, 'Unknown shop'));
      expect(await deps.outbox.emails(email)).toEqual([]);
    });
  });

  describe('POST /auth/invitations/accept', () => {
    it('creates the account with the invited role and shop and a verified email, signed in: 201 Auth payload', async () => {
      const email = newAddress();
      const created = await invite(manager, { email, role: 'LOGISTICS', shopId: 'berlin-1' });
      const { token } = await linkTo(deps, email);
      const accepted = await accept({ token, username: 'lena', password: NEW_PASSWORD });
      expect(accepted).toEqual({
        status: 201,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        cookies: undefined,
        body: {
          success: true,
          data: {
            token: expect.any(String),
            refreshToken: expect.any(String),
            expiresIn: 900,
            deviceToken: expect.any(String),
            user: { id: expect.stringMatching(UUID), username: 'lena', role: 'LOGISTICS', tenantId, shopId: 'berlin-1' },
          },
        },
      });
      const user = await deps.store.users.findById(tenantId, accepted.body.data.user.id);
      expect(user).toMatchObject({ email: email.toLowerCase(), emailVerified: true, role: 'LOGISTICS', shopId: 'berlin-1' });
      expect((await app.request('me', { token: accepted.body.data.token })).body.data.user).toMatchObject({ username: 'lena', tenantId });
      // The password signs in from now on.
      expect((await app.request('login', { body: { username: 'lena', password: NEW_PASSWORD, tenantId } })).status).toBe(200);
      // Used: the same link again is refused, and the invitation is listed accepted.
      expect(await accept({ token, username: 'lena2', password: NEW_PASSWORD })).toEqual(refused(400, 'Invalid invitation'));
      const listed = await app.request('adminListInvitations', { token: admin, query: { status: 'accepted' } });
      expect(listed.body.data.invitations).toContainEqual({ ...created.body.data.invitation, status: 'accepted' });
      const events = await app.request('adminListAudit', { token: admin, query: { type: 'invitation_accepted' } });
      expect(events.body.data.events[0]).toMatchObject({
        targetUserId: user?.id,
        details: { invitationId: created.body.data.invitation.id, username: 'lena', role: 'LOGISTICS', shopId: 'berlin-1' },
      });
      expect(JSON.stringify(events.body)).not.toContain(token);
    });

    it.each([
      ['a password on the common list', { password: 'password123' }, 'Password is too common'],
      ['a taken username', { username: 'operator' }, 'Username already exists'],
      ['a short password', { password: 'short' }, 'password: Too small: expected string to have >=6 characters'],
    ])('refuses %s and leaves the invitation pending', async (_, change, error) => {
      const email = newAddress();
      await invite(admin, { email, role: 'ANALYST' });
      const { token } = await linkTo(deps, email);
      expect(await accept({ token, username: `u${address}`, password: NEW_PASSWORD, ...change })).toEqual(refused(400, error));
      expect((await accept({ token, username: `u${address}`, password: NEW_PASSWORD })).status).toBe(201);
    });

    it('answers 400 Invalid invitation for a malformed, forged or unknown token', async () => {
      const email = newAddress();
      await invite(admin, { email, role: 'ANALYST' });
      const { token } = await linkTo(deps, email);
      const [tenant, id, secret = ''] = token.split('.');
      const forged = `${tenant}.${id}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      const elsewhere = `${Buffer.from(other.tenantId).toString('base64url')}.${id}.${secret}`;
      for (const bad of ['x', forged, elsewhere, `${token}.x`]) {
        expect(await accept({ token: bad, username: 'mallory', password: NEW_PASSWORD })).toEqual(refused(400, 'Invalid invitation'));
      }
    });
  });

  describe('resend, revoke, expiry and the list', () => {
    it('resend: a new link valid 7 days from now (the expiry test below renews an expired one); the old link is dead', async () => {
      const email = newAddress();
      const created = await invite(admin, { email, role: 'ANALYST' });
      const first = await linkTo(deps, email);
      const resent = await app.request('adminResendInvitation', { token: admin, pathParameters: { id: created.body.data.invitation.id } });
      expect(resent).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: { invitation: { ...created.body.data.invitation, expiresAt: new Date(deps.clock.now() + 7 * DAY * 1000).toISOString() } },
        },
      });
      const second = await linkTo(deps, email);
      expect(second.count).toBe(first.count + 1);
      expect(second.token).not.toBe(first.token);
      expect(await accept({ token: first.token, username: `u${address}`, password: NEW_PASSWORD })).toEqual(
        refused(400, 'Invalid invitation'),
      );
      expect((await accept({ token: second.token, username: `u${address}`, password: NEW_PASSWORD })).status).toBe(201);
      expect(await app.request('adminResendInvitation', { token: admin, pathParameters: { id: created.body.data.invitation.id } })).toEqual(
        refused(409, 'Invitation is not pending'),
      );
    });

    it('resend: 409 User already exists once a user of the tenant has the address, and nothing is sent', async () => {
      const email = newAddress();
      const created = await invite(admin, { email, role: 'ANALYST' });
      const registered = await app.request('register', {
        token: admin,
        body: { username: `taken${address}`, password: PASSWORD, role: 'ANALYST', tenantId, email },
      });
      expect(registered.status).toBe(201);
      const sentBefore = await deps.outbox.emails(email);
      expect(await app.request('adminResendInvitation', { token: admin, pathParameters: { id: created.body.data.invitation.id } })).toEqual(
        refused(409, 'User already exists'),
      );
      expect(await deps.outbox.emails(email)).toEqual(sentBefore);
    });

    it('revoke: 200, the link dies, the address may be invited again; revoking again answers the same', async () => {
      const email = newAddress();
      const created = await invite(admin, { email, role: 'ANALYST' });
      const { id } = created.body.data.invitation;
      const { token } = await linkTo(deps, email);
      const revoke = () => app.request('adminRevokeInvitation', { token: admin, pathParameters: { id } });
      expect(await revoke()).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { message: 'Invitation revoked' } },
      });
      expect((await revoke()).status).toBe(200);
      expect(await accept({ token, username: `u${address}`, password: NEW_PASSWORD })).toEqual(refused(400, 'Invalid invitation'));
      expect((await invite(admin, { email, role: 'ANALYST' })).status).toBe(201);
      const revoked = await app.request('adminListInvitations', { token: admin, query: { status: 'revoked' } });
      expect(revoked.body.data.invitations).toContainEqual({ ...created.body.data.invitation, status: 'revoked' });
      expect(revoked.body.data.invitations.every((each: { status: string }) => each.status === 'revoked')).toBe(true);
    });

    it('a MANAGER neither sees nor touches invitations of ADMINs and MANAGERs: 403', async () => {
      const created = await invite(admin, { email: newAddress(), role: 'MANAGER' });
      const { id } = created.body.data.invitation;
      expect(await app.request('adminRevokeInvitation', { token: manager, pathParameters: { id } })).toEqual(
        refused(403, 'Permission denied'),
      );
      expect(await app.request('adminResendInvitation', { token: manager, pathParameters: { id } })).toEqual(
        refused(403, 'Permission denied'),
      );
      const listed = await app.request('adminListInvitations', { token: manager });
      expect(listed.body.data.invitations.map((each: { role: string }) => each.role)).not.toContain('MANAGER');
      expect(await app.request('adminListInvitations', { token: operator })).toEqual(refused(403, 'Permission denied'));
      expect(await app.request('adminListInvitations', {})).toEqual(refused(403, 'Permission denied'));
    });

    it('answers 404 Invitation not found for another tenant’s invitation and for an unknown id of any format', async () => {
      const theirs = await invite(other.token, { email: newAddress(), role: 'ANALYST' });
      for (const id of [theirs.body.data.invitation.id, '00000000-0000-4000-8000-000000000000', 'not-an-id', 'x'.repeat(600)]) {
        expect(await app.request('adminRevokeInvitation', { token: admin, pathParameters: { id } })).toEqual(
          refused(404, 'Invitation not found'),
        );
        expect(await app.request('adminResendInvitation', { token: admin, pathParameters: { id } })).toEqual(
          refused(404, 'Invitation not found'),
        );
      }
      const listed = await app.request('adminListInvitations', { token: admin });
      expect(listed.body.data.invitations.map((each: { id: string }) => each.id)).not.toContain(theirs.body.data.invitation.id);
    });
  });

  it('expiry: after 7 days the link is 400 and the invitation listed expired; a resend gives a working link', async () => {
    const ownDeps = await testDeps();
    const ownApp = testApp(ownDeps);
    const ownTenant = uniqueTenant('invite-expiry');
    const { token } = await registerAdmin(ownApp, ownTenant, 'admin', PASSWORD);
    const email = `late@${ownTenant}.example`;
    const created = await ownApp.request('adminCreateInvitation', { token, body: { email, role: 'ANALYST' } });
    const first = await linkTo(ownDeps, email);
    ownDeps.clock.advance(7 * DAY);
    expect(await ownApp.request('acceptInvitation', { body: { token: first.token, username: 'late', password: NEW_PASSWORD } })).toEqual(
      refused(400, 'Invalid invitation'),
    );
    const login = await ownApp.request('login', { body: { username: 'admin', password: PASSWORD, tenantId: ownTenant } });
    const fresh = login.body.data.token;
    const expired = await ownApp.request('adminListInvitations', { token: fresh, query: { status: 'expired' } });
    expect(expired.body.data.invitations).toEqual([{ ...created.body.data.invitation, status: 'expired' }]);
    expect((await ownApp.request('adminListInvitations', { token: fresh, query: { status: 'pending' } })).body.data.invitations).toEqual(
      [],
    );
    expect(
      (await ownApp.request('adminResendInvitation', { token: fresh, pathParameters: { id: created.body.data.invitation.id } })).status,
    ).toBe(200);
    const second = await linkTo(ownDeps, email);
    expect(
      (await ownApp.request('acceptInvitation', { body: { token: second.token, username: 'late', password: NEW_PASSWORD } })).status,
    ).toBe(201);
  });

  describe('GET /admin/invitations pages', () => {
    let ownDeps: TestDeps;
    let ownApp: App;
    let ownTenant: string;
    let admin: string;
    let manager: string;
    /** Ids of the tenant's invitations by what they are, created oldest first. */
    const ids: Record<'expired' | 'accepted' | 'revoked' | 'pending' | 'managers', string[]> = {
      expired: [],
      accepted: [],
      revoked: [],
      pending: [],
      managers: [],
    };

    beforeAll(async () => {
      ownDeps = await testDeps();
      ownApp = testApp(ownDeps);
      ownTenant = uniqueTenant('invite-pages');
      admin = (await registerAdmin(ownApp, ownTenant, 'admin', PASSWORD)).token;
      manager = (await registerStaff(ownApp, admin, { username: 'manager', password: PASSWORD, role: 'MANAGER', tenantId: ownTenant }))
        .token;
      const create = async (role = 'ANALYST') => {
        ownDeps.clock.advance(1);
        const created = await ownApp.request('adminCreateInvitation', {
          token: admin,
          body: { email: `${randomUUID()}@${ownTenant}.example`, role },
        });
        expect(created.status).toBe(201);
        return created.body.data.invitation as { id: string; email: string };
      };
      for (let i = 0; i < 3; i++) ids.expired.push((await create()).id);
      ownDeps.clock.advance(7 * DAY);
      admin = (await ownApp.request('login', { body: { username: 'admin', password: PASSWORD, tenantId: ownTenant } })).body.data.token;
      manager = (await ownApp.request('login', { body: { username: 'manager', password: PASSWORD, tenantId: ownTenant } })).body.data.token;
      for (let i = 0; i < 2; i++) {
        const created = await create();
        const { token } = await linkTo(ownDeps, created.email);
        const accepted = await ownApp.request('acceptInvitation', { body: { token, username: `staff${i}`, password: NEW_PASSWORD } });
        expect(accepted.status).toBe(201);
        ids.accepted.push(created.id);
      }
      for (let i = 0; i < 2; i++) {
        const created = await create();
        expect((await ownApp.request('adminRevokeInvitation', { token: admin, pathParameters: { id: created.id } })).status).toBe(200);
        ids.revoked.push(created.id);
      }
      ids.managers.push((await create('ADMIN')).id, (await create('MANAGER')).id);
      for (let i = 0; i < 3; i++) ids.pending.push((await create()).id);
    });

    /** Every page of the list for `token` with `query`, followed to its end: the ids of each page. */
    async function walk(token: string, query: Record<string, string>): Promise<string[][]> {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await ownApp.request('adminListInvitations', { token, query: { ...query, ...(cursor ? { cursor } : {}) } });
        expect(page.status).toBe(200);
        pages.push(page.body.data.invitations.map((each: { id: string }) => each.id));
        cursor = page.body.data.nextCursor;
        expect(pages.length).toBeLessThan(20);
      } while (cursor !== null);
      return pages;
    }

    const newestFirst = (...lists: string[][]) => lists.flat().reverse();

    it('walks the whole list newest first, `limit` at a time, each invitation once, and ends with nextCursor null', async () => {
      const all = newestFirst(ids.expired, ids.accepted, ids.revoked, ids.managers, ids.pending);
      const pages = await walk(admin, { limit: '4' });
      expect(pages.flat()).toEqual(all);
      expect(pages.slice(0, -1).every((page) => page.length === 4)).toBe(true);
      const whole = await ownApp.request('adminListInvitations', { token: admin });
      expect(whole.body.data).toEqual({ invitations: expect.any(Array), nextCursor: null });
      expect(whole.body.data.invitations.map((each: { id: string }) => each.id)).toEqual(all);
    });

    it('pages of one status hold only that status: expired and pending told apart by the time', async () => {
      expect((await walk(admin, { status: 'expired', limit: '2' })).flat()).toEqual(newestFirst(ids.expired));
      expect((await walk(admin, { status: 'pending', limit: '2' })).flat()).toEqual(newestFirst(ids.managers, ids.pending));
      expect((await walk(admin, { status: 'accepted', limit: '1' })).flat()).toEqual(newestFirst(ids.accepted));
      expect((await walk(admin, { status: 'revoked', limit: '3' })).flat()).toEqual(newestFirst(ids.revoked));
    });

    it('a MANAGER’s pages leave out the invitations of ADMINs and MANAGERs', async () => {
      expect((await walk(manager, { limit: '2' })).flat()).toEqual(newestFirst(ids.expired, ids.accepted, ids.revoked, ids.pending));
      expect((await walk(manager, { status: 'pending', limit: '2' })).flat()).toEqual(newestFirst(ids.pending));
    });

    it('a page whose queries read no match ends short with a cursor, which goes on to the match', async () => {
      const sparse = uniqueTenant('invite-sparse');
      const sparseAdmin = (await registerAdmin(ownApp, sparse, 'admin', PASSWORD)).token;
      const expiresAt = epochSeconds(ownDeps.clock) + DAY;
      // The one pending invitation is the oldest: every query of the first page reads only accepted ones.
      const [pending] = await storeInvitations(ownDeps.dynamo, sparse, [
        { seconds: 0, status: 'pending', expiresAt },
        ...Array.from({ length: MAX_QUERIES_A_PAGE * FILTERED_BATCH + 5 }, (_, i) => ({
          seconds: i + 1,
          status: 'accepted' as const,
          expiresAt,
        })),
      ]);
      const first = await ownApp.request('adminListInvitations', { token: sparseAdmin, query: { status: 'pending', limit: '1' } });
      expect(first.body.data).toEqual({ invitations: [], nextCursor: expect.any(String) });
      const second = await ownApp.request('adminListInvitations', {
        token: sparseAdmin,
        query: { status: 'pending', limit: '1', cursor: first.body.data.nextCursor },
      });
      expect(second.body.data).toEqual({ invitations: [expect.objectContaining({ id: pending, status: 'pending' })], nextCursor: null });
    });

    it('refuses a cursor it did not write, or one of another tenant, and a limit out of 1–100: 400, nothing listed', async () => {
      const first = await ownApp.request('adminListInvitations', { token: admin, query: { limit: '1' } });
      const elsewhere = await registerAdmin(ownApp, uniqueTenant('invite-pages-other'), 'admin', PASSWORD);
      for (let i = 0; i < 2; i++) {
        const body = { email: `${randomUUID()}@elsewhere.example`, role: 'ANALYST' };
        expect((await ownApp.request('adminCreateInvitation', { token: elsewhere.token, body })).status).toBe(201);
      }
      const theirs = await ownApp.request('adminListInvitations', { token: elsewhere.token, query: { limit: '1' } });
      expect(theirs.body.data.nextCursor).toEqual(expect.any(String));
      const forged = Buffer.from(JSON.stringify({ t: ownTenant, c: 'yesterday', i: 'x' })).toString('base64url');
      for (const cursor of [theirs.body.data.nextCursor, forged, 'not base64 at all!', 'e30']) {
        expect(await ownApp.request('adminListInvitations', { token: admin, query: { cursor } })).toEqual(refused(400, 'Invalid cursor'));
      }
      for (const limit of ['0', '101', 'ten', '1.5']) {
        expect((await ownApp.request('adminListInvitations', { token: admin, query: { limit } })).status).toBe(400);
      }
      expect(first.body.data.invitations).toHaveLength(1);
    });
  });

  it('revoke of an expired invitation whose address was invited again: 200, and the new invitation keeps the address', async () => {
    const ownDeps = await testDeps();
    const ownApp = testApp(ownDeps);
    const ownTenant = uniqueTenant('invite-revoke-expired');
    const email = `again@${ownTenant}.example`;
    const { token } = await registerAdmin(ownApp, ownTenant, 'admin', PASSWORD);
    const expired = await ownApp.request('adminCreateInvitation', { token, body: { email, role: 'ANALYST' } });
    ownDeps.clock.advance(7 * DAY);
    const login = await ownApp.request('login', { body: { username: 'admin', password: PASSWORD, tenantId: ownTenant } });
    const fresh = login.body.data.token;
    const again = await ownApp.request('adminCreateInvitation', { token: fresh, body: { email, role: 'ANALYST' } });
    expect(again.status).toBe(201);
    expect(
      await ownApp.request('adminRevokeInvitation', { token: fresh, pathParameters: { id: expired.body.data.invitation.id } }),
    ).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: { success: true, data: { message: 'Invitation revoked' } },
    });
    const listed = await ownApp.request('adminListInvitations', { token: fresh });
    expect(listed.body.data.invitations.map((each: { id: string; status: string }) => [each.id, each.status])).toEqual([
      [again.body.data.invitation.id, 'pending'],
      [expired.body.data.invitation.id, 'revoked'],
    ]);
    expect(await ownApp.request('adminCreateInvitation', { token: fresh, body: { email, role: 'ANALYST' } })).toEqual(
      refused(409, 'Invitation already pending'),
    );
  });

  it('resend refused by the quota (429) sends nothing and leaves the old link working until its expiry', async () => {
    const ownDeps = await testDeps({ INVITE_QUOTA_PER_TENANT: '1' });
    const ownApp = testApp(ownDeps);
    const ownTenant = uniqueTenant('invite-resend-quota');
    const { token } = await registerAdmin(ownApp, ownTenant, 'admin', PASSWORD);
    const email = `kept@${ownTenant}.example`;
    const created = await ownApp.request('adminCreateInvitation', { token, body: { email, role: 'ANALYST' } });
    const first = await linkTo(ownDeps, email);
    const stored = await ownDeps.store.invitations.find(ownTenant, created.body.data.invitation.id);
    expect(await ownApp.request('adminResendInvitation', { token, pathParameters: { id: created.body.data.invitation.id } })).toMatchObject(
      { status: 429, headers: expect.objectContaining({ 'Retry-After': expect.any(String) }), body: failure('Too many requests') },
    );
    expect((await linkTo(ownDeps, email)).count).toBe(first.count);
    expect(await ownDeps.store.invitations.find(ownTenant, created.body.data.invitation.id)).toMatchObject({
      tokenHash: stored?.tokenHash,
      expiresAt: stored?.expiresAt,
    });
    expect(
      (await ownApp.request('acceptInvitation', { body: { token: first.token, username: 'kept', password: NEW_PASSWORD } })).status,
    ).toBe(201);
  });

  it('counts invitation emails per tenant (INVITE_QUOTA_PER_TENANT): over it 429, and the address stays free', async () => {
    const ownDeps = await testDeps({ INVITE_QUOTA_PER_TENANT: '2' });
    const ownApp = testApp(ownDeps);
    const ownTenant = uniqueTenant('invite-quota');
    const { token } = await registerAdmin(ownApp, ownTenant, 'admin', PASSWORD);
    const send = (n: number) =>
      ownApp.request('adminCreateInvitation', { token, body: { email: `s${n}@${ownTenant}.example`, role: 'ANALYST' } });
    expect((await send(1)).status).toBe(201);
    expect((await send(2)).status).toBe(201);
    const third = await send(3);
    expect(third).toMatchObject({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': expect.any(String) }),
      body: failure('Too many requests'),
    });
    expect(await ownDeps.outbox.emails(`s3@${ownTenant}.example`)).toEqual([]);
    // The refused invitation holds no address: an hour later it can be sent.
    ownDeps.clock.advance(3600);
    const login = await ownApp.request('login', { body: { username: 'admin', password: PASSWORD, tenantId: ownTenant } });
    expect(
      (
        await ownApp.request('adminCreateInvitation', {
          token: login.body.data.token,
          body: { email: `s3@${ownTenant}.example`, role: 'ANALYST' },
        })
      ).status,
    ).toBe(201);
  });

  describe('the hosted page GET/POST /invitations/{token}', () => {
    const origin = () => new URL(deps.config.issuer).origin;
    const post = (token: string, fields: Record<string, string>, headers: Record<string, string> = { origin: origin() }) =>
      app.request('hostedInvitationAccept', {
        pathParameters: { token },
        headers: { 'content-type': FORM, ...headers },
        body: new URLSearchParams(fields).toString(),
      });

    it('shows the form with the suggested username, accepts, signs the browser in, and refuses the link again with 400', async () => {
      const email = `Jane.Doe.${tenantId}@example.com`;
      await invite(admin, { email, role: 'FINANCE' });
      const { token } = await linkTo(deps, email);
      const shown = await app.request('hostedInvitationPage', { pathParameters: { token } });
      expect(shown.status).toBe(200);
      expect(shown.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' });
      expect(shown.headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
      expect(shown.body).toContain(`value="jane.doe.${tenantId}"`);
      expect(shown.body).toContain(`action="/invitations/${token}"`);

      expect(await post(token, { username: 'jane', password: NEW_PASSWORD }, { origin: 'https://evil.example' })).toMatchObject({
        status: 403,
      });
      const short = await post(token, { username: 'jane', password: 'short' });
      expect(short.status).toBe(400);
      expect(short.body).toContain('Choose a password of at least 6 characters');

      const accepted = await post(token, { username: 'jane', password: NEW_PASSWORD });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toContain('You are signed in');
      expect(accepted.cookies?.some((cookie) => cookie.startsWith('__Host-session='))).toBe(true);
      const user = await deps.store.users.findByUsername(tenantId, 'jane');
      expect(user).toMatchObject({ role: 'FINANCE', emailVerified: true });
      const sessions = await deps.store.sessions.listByUser(tenantId, user?.id ?? '');
      expect(sessions).toHaveLength(1);

      for (const again of [
        await app.request('hostedInvitationPage', { pathParameters: { token } }),
        await post(token, { username: 'jane2', password: NEW_PASSWORD }),
      ]) {
        expect(again.status).toBe(400);
        expect(again.body).toContain('Invalid invitation: this link was already used, was revoked, or has expired.');
      }
    });

    it('accepts with a passkey: the account has no password, the passkey signs in, the browser is signed in', async () => {
      const email = `pia.${tenantId}@example.com`;
      await invite(admin, { email, role: 'SOURCING' });
      const { token } = await linkTo(deps, email);
      const shown = await app.request('hostedInvitationPage', { pathParameters: { token } });
      const options = JSON.parse(
        (/data-options="([^"]*)"/.exec(String(shown.body))?.[1] ?? '{}').replace(/&quot;/g, '"').replace(/&amp;/g, '&'),
      );
      expect(options.user.name).toBe(`pia.${tenantId}`);
      const keys = softwareAuthenticator();
      const created = keys.create(options);
      const accepted = await post(token, { username: 'pia', credential: JSON.stringify(created.response) });
      expect(accepted.status).toBe(200);
      expect(accepted.cookies?.some((cookie) => cookie.startsWith('__Host-session='))).toBe(true);
      const user = await deps.store.users.findByUsername(tenantId, 'pia');
      expect(user).toMatchObject({ role: 'SOURCING', emailVerified: true });
      expect(user?.passwordHash).toBeUndefined();
      expect(await deps.store.passkeys.listByUser(tenantId, user?.id ?? '')).toHaveLength(1);
      // The passkey signs in (docs/api.md 12.6).
      const signInOptions = await app.request('passkeyAuthenticationOptions', { body: { tenantId } });
      const signedIn = await app.request('passkeyAuthentication', {
        body: { tenantId, credential: keys.get(signInOptions.body.data.options) },
      });
      expect(signedIn.body.data.user).toMatchObject({ username: 'pia', role: 'SOURCING' });
      // A registration response replayed on a new link is refused, and that link stays pending.
      const other = `pia2.${tenantId}@example.com`;
      await invite(admin, { email: other, role: 'SOURCING' });
      const second = await linkTo(deps, other);
      const replayed = await post(second.token, { username: 'pia2', credential: JSON.stringify(created.response) });
      expect(replayed.status).toBe(400);
      expect(replayed.body).toContain('Invalid passkey registration');
      expect((await app.request('hostedInvitationPage', { pathParameters: { token: second.token } })).status).toBe(200);
    });
  });
});

describe('invitation store: transactions cancelled by a concurrent one (TransactionConflict)', () => {
  /** The store on a document client whose next `count` transactions are cancelled by a conflict on the address item. */
  async function conflicting(count: number) {
    const deps = await testDeps();
    const app = testApp(deps);
    const tenantId = uniqueTenant('invite-conflict');
    const { token } = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const created = await app.request('adminCreateInvitation', { token, body: { email: `first@${tenantId}.example`, role: 'ANALYST' } });
    const pending = await deps.store.invitations.find(tenantId, created.body.data.invitation.id);
    if (!pending) throw new Error('the invitation was not stored');
    const dynamo = localDynamo();
    const faults = { left: count, thrown: 0 };
    dynamo.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && faults.left > 0) {
          faults.left--;
          faults.thrown++;
          throw Object.assign(new Error('Transaction cancelled'), {
            name: 'TransactionCanceledException',
            $metadata: {},
            CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'transactionConflict' },
    );
    const store = dynamoInvitationStore(dynamo, deps.random, deps.store.users);
    const fresh = { ...pending, id: randomUUID(), email: `second@${tenantId}.example` };
    return { deps, store, pending, fresh, faults };
  }

  it('create tries again and writes; a conflict that persists answers pending elsewhere, not a 500', async () => {
    const once = await conflicting(1);
    expect(await once.store.create(once.fresh, nowSeconds(once.deps))).toBe('written');
    expect(once.faults.thrown).toBe(1);
    expect(await once.deps.store.invitations.find(once.fresh.tenantId, once.fresh.id)).toMatchObject({ status: 'pending' });
    const always = await conflicting(Number.POSITIVE_INFINITY);
    expect(await always.store.create(always.fresh, nowSeconds(always.deps))).toBe('pending_elsewhere');
    expect(await always.deps.store.invitations.find(always.fresh.tenantId, always.fresh.id)).toBeUndefined();
  });

  it('renew tries again and writes, instead of answering not pending', async () => {
    const { deps, store, pending, faults } = await conflicting(1);
    const expiresAt = nowSeconds(deps) + 7 * DAY;
    expect(await store.renew(pending, 'renewed-hash', expiresAt, nowSeconds(deps))).toBe('written');
    expect(faults.thrown).toBe(1);
    expect(await deps.store.invitations.find(pending.tenantId, pending.id)).toMatchObject({ tokenHash: 'renewed-hash', expiresAt });
  });
});

const nowSeconds = (deps: TestDeps) => Math.floor(deps.clock.now() / 1000);
