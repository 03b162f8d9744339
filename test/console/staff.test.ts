import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { csrfOf } from '../helpers/hosted';
import { activateTotp } from '../helpers/mfa';
import { CONSOLE_PASSWORD, type ConsoleBrowser, consoleBrowser, consoleTenant, followed, mainText } from './console-browser';

const PASSWORD = CONSOLE_PASSWORD;

/**
 * The tenant console's staff section (docs/api.md 15.3.1), in process: each action calls
 * its JSON twin's domain function and is audited the same way; its form is checked as
 * strictly; refusals come back beside the form or as the error page, nothing changed.
 */
describe('tenant console: staff', () => {
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let tenantId: string;
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  let browser: ConsoleBrowser;

  beforeAll(async () => {
    ({ deps, app, origin, tenantId, admin, browser } = await consoleTenant('staff-page'));
  });

  /** A new member of the tenant, signed in (their own session token), a second after the one before (the list's order). */
  const member = (username: string, role = 'OPERATOR') => {
    deps.clock.advance(1);
    return registerStaff(app, admin.token, { username, password: PASSWORD, role, tenantId });
  };

  /** The newest audit event of `type` about `userId`, as GET /admin/audit answers it. */
  async function lastEvent(type: string, userId: string) {
    const listed = await app.request('adminListAudit', { token: admin.token, query: { type, userId, limit: '1' } });
    return listed.body.data.events[0];
  }

  describe('the list', () => {
    // Emails are checked addresses (docs/api.md 8.8); usernames are any text, and shown as such.
    it('lists the staff, oldest first, and finds them by part of a username or email in any case', async () => {
      await member('dora.list');
      const page = await browser.page('staff');
      expect(page.status).toBe(200);
      expect(page.headers).toMatchObject({ 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' });
      expect(mainText(page)).toMatch(/admin .*dora\.list/);
      // The form's empty fields are no filter.
      const found = await browser.page('staff', { q: 'DORA', role: '', status: '' });
      expect(mainText(found)).toContain('dora.list');
      expect(mainText(found)).not.toMatch(/\badmin\b/);
      // Only spaces: no search either.
      expect(mainText(await browser.page('staff', { q: '   ' }))).toMatch(/admin .*dora\.list/);
      const none = await browser.page('staff', { q: 'nobody-by-this-name' });
      expect(mainText(none)).toContain('No staff match these filters.');
    });

    it('filters by role and status, and pages on with the filters kept', async () => {
      for (const name of ['fin-1', 'fin-2', 'fin-3']) await member(name, 'FINANCE');
      const all = await browser.page('staff', { role: 'FINANCE' });
      for (const name of ['fin-1', 'fin-2', 'fin-3']) expect(mainText(all)).toContain(name);
      expect(mainText(all)).not.toContain('dora.list');
      const disabled = await browser.page('staff', { status: 'disabled', role: 'FINANCE' });
      expect(mainText(disabled)).toContain('No staff match these filters.');
      // 25 a page: a tenant of fewer has no next page.
      expect(String(all.body)).not.toContain('rel="next"');
    });

    it('answers a filter no field offers, or a forged cursor, with the 400 page', async () => {
      expect((await browser.page('staff', { role: 'ROOT' })).status).toBe(400);
      expect((await browser.page('staff', { cursor: 'not-a-cursor' })).status).toBe(400);
    });

    it('shows hostile usernames as text', async () => {
      const hostile = '<img src=x onerror=alert(1)>';
      await member(hostile, 'ANALYST');
      const page = await browser.page('staff', { q: 'img' });
      expect(String(page.body)).not.toContain('<img src=x');
      expect(String(page.body)).toContain('&lt;img src=x onerror=alert(1)>');
      expect(mainText(page)).toContain(hostile);
    });
  });

  describe("a user's page", () => {
    it('shows the user; a user of another tenant, an unknown id and a malformed one are not found', async () => {
      const ellen = await member('ellen.page');
      const shown = await browser.page('staff', { user: ellen.user.id });
      expect(shown.status).toBe(200);
      expect(mainText(shown)).toContain('ellen.page');
      const stranger = await registerAdmin(app, uniqueTenant('staff-other'), 'stranger', PASSWORD);
      expect((await browser.page('staff', { user: stranger.user.id })).status).toBe(404);
      expect((await browser.page('staff', { user: randomUUID() })).status).toBe(404);
      expect((await browser.page('staff', { user: 'x' })).status).toBe(400);
    });

    it('changes the role and shop, audited as admin_user_changed', async () => {
      const fritz = await member('fritz.role');
      const done = await browser.post('staff', 'role-shop', { userId: fritz.user.id, role: 'MANAGER', shopId: deps.config.defaultShopId });
      const { location, page } = await followed(browser, done);
      expect(location).toBe(`/admin/console/staff?user=${fritz.user.id}`);
      expect(mainText(page)).toContain('The role and shop of fritz.role were saved.');
      expect(await deps.store.users.findById(tenantId, fritz.user.id)).toMatchObject({ role: 'MANAGER' });
      expect(await lastEvent('admin_user_changed', fritz.user.id)).toMatchObject({
        actor: { type: 'user', id: admin.user.id },
        targetUserId: fritz.user.id,
        details: { role: 'MANAGER', shopId: deps.config.defaultShopId },
      });
    });

    it.each([
      [{ role: 'ROOT', shopId: 'default' }, 'role', 'Choose one of the options.'],
      [{ role: 'MANAGER', shopId: 'Not A Shop' }, 'shopId', 'Enter a valid value.'],
    ])('refuses the form %j with the error beside its field, changing nothing', async (fields, field, message) => {
      const gina = await member(`gina-${field}`);
      const refused = await browser.post('staff', 'role-shop', { userId: gina.user.id, ...fields });
      expect(refused.status).toBe(400);
      expect(String(refused.body)).toContain(`id="role-shop-${field}-error"`);
      expect(mainText(refused)).toContain(message);
      expect(await deps.store.users.findById(tenantId, gina.user.id)).toMatchObject({ role: 'OPERATOR' });
    });

    it('refuses an unknown shop and the last active ADMIN’s demotion beside the form, changing nothing', async () => {
      const hans = await member('hans.shop');
      const unknownShop = await browser.post('staff', 'role-shop', { userId: hans.user.id, role: 'OPERATOR', shopId: 'no-such-shop' });
      expect(unknownShop.status).toBe(400);
      expect(mainText(unknownShop)).toContain('There is a problem');
      expect(mainText(unknownShop)).toContain('hans.shop');
      const demoted = await browser.post('staff', 'role-shop', {
        userId: admin.user.id,
        role: 'OPERATOR',
        shopId: deps.config.defaultShopId,
      });
      expect(demoted.status).toBe(409);
      expect(mainText(demoted)).toContain('A tenant must keep an active ADMIN.');
      expect(await deps.store.users.findById(tenantId, admin.user.id)).toMatchObject({ role: 'ADMIN', status: 'active' });
    });

    it('disables a user, whose every session ends at once, and enables them again', async () => {
      const ernie = await member('ernie.off');
      const done = await browser.post('staff', 'status', { userId: ernie.user.id, status: 'disabled' });
      const { page } = await followed(browser, done);
      expect(mainText(page)).toContain('ernie.off is disabled and signed out everywhere.');
      expect((await app.request('me', { token: ernie.token })).status).toBe(401);
      expect(await lastEvent('admin_user_changed', ernie.user.id)).toMatchObject({ details: { status: 'disabled' } });
      const enabled = await followed(browser, await browser.post('staff', 'status', { userId: ernie.user.id, status: 'active' }));
      expect(mainText(enabled.page)).toContain('ernie.off is enabled.');
      expect(await deps.store.users.findById(tenantId, ernie.user.id)).toMatchObject({ status: 'active' });
    });

    it('signs a user out everywhere, saying how many sessions ended', async () => {
      const iris = await member('iris.out');
      const done = await followed(browser, await browser.post('staff', 'sign-out', { userId: iris.user.id }));
      expect(mainText(done.page)).toContain('iris.out was signed out everywhere. Sessions ended: 1.');
      expect((await app.request('me', { token: iris.token })).status).toBe(401);
      expect(await lastEvent('admin_user_signed_out', iris.user.id)).toMatchObject({ details: { revoked: 1 } });
    });

    it('resets the second factors of a user', async () => {
      const jonas = await member('jonas.mfa');
      await activateTotp(app, deps, jonas.token);
      expect(mainText(await browser.page('staff', { user: jonas.user.id }))).toContain('TOTP');
      const done = await followed(browser, await browser.post('staff', 'reset-mfa', { userId: jonas.user.id }));
      expect(mainText(done.page)).toContain('Every second factor and passkey of jonas.mfa was removed.');
      expect(await deps.store.mfa.list(tenantId, jonas.user.id)).toEqual([]);
      expect(await lastEvent('admin_mfa_reset', jonas.user.id)).toMatchObject({ actor: { type: 'user', id: admin.user.id } });
    });

    it('deletes a user from the confirmation page', async () => {
      const karl = await member('karl.gone');
      const confirm = await browser.page('staff', { user: karl.user.id, confirm: 'delete' });
      expect(confirm.status).toBe(200);
      expect(mainText(confirm)).toContain('Delete karl.gone?');
      expect(String(confirm.body)).toContain('action="/admin/console/staff/delete"');
      const done = await followed(browser, await browser.post('staff', 'delete', { userId: karl.user.id }));
      expect(done.location).toBe('/admin/console/staff');
      expect(mainText(done.page)).toContain('karl.gone was deleted.');
      expect(await deps.store.users.findById(tenantId, karl.user.id)).toBeUndefined();
      expect(await lastEvent('admin_user_deleted', karl.user.id)).toMatchObject({ actor: { type: 'user', id: admin.user.id } });
    });

    it('answers every action on a user of another tenant with the 404 page and changes nothing', async () => {
      const other = uniqueTenant('staff-other');
      const stranger = await registerAdmin(app, other, 'stranger', PASSWORD);
      const victim = await registerStaff(app, stranger.token, {
        username: 'victim',
        password: PASSWORD,
        role: 'OPERATOR',
        tenantId: other,
      });
      const userId = victim.user.id;
      for (const [action, fields] of [
        ['role-shop', { role: 'ANALYST', shopId: deps.config.defaultShopId }],
        ['status', { status: 'disabled' }],
        ['sign-out', {}],
        ['reset-mfa', {}],
        ['delete', {}],
      ] as const) {
        const refused = await browser.post('staff', action, { userId, ...fields });
        expect(refused.status, action).toBe(404);
        expect(mainText(refused)).toContain('There is no such page.');
      }
      expect(await deps.store.users.findById(other, userId)).toMatchObject({ role: 'OPERATOR', status: 'active' });
      expect((await app.request('me', { token: victim.token })).status).toBe(200);
    });
  });

  describe('who may use it', () => {
    it('answers another role with the 403 page, its forms too', async () => {
      const manager = await member('lena.manager', 'MANAGER');
      const managerBrowser = await consoleBrowser(app, origin, tenantId, 'lena.manager', PASSWORD);
      expect((await managerBrowser.page('staff')).status).toBe(403);
      const target = await member('mo.target');
      // The session's CSRF token, as the account page's forms carry it: the refusal is the role's, not the token's.
      const account = await app.request('accountPage', { method: 'GET', path: '/account', headers: managerBrowser.jar.header() });
      const csrf = csrfOf(account);
      expect(csrf).not.toBe('');
      const refused = await managerBrowser.post('staff', 'status', { userId: target.user.id, status: 'disabled', csrf });
      expect(refused.status).toBe(403);
      expect(mainText(refused)).toContain('You are not allowed to see this page.');
      expect(await deps.store.users.findById(tenantId, target.user.id)).toMatchObject({ status: 'active' });
      expect(manager.user.role).toBe('MANAGER');
    });

    it('refuses a form from another site, or without the page’s token, changing nothing', async () => {
      const nina = await member('nina.csrf');
      const crossSite = await browser.post(
        'staff',
        'status',
        { userId: nina.user.id, status: 'disabled' },
        { origin: 'https://evil.example' },
      );
      expect(crossSite.status).toBe(403);
      const expired = await browser.post('staff', 'status', { userId: nina.user.id, status: 'disabled', csrf: 'forged' });
      expect(expired.status).toBe(403);
      expect(await deps.store.users.findById(tenantId, nina.user.id)).toMatchObject({ status: 'active' });
    });
  });
});
