import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { BOTH_LANGUAGES, expectAccessible, signedInBrowser, switchLanguage } from '../helpers/console';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { activateTotp } from '../helpers/mfa';

/**
 * The tenant console's staff, invitations, audit trail and settings in chromium (docs/api.md
 * 15.3.1-15.3.4), each action with JavaScript on and off, a full offboarding (find, disable:
 * the person's own browser is signed out), and axe-core on every page in English and German.
 */
describe('tenant console: staff, invitations, audit, settings (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let issuer: string;
  let tenantId: string;
  let adminToken: string;
  const password = 'a long unusual passphrase';
  const admins: Record<string, { context: BrowserContext; page: Page }> = {};
  const dialogs: string[] = [];

  beforeAll(async () => {
    stack = await startBrowserStack();
    ({ issuer, deps, app } = stack);
    tenantId = uniqueTenant('console-staff');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    await app.request('adminCreateShop', { token: adminToken, body: { shopId: 'berlin-1', name: 'Berlin' } });
    for (const javaScript of [true, false]) {
      const admin = await signedInBrowser(stack, 'admin', { tenantId, username: 'admin', password }, { javaScript });
      // The confirmations of JavaScript (revoke, reset second factors) are answered yes, and counted.
      admin.page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.accept();
      });
      admins[String(javaScript)] = admin;
    }
  }, 30_000);

  afterAll(async () => {
    await stack?.close();
  });

  const staffMember = (username: string, role = 'OPERATOR') => registerStaff(app, adminToken, { username, password, role, tenantId });
  const modes = [
    ['with JavaScript', true],
    ['without JavaScript', false],
  ] as const;

  /** Submits the form of the button named `name` and waits for the page the 303 leads to. */
  async function press(page: Page, name: string | RegExp) {
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name, exact: typeof name === 'string' }).click()]);
  }
  const flash = (page: Page) => page.locator('.flash').textContent();

  it.each(modes)('offboards someone %s: found by search, disabled, their own browser signed out at once', async (_, javaScript) => {
    const username = javaScript ? 'quinn.leaver' : 'ruth.leaver';
    await staffMember(username);
    const own = await signedInBrowser(stack, 'account', { tenantId, username, password });
    expect(await own.page.locator('main').textContent()).toContain(username);

    const { page } = admins[String(javaScript)] ?? {};
    if (!page) throw new Error('no admin browser');
    await page.goto(`${issuer}/admin/console/staff`);
    await page.getByLabel('Search').fill(username.slice(0, 6).toUpperCase());
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Show' }).click()]);
    expect(new URL(page.url()).searchParams.get('q')).toBe(username.slice(0, 6).toUpperCase());
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: username }).click()]);
    await press(page, 'Disable and sign out');
    expect(await flash(page)).toBe(`${username} is disabled and signed out everywhere.`);

    // The person's own browser: its session is refused, the sign-in page instead.
    const refused = await own.page.goto(`${issuer}/account`);
    expect(refused?.status()).toBe(200);
    expect(await own.page.locator('h1').textContent()).toBe('Sign in');
    await own.context.close();
  });

  it.each(modes)('changes the role and shop, signs out, resets factors and deletes %s', async (_, javaScript) => {
    const username = javaScript ? 'sven.staff' : 'tara.staff';
    const member = await staffMember(username);
    await activateTotp(app, deps, member.token);
    const { page } = admins[String(javaScript)] ?? {};
    if (!page) throw new Error('no admin browser');
    await page.goto(`${issuer}/admin/console/staff?user=${member.user.id}`);
    await page.getByLabel('Role', { exact: true }).selectOption('LOGISTICS');
    await page.getByLabel('Shop', { exact: true }).selectOption('berlin-1');
    await press(page, 'Save role and shop');
    expect(await flash(page)).toBe(`The role and shop of ${username} were saved.`);
    expect(await deps.store.users.findById(tenantId, member.user.id)).toMatchObject({ role: 'LOGISTICS', shopId: 'berlin-1' });

    await press(page, 'Sign out everywhere');
    expect(await flash(page)).toBe(`${username} was signed out everywhere. Sessions ended: 1.`);
    const asked = dialogs.length;
    await press(page, 'Reset second factors');
    expect(await flash(page)).toBe(`Every second factor and passkey of ${username} was removed.`);
    // With JavaScript the browser asked first; without, the form went as it is.
    expect(dialogs.slice(asked)).toEqual(javaScript ? [`Remove every second factor and passkey of ${username}?`] : []);
    expect(await deps.store.mfa.list(tenantId, member.user.id)).toEqual([]);

    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: `Delete ${username}` }).click()]);
    expect(await page.locator('main h2').textContent()).toBe(`Delete ${username}?`);
    await press(page, `Yes, delete ${username}`);
    expect(new URL(page.url()).pathname).toBe('/admin/console/staff');
    expect(await flash(page)).toBe(`${username} was deleted.`);
    expect(await deps.store.users.findById(tenantId, member.user.id)).toBeUndefined();
  });

  it.each(modes)('invites, sends again and revokes %s', async (_, javaScript) => {
    const email = `${javaScript ? 'uwe' : 'vera'}@${tenantId}.example`;
    const { page } = admins[String(javaScript)] ?? {};
    if (!page) throw new Error('no admin browser');
    await page.goto(`${issuer}/admin/console/invitations`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('FINANCE');
    await page.getByLabel('Shop', { exact: true }).selectOption('berlin-1');
    await press(page, 'Send invitation');
    expect(await flash(page)).toBe(`An invitation was sent to ${email}.`);
    expect(await page.locator('tbody tr', { hasText: email }).textContent()).toMatch(/FINANCE.*berlin-1.*Pending/);
    await press(page, `Send again to ${email}`);
    expect(await flash(page)).toBe(`A new link was sent to ${email}; the old one no longer works.`);
    expect(await deps.outbox.emails(email)).toHaveLength(2);
    await press(page, `Revoke the invitation to ${email}`);
    expect(await flash(page)).toBe(`The invitation to ${email} was revoked.`);
    expect(await page.locator('tbody tr', { hasText: email }).count()).toBe(0);
  });

  it.each(modes)('saves the settings and filters the audit trail %s', async (_, javaScript) => {
    const { page } = admins[String(javaScript)] ?? {};
    if (!page) throw new Error('no admin browser');
    const name = javaScript ? 'Acme Shops' : 'Acme Stores';
    await page.goto(`${issuer}/admin/console/settings`);
    await page.getByLabel('Display name').fill(name);
    await page.getByLabel('Accent colour').fill('#0f766e');
    await press(page, 'Save settings');
    expect(await flash(page)).toBe('The settings were saved.');
    expect(await page.locator('header .name').textContent()).toBe(name);

    await page.goto(`${issuer}/admin/console/audit`);
    await page.getByLabel('Event type').selectOption('tenant_updated');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Show' }).click()]);
    expect(await page.locator('tbody').textContent()).toContain(`name: ${name}`);
    expect(await page.locator('tbody tr', { hasNotText: 'tenant_updated' }).count()).toBe(0);
    // The events about a user, named by their username.
    await page.getByLabel('Event type').selectOption('');
    await page.getByLabel('User', { exact: true }).fill('admin');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Show' }).click()]);
    expect(new URL(page.url()).searchParams.get('user')).toBe('admin');
    expect(await page.locator('tbody').textContent()).toContain('user_registered');
    expect(await page.locator('tbody tr', { hasNotText: /admin/ }).count()).toBe(0);
  });

  it('passes axe-core on every page, in English and German', async () => {
    const member = await staffMember('wim.axe');
    const { page } = admins.true ?? {};
    if (!page) throw new Error('no admin browser');
    await app.request('adminCreateInvitation', { token: adminToken, body: { email: `xena@${tenantId}.example`, role: 'ANALYST' } });
    const pages = [
      ['staff list', '/admin/console/staff'],
      ['staff member', `/admin/console/staff?user=${member.user.id}`],
      ['deletion to confirm', `/admin/console/staff?user=${member.user.id}&confirm=delete`],
      ['invitations', '/admin/console/invitations'],
      ['audit trail', '/admin/console/audit'],
      ['settings', '/admin/console/settings'],
    ] as const;
    for (const language of BOTH_LANGUAGES) {
      await page.goto(`${issuer}/admin/console/staff`);
      await switchLanguage(page, language);
      for (const [label, path] of pages) {
        await page.goto(`${issuer}${path}`);
        expect(await page.getAttribute('html', 'lang')).toBe(language);
        await expectAccessible(page, `${label} (${language})`);
      }
      // A form come back with its problems: the summary and the error beside the field.
      await page.goto(`${issuer}/admin/console/settings`);
      await page.locator('#save-accentColor').fill('red');
      await press(page, language === 'en' ? 'Save settings' : 'Einstellungen speichern');
      expect(await page.locator('#save-accentColor').getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page, `settings with a problem (${language})`);
    }
    await switchLanguage(page, 'en');
  });
});
