import { beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../lib/audit/record';
import { type App, type registerAdmin, registerStaff } from '../helpers/app';
import type { TestDeps } from '../helpers/deps';
import { storedConnection } from '../helpers/federation';
import { CONSOLE_PASSWORD, type ConsoleBrowser, consoleTenant, followed, mainText } from './console-browser';

const PASSWORD = CONSOLE_PASSWORD;

/**
 * The tenant console's audit trail (docs/api.md 15.3.3) and settings (15.3.4), in process:
 * the trail through listEvents with its filters and pages, everything it holds shown as
 * text; the settings through PATCH /admin/tenant's updateTenant, refused beside the fields.
 */
describe('tenant console: audit trail and settings', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  let browser: ConsoleBrowser;

  beforeAll(async () => {
    ({ deps, app, tenantId, admin, browser } = await consoleTenant('audit-page'));
  });

  describe('the audit trail', () => {
    it('shows the events, newest first, with who did what to whom, filtered by type and by user', async () => {
      const wanda = await registerStaff(app, admin.token, { username: 'wanda', password: PASSWORD, role: 'OPERATOR', tenantId });
      deps.clock.advance(1);
      await app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId: wanda.user.id }, body: { role: 'FINANCE' } });
      const page = await browser.page('audit');
      expect(page.status).toBe(200);
      expect(mainText(page)).toMatch(/admin_user_changed \(Success\) admin wanda .* role: FINANCE .*user_registered/);
      const byType = mainText(await browser.page('audit', { type: 'admin_user_changed', user: '' }));
      expect(byType).toContain('admin_user_changed');
      expect(byType).not.toContain('user_registered (');
      for (const user of ['wanda', wanda.user.id]) {
        const byUser = mainText(await browser.page('audit', { user }));
        expect(byUser).toContain('admin_user_changed');
        expect(byUser).not.toMatch(/login_succeeded \(Success\) admin admin/);
      }
      const unknown = await browser.page('audit', { user: 'nobody-here' });
      expect(unknown.status).toBe(200);
      expect(mainText(unknown)).toContain('No user of this tenant has this username.');
      expect(String(unknown.body)).toContain('aria-invalid="true"');
    });

    it('shows hostile user agents and details as text', async () => {
      const hostile = '<script>alert("ua")</script>';
      await app.request('login', { body: { username: '<svg onload=alert(1)>', password: 'wrong password', tenantId } });
      // The user agent as API Gateway hands it over (the fixture's is plain).
      const source = { ipAddress: '203.0.113.10', userAgent: hostile };
      await recordEvent({ ...deps, source }, { tenantId, type: 'login_failed', actor: { type: 'user', id: null }, outcome: 'failure' });
      const page = await browser.page('audit', { type: 'login_failed' });
      const body = String(page.body);
      expect(body).not.toContain('<script>alert');
      expect(body).not.toContain('<svg onload');
      expect(mainText(page)).toContain(hostile);
      expect(mainText(page)).toContain('username: <svg onload=alert(1)>');
    });

    it('pages through the trail, the filters kept', async () => {
      await Promise.all(
        Array.from({ length: 26 }, (_, i) => app.request('adminUpdateTenant', { token: admin.token, body: { displayName: `Name ${i}` } })),
      );
      const first = await browser.page('audit', { type: 'tenant_updated' });
      expect(mainText(first).match(/tenant_updated \(/g)).toHaveLength(25);
      const next = /<a class="button secondary" href="([^"]+)" rel="next">/.exec(String(first.body))?.[1]?.replace(/&amp;/g, '&') ?? '';
      const url = new URL(next, 'https://console.test');
      expect(url.searchParams.get('type')).toBe('tenant_updated');
      const second = await browser.page('audit', Object.fromEntries(url.searchParams));
      expect(mainText(second).match(/tenant_updated \(/g)).toHaveLength(1);
      expect(mainText(second)).toContain('Newest events');
      expect((await browser.page('audit', { type: 'login_failed', cursor: url.searchParams.get('cursor') ?? '' })).status).toBe(400);
    });
  });

  describe('the settings', () => {
    it('saves the display name, logo and accent colour, audited as tenant_updated', async () => {
      deps.clock.advance(1);
      const done = await followed(
        browser,
        await browser.post('settings', 'save', {
          displayName: ' Acme Shops ',
          logoUrl: 'https://cdn.acme.example/logo.svg',
          accentColor: '#0f766e',
        }),
      );
      expect(done.location).toBe('/admin/console/settings');
      expect(mainText(done.page)).toContain('The settings were saved.');
      expect(String(done.page.body)).toContain('value="https://cdn.acme.example/logo.svg"');
      expect(await deps.store.tenants.find(tenantId)).toMatchObject({
        displayName: 'Acme Shops',
        logoUrl: 'https://cdn.acme.example/logo.svg',
        accentColor: '#0f766e',
      });
      const audit = await app.request('adminListAudit', { token: admin.token, query: { type: 'tenant_updated', limit: '1' } });
      expect(audit.body.data.events[0]).toMatchObject({ actor: { type: 'user', id: admin.user.id }, details: { name: 'Acme Shops' } });
      // Empty: the logo and colour are removed, the name kept.
      await browser.post('settings', 'save', { displayName: '', logoUrl: '', accentColor: '' });
      const tenant = await deps.store.tenants.find(tenantId);
      expect(tenant).toMatchObject({ displayName: 'Acme Shops' });
      expect(tenant?.logoUrl).toBeUndefined();
      expect(tenant?.accentColor).toBeUndefined();
    });

    it.each([
      [{ accentColor: 'red' }, 'accentColor'],
      [{ logoUrl: 'http://cdn.acme.example/logo.svg' }, 'logoUrl'],
      [{ logoUrl: 'javascript:alert(1)' }, 'logoUrl'],
      [{ displayName: 'Two\nlines' }, 'displayName'],
    ])('refuses %j beside its field, changing nothing', async (fields, field) => {
      const before = await deps.store.tenants.find(tenantId);
      const refused = await browser.post('settings', 'save', { displayName: 'Changed', logoUrl: '', accentColor: '', ...fields });
      expect(refused.status).toBe(400);
      expect(String(refused.body)).toContain(`id="save-${field}-error"`);
      expect(await deps.store.tenants.find(tenantId)).toEqual(before);
    });

    it('refuses a logo URL that is no URL at all with 400, as PATCH /admin/tenant does, not 500', async () => {
      const refused = await browser.post('settings', 'save', { displayName: '', logoUrl: 'not a url', accentColor: '' });
      expect(refused.status).toBe(400);
      expect(String(refused.body)).toContain('id="save-logoUrl-error"');
      const json = await app.request('adminUpdateTenant', { token: admin.token, body: { logoUrl: 'not a url' } });
      expect(json.status).toBe(400);
    });

    it('notes the connections that require single sign-on, their names as text', async () => {
      expect(mainText(await browser.page('settings'))).toContain('No connection requires single sign-on');
      await storedConnection(deps, tenantId, { name: '<b>Corp</b> IdP', ssoRequired: true, domains: [`${tenantId}.example`] });
      await storedConnection(deps, tenantId, { name: 'Optional IdP', ssoRequired: false, domains: ['other.example'] });
      const page = await browser.page('settings');
      expect(mainText(page)).toContain(`<b>Corp</b> IdP: ${tenantId}.example`);
      expect(mainText(page)).not.toContain('Optional IdP');
      expect(String(page.body)).not.toContain('<b>Corp');
    });
  });
});
