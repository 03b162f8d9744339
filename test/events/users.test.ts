import { beforeAll, describe, expect, it } from 'vitest';
import type { PendingEvent } from '../../lib/events/event';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { cloudEvent, emits } from '../helpers/event-matchers';
import { eventCount, lastEvents } from '../helpers/events';
import { federatedSignIn, storedConnection, verifiedDomain } from '../helpers/federation';
import { createClient } from '../helpers/oauth';
import { scimClient, scimTokenOf } from '../helpers/scim';

const PASSWORD = 'users events passphrase';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

/** The events of users' lifecycle (docs/events.md, Users): each carried by the write of its change. */
describe('events of users', () => {
  let deps: TestDeps;
  let app: App;
  const tenantId = uniqueTenant('ev-users');
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  let byAdmin: { type: 'user'; id: string };
  let staffNumber = 0;
  /** Every event handed to a write (the sign-in's own events follow the provisioning's in later writes). */
  const handed: PendingEvent[] = [];

  const event = (...args: Parameters<typeof cloudEvent> extends [unknown, unknown, ...infer Rest] ? Rest : never) =>
    cloudEvent(deps, tenantId, ...args);
  /** A member of the tenant, registered by the ADMIN and signed in. */
  const staff = (role = 'OPERATOR') =>
    registerStaff(app, admin.token, { username: `staff-${++staffNumber}`, password: PASSWORD, role, tenantId });
  const patch = (userId: string, body: Record<string, unknown>) =>
    app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId }, body });
  const expectStatus = async (response: Promise<{ status: number; body: unknown }>, status: number) =>
    expect((await response).status, JSON.stringify((await response).body)).toBe(status);

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    const emitting = deps.store.emitting;
    deps.store.emitting = (events) => {
      handed.push(...events);
      return emitting(events);
    };
    app = testApp(deps);
    admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    byAdmin = { type: 'user', id: admin.user.id };
    expect((await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'ev-shop-2', name: 'Second' } })).status).toBe(201);
  });

  describe('identity.user.created', () => {
    it('the bootstrap of a tenant: via registration, by the user themselves', async () => {
      expect(await lastEvents(deps, tenantId, admin.user.id)).toEqual([
        event('identity.user.created', admin.user.id, byAdmin, {
          username: 'admin',
          role: 'ADMIN',
          shopId: deps.config.defaultShopId,
          via: 'registration',
        }),
      ]);
    });

    it('a user an ADMIN registers: via admin, by the ADMIN; a taken username emits nothing', async () => {
      // Registered, not signed in: the user's outbox holds the creation alone.
      const registered = await app.request('register', {
        token: admin.token,
        body: { username: `staff-${++staffNumber}`, password: PASSWORD, role: 'ANALYST', tenantId },
      });
      const { user } = registered.body.data as { user: { id: string; username: string } };
      expect(await lastEvents(deps, tenantId, user.id)).toEqual([
        event('identity.user.created', user.id, byAdmin, {
          username: user.username,
          role: 'ANALYST',
          shopId: deps.config.defaultShopId,
          via: 'admin',
        }),
      ]);
      const taken = await app.request('register', {
        token: admin.token,
        body: { username: user.username, password: PASSWORD, role: 'ANALYST', tenantId },
      });
      expect(taken.status).toBe(400);
      expect(await lastEvents(deps, tenantId, user.id)).toHaveLength(1);
    });

    it('imported users: one event each, via import; a refused row emits nothing', async () => {
      const imported = await app.request('adminImportUsers', {
        token: admin.token,
        body: {
          users: [
            { username: 'imported-1', role: 'OPERATOR' },
            { username: 'imported-2', role: 'ANALYST', shopId: 'ev-shop-2' },
            { username: 'admin', role: 'ANALYST' },
          ],
        },
      });
      expect(imported.body.data).toEqual({ imported: 2, failed: [{ index: 2, error: 'User already exists' }] });
      for (const [username, role, shopId] of [
        ['imported-1', 'OPERATOR', deps.config.defaultShopId],
        ['imported-2', 'ANALYST', 'ev-shop-2'],
      ] as const) {
        const user = await deps.store.users.findByUsername(tenantId, username);
        expect(user).toBeDefined();
        expect(await lastEvents(deps, tenantId, user?.id ?? '')).toEqual([
          event('identity.user.created', user?.id ?? '', byAdmin, { username, role, shopId, via: 'import' }),
        ]);
      }
      expect(await lastEvents(deps, tenantId, admin.user.id)).toHaveLength(1);
    });
  });

  describe('changes by an ADMIN', () => {
    it('disabling a user emits exactly one identity.user.disabled, which ends every session', async () => {
      const { user } = await staff();
      await emits(deps, tenantId, user.id, () => expectStatus(patch(user.id, { status: 'disabled' }), 200), [
        event('identity.user.disabled', user.id, byAdmin, { endedSessions: 'all' }),
      ]);
      // Disabled again: nothing changed, nothing emitted.
      await emits(deps, tenantId, user.id, () => expectStatus(patch(user.id, { status: 'disabled' }), 200), []);
    });

    it('one PATCH that changes role, shop and status emits each event in its one write', async () => {
      const { user } = await staff('OPERATOR');
      await expectStatus(patch(user.id, { status: 'disabled' }), 200);
      await emits(
        deps,
        tenantId,
        user.id,
        () => expectStatus(patch(user.id, { role: 'MANAGER', shopId: 'ev-shop-2', status: 'active' }), 200),
        [
          event('identity.user.role_changed', user.id, byAdmin, { role: 'MANAGER', previousRole: 'OPERATOR' }),
          event('identity.user.shops_changed', user.id, byAdmin, { shopId: 'ev-shop-2', previousShopId: deps.config.defaultShopId }),
          event('identity.user.enabled', user.id, byAdmin),
        ],
      );
    });

    it('a refused change emits nothing: an unknown shop (400), the last active ADMIN (409), another tenant’s user (404)', async () => {
      const { user } = await staff();
      await emits(deps, tenantId, user.id, () => expectStatus(patch(user.id, { role: 'ADMIN', shopId: 'no-such-shop' }), 400), []);
      await emits(deps, tenantId, admin.user.id, () => expectStatus(patch(admin.user.id, { role: 'ANALYST' }), 409), []);
      const other = await registerAdmin(app, uniqueTenant('ev-users-other'), 'admin', PASSWORD);
      await emits(deps, other.user.tenantId, other.user.id, () => expectStatus(patch(other.user.id, { status: 'disabled' }), 404), []);
    });

    it('signing a user out everywhere: identity.session.revoked, reason admin', async () => {
      const { user } = await staff();
      const signOut = () => app.request('adminSignOutUser', { token: admin.token, pathParameters: { userId: user.id } });
      await emits(deps, tenantId, user.id, () => expectStatus(signOut(), 200), [
        event('identity.session.revoked', user.id, byAdmin, { reason: 'admin', revoked: 1, endedSessions: 'all' }),
      ]);
    });

    it('resetting MFA: identity.mfa.reset, which ends every session', async () => {
      const { user } = await staff();
      const reset = () => app.request('adminResetUserMfa', { token: admin.token, pathParameters: { userId: user.id } });
      await emits(deps, tenantId, user.id, () => expectStatus(reset(), 200), [
        event('identity.mfa.reset', user.id, byAdmin, { endedSessions: 'all' }),
      ]);
    });

    it('deleting a user: identity.user.deleted, once; deleting again (404) emits nothing', async () => {
      const { user } = await staff();
      const remove = () => app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId: user.id } });
      await emits(deps, tenantId, user.id, () => expectStatus(remove(), 200), [
        event('identity.user.deleted', user.id, byAdmin, { username: user.username, endedSessions: 'all' }),
      ]);
      await emits(deps, tenantId, user.id, () => expectStatus(remove(), 404), []);
    });
  });

  describe('SCIM', () => {
    it('provisions, updates, deactivates and deletes, each with its events, by the SCIM token', async () => {
      const { id: tokenId, token } = await scimTokenOf(app, admin.token);
      const scim = scimClient(app, token);
      const byScim = { type: 'scim' as const, id: tokenId };
      const resource = { schemas: [SCIM_USER], userName: 'scim.user', name: { givenName: 'Ada' }, active: true };
      const created = await scim('scimCreateUser', { body: resource });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      expect(await lastEvents(deps, tenantId, id)).toEqual([
        event('identity.user.created', id, byScim, {
          username: 'scim.user',
          role: 'ANALYST',
          shopId: deps.config.defaultShopId,
          via: 'scim',
        }),
      ]);
      const replace = () => scim('scimReplaceUser', { pathParameters: { userId: id }, body: { ...resource, displayName: 'Ada L.' } });
      await emits(deps, tenantId, id, () => expectStatus(replace(), 200), [
        event('identity.user.updated', id, byScim, { changed: ['displayName'] }),
      ]);
      const deactivate = () =>
        scim('scimPatchUser', {
          pathParameters: { userId: id },
          body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] },
        });
      await emits(deps, tenantId, id, () => expectStatus(deactivate(), 200), [
        event('identity.user.disabled', id, byScim, { endedSessions: 'all' }),
      ]);
      await emits(deps, tenantId, id, () => expectStatus(scim('scimDeleteUser', { pathParameters: { userId: id } }), 204), [
        event('identity.user.deleted', id, byScim, { username: 'scim.user', endedSessions: 'all' }),
      ]);
    });
  });

  describe('federation', () => {
    it('a user provisioned at their first federated sign-in: via federation, by the system', async () => {
      const domain = `${tenantId}.example`;
      await verifiedDomain(deps, tenantId, domain);
      const connection = await storedConnection(deps, tenantId, { domains: [domain], jitProvisioning: true });
      const client = await createClient(app, admin.token, tenantId, { scope: 'openid orders:read' });
      await federatedSignIn(deps, app, client, connection, { subject: 'okta|fed', email: `fed@${domain}`, roles: [], mfa: false });
      const [user] = await deps.store.users.findByEmail(tenantId, `fed@${domain}`);
      expect(user).toBeDefined();
      const id = user?.id ?? '';
      const created = handed.filter((event) => event.type === 'identity.user.created' && event.subject === id);
      expect(created).toEqual(
        [
          event(
            'identity.user.created',
            id,
            { type: 'system', id: null },
            {
              username: `fed@${domain}`,
              role: connection.defaultRole,
              shopId: deps.config.defaultShopId,
              via: 'federation',
            },
          ),
        ].map(({ sequence: _, ...pending }) => pending),
      );
      // Written: the user's outbox numbered it (the sign-in's own events may follow it).
      expect(await eventCount(deps, tenantId, id)).toBeGreaterThanOrEqual(1);
    });
  });
});
