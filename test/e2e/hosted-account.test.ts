import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, PASSKEY_STACK, startBrowserStack } from '../helpers/browser';
import { BOTH_LANGUAGES, expectAccessible, signedInBrowser, switchLanguage } from '../helpers/console';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { authenticator } from '../helpers/mfa';
import { createClient, grantTokens } from '../helpers/oauth';

const PASSWORD = 'account browser passphrase';
const SECTIONS = ['profile', 'password', 'security', 'passkeys', 'sessions', 'apps'] as const;

/**
 * The account page in chromium (docs/api.md 15.2): every action with JavaScript on and off,
 * a TOTP enrolment from the QR page, a passkey added with the virtual authenticator, and
 * axe-core on every page in English and German. Few sign-ins: one profile per mode.
 */
describe('the account page (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;

  beforeAll(async () => {
    stack = await startBrowserStack(PASSKEY_STACK);
    ({ deps, app } = stack);
    tenantId = uniqueTenant('accountweb');
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
  });

  afterAll(async () => {
    await stack?.close();
  });

  async function newUser() {
    const username = `user-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId });
    return { username, id: staff.user.id as string, token: staff.token as string, account: { tenantId, username, password: PASSWORD } };
  }

  const flash = (page: Page) => page.textContent('div.flash[role=status]');
  const open = (page: Page, section: string) => page.goto(`${stack.issuer}/account/${section}`);
  /** Clicks a button whose form the page's script posts, and waits for the section's page again (the same URL: its GET). */
  async function backToSection(page: Page, section: string, selector: string) {
    const back = page.waitForResponse((answer) => answer.request().method() === 'GET' && answer.url().endsWith(`/account/${section}`));
    await page.click(selector);
    await back;
    await page.waitForLoadState('load');
  }
  async function submit(page: Page, selector: string) {
    await Promise.all([page.waitForLoadState('load'), page.click(selector)]);
  }

  it('has no serious accessibility violation on any page, in English and German', async () => {
    const user = await newUser();
    const { context, page } = await signedInBrowser(stack, 'account', user.account);
    try {
      for (const language of BOTH_LANGUAGES) {
        await switchLanguage(page, language);
        for (const section of SECTIONS) {
          await open(page, section);
          expect(await page.getAttribute('html', 'lang')).toBe(language);
          await expectAccessible(page, `/account/${section} (${language})`);
        }
        // A form come back with errors, too.
        await open(page, 'password');
        await page.fill('#change-currentPassword', PASSWORD);
        await page.fill('#change-newPassword', 'abc');
        await page.evaluate(() => {
          for (const input of document.querySelectorAll('input')) input.removeAttribute('required');
        });
        await submit(page, 'form[action="/account/password/change"] button[type=submit]');
        expect(await page.getAttribute('#change-newPassword', 'aria-invalid')).toBe('true');
        await expectAccessible(page, `/account/password with errors (${language})`);
      }
    } finally {
      await context.close();
    }
  });

  it('enrols TOTP from the QR page with JavaScript, makes recovery codes after the second factor, adds and removes a passkey', async () => {
    const user = await newUser();
    const { context, page, cdp, authenticatorId } = await stack.withAuthenticator({ conditional: false });
    try {
      page.on('dialog', (dialog) => void dialog.accept());
      await page.goto(`${stack.issuer}/account/security?tenant=${tenantId}`);
      await page.fill('input[name=username]', user.username);
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL(/\/account\/security/), page.click('button[type=submit]')]);
      // The passkey first: a fresh sign-in of a user without MFA may add one.
      await open(page, 'passkeys');
      await page.fill('#add-name', 'Laptop <b>1</b>');
      await backToSection(page, 'passkeys', 'form[data-passkey] button');
      expect(await flash(page)).toBe('The passkey is added.');
      expect(await page.textContent('ul.cards')).toContain('Laptop <b>1</b>');
      expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1);
      await submit(page, 'form[action="/account/passkeys/remove"] button[type=submit]');
      expect(await flash(page)).toBe('The passkey is removed.');
      // TOTP from the QR page: the key shown is the otpauth URI's.
      await open(page, 'security');
      await submit(page, 'form[action="/account/security/totp"] button[type=submit]');
      expect(await page.isVisible('.qr svg')).toBe(true);
      await expectAccessible(page, 'TOTP enrolment');
      const otpauth = new URL((await page.getAttribute('#totp-secret', 'data-otpauth')) ?? '');
      const secret = otpauth.searchParams.get('secret') ?? '';
      expect((await page.textContent('#totp-secret'))?.trim()).toBe(secret);
      expect(await page.isVisible('button[data-copy=totp-secret]')).toBe(true);
      const code = authenticator(deps, secret);
      await page.fill('#verify-code', code());
      await submit(page, 'form[action="/account/security/verify"] button[type=submit]');
      expect(await flash(page)).toBe('Authenticator app is on.');
      // Recovery codes need the second factor in this session: asked on the page.
      await submit(page, 'form[action="/account/security/recovery-codes"] button[type=submit]');
      expect(await page.textContent('div.summary[role=alert]')).toContain('Confirm it is you with your second factor first.');
      deps.clock.advance(30);
      await page.fill('#confirm-password', PASSWORD);
      await page.selectOption('#confirm-method', 'TOTP');
      await page.fill('#confirm-code', code());
      await submit(page, 'form[action="/account/security/confirm"] button[type=submit]');
      expect(await flash(page)).toBe('Confirmed. You can go on.');
      await submit(page, 'form[action="/account/security/recovery-codes"] button[type=submit]');
      expect(await page.locator('#recovery-codes li').count()).toBe(10);
      await expectAccessible(page, 'recovery codes');
      await open(page, 'security');
      await submit(page, 'form[action="/account/security/disable"] button[type=submit]');
      expect(await flash(page)).toBe('Authenticator app is off.');
    } finally {
      await context.close();
    }
  });

  it('does every other action without JavaScript: POST, 303, GET', async () => {
    const user = await newUser();
    const client = await createClient(app, adminToken, tenantId, { redirectUri: `${stack.appsBase}/cb`, scope: 'orders:read' });
    await grantTokens(app, user.token, client);
    expect((await app.request('listGrants', { token: user.token })).body.data.grants).toHaveLength(1);
    const { context, page } = await signedInBrowser(stack, 'account', user.account, { javaScript: false });
    try {
      await switchLanguage(page, 'de');
      expect(await page.textContent('h1')).toBe('Profil');
      await switchLanguage(page, 'en');
      await page.fill('#email-email', `${user.username}@example.com`);
      await submit(page, 'form[action="/account/profile/email"] button[type=submit]');
      expect(await flash(page)).toBe(`We sent a code to ${user.username}@example.com. Enter it below.`);
      const sent = await deps.outbox.latest(tenantId, user.id, 'EMAIL', 'verify-email');
      await page.fill('#verify-email-code', sent?.code ?? '');
      await submit(page, 'form[action="/account/profile/verify-email"] button[type=submit]');
      expect(await flash(page)).toBe('Your email address is verified.');
      // Before a first second factor, which ends the user's grants (docs/api.md 4.5).
      await open(page, 'apps');
      expect(await page.textContent('ul.cards')).toContain(client.clientId);
      await submit(page, 'form[action="/account/apps/revoke"] button[type=submit]');
      expect(await flash(page)).toBe('The app no longer has access.');
      // Another session of the user, signed out with all others.
      await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } });
      await open(page, 'sessions');
      await submit(page, 'form[action="/account/sessions/revoke-others"] button[type=submit]');
      expect(await flash(page)).toMatch(/other sessions? (is|are) signed out\.$/);
      await open(page, 'security');
      await page.fill('#sms-phone', '+15550100');
      await submit(page, 'form[action="/account/security/sms"] button[type=submit]');
      expect(await flash(page)).toBe('We sent a code. Enter it to turn this method on.');
      const sms = await deps.outbox.latest(tenantId, user.id, 'SMS');
      await page.fill('#verify-code', sms?.code ?? '');
      await submit(page, 'form[action="/account/security/verify"] button[type=submit]');
      expect(await flash(page)).toBe('Text message is on.');
      // No dialog without JavaScript: the form is sent as it is. This session passed no second factor.
      await submit(page, 'form[action="/account/security/disable"] button[type=submit]');
      expect(await page.textContent('div.summary[role=alert]')).toContain('second factor');
      await open(page, 'password');
      await page.fill('#change-currentPassword', PASSWORD);
      await page.fill('#change-newPassword', 'another long passphrase');
      await submit(page, 'form[action="/account/password/change"] button[type=submit]');
      expect(await flash(page)).toBe('Your password is changed. Your other sessions are signed out.');
    } finally {
      await context.close();
    }
  });

  // Last: it moves the clock past the admin's token.
  it('confirms it is the user with a passkey when the sign-in is old, then changes the password', async () => {
    const user = await newUser();
    const { context, page, cdp, authenticatorId } = await stack.withAuthenticator({ conditional: false });
    try {
      await page.goto(`${stack.issuer}/account/passkeys?tenant=${tenantId}`);
      await page.fill('input[name=username]', user.username);
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL(/\/account\/passkeys/), page.click('button[type=submit]')]);
      await backToSection(page, 'passkeys', 'form[data-passkey] button');
      expect(await flash(page)).toBe('The passkey is added.');
      deps.clock.advance(deps.config.reauthMaxAgeSeconds + 1);
      await open(page, 'profile');
      // Both ways to confirm: the password form, and the passkey's button the script shows.
      expect(await page.isVisible('#confirm-password')).toBe(true);
      expect(await page.isVisible('form[action="/account/profile/confirm-passkey"] button')).toBe(true);
      await backToSection(page, 'profile', 'form[action="/account/profile/confirm-passkey"] button');
      expect(await flash(page)).toBe('Confirmed. You can go on.');
      expect(await page.isVisible('#confirm-title')).toBe(false);
      const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      expect(credential?.signCount).toBeGreaterThan(0);
      await open(page, 'password');
      await page.fill('#change-currentPassword', PASSWORD);
      await page.fill('#change-newPassword', 'a passphrase after the passkey');
      await submit(page, 'form[action="/account/password/change"] button[type=submit]');
      expect(await flash(page)).toBe('Your password is changed. Your other sessions are signed out.');
      // Last: axe's own CDP session ends the virtual authenticator's environment when it detaches.
      deps.clock.advance(deps.config.reauthMaxAgeSeconds + 1);
      await open(page, 'security');
      expect(await page.isVisible('form[action="/account/security/confirm-passkey"] button')).toBe(true);
      await expectAccessible(page, 'confirmation with a passkey');
    } finally {
      await context.close();
    }
  });
});
