import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin } from '../helpers/app';
import { type BrowserStack, PASSKEY_STACK, startBrowserStack } from '../helpers/browser';
import { type TestDeps, uniqueTenant } from '../helpers/deps';

/**
 * Accepting an invitation in a real browser (docs/api.md 13.1): chromium follows the
 * emailed link, chooses a username and a password on the hosted page (with JavaScript
 * and without), and ends signed in, with a browser session the other hosted pages accept.
 */
describe('invitations on the hosted page (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let issuer: string;
  let tenantId: string;
  let adminToken: string;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    stack = await startBrowserStack(PASSKEY_STACK);
    ({ issuer, deps, app } = stack);
    tenantId = uniqueTenant('invite-web');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** Invites a new address and answers the link emailed to it. */
  async function invite(local: string, role = 'OPERATOR'): Promise<string> {
    const email = `${local}@${tenantId}.example`;
    const created = await app.request('adminCreateInvitation', { token: adminToken, body: { email, role } });
    expect(created.status).toBe(201);
    const link = /https?:\/\/\S+\/invitations\/\S+/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[0];
    if (!link) throw new Error(`no link emailed to ${email}`);
    expect(link.startsWith(`${issuer}/invitations/`)).toBe(true);
    return link;
  }

  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])('accepts with a password %s: the account with its role, a signed-in browser, and a dead link', async (_, javaScriptEnabled) => {
    const local = javaScriptEnabled ? 'ines' : 'noah';
    const link = await invite(local, 'FINANCE');
    const context = await stack.context({ javaScriptEnabled });
    const page = await context.newPage();
    const shown = await page.goto(link);
    expect(shown?.status()).toBe(200);
    expect(shown?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await page.inputValue('input[name=username]')).toBe(local);
    expect(await page.getAttribute('input[name=password]', 'autocomplete')).toBe('new-password');
    await page.fill('input[name=password]', 'a passphrase of my own');
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:text("You are signed in")');
    expect(await page.locator('main').textContent()).toContain(`Your account ${local} is ready`);

    const user = await deps.store.users.findByUsername(tenantId, local);
    expect(user).toMatchObject({ role: 'FINANCE', emailVerified: true, email: `${local}@${tenantId}.example` });
    const cookie = (await context.cookies(issuer)).find((candidate) => candidate.name === '__Host-session');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    // The browser session is one the other hosted pages accept.
    const passkeys = await page.goto(`${issuer}/oauth2/hosted/passkeys`);
    expect(passkeys?.status()).toBe(200);
    expect(await page.locator('main').textContent()).toContain(`Signed in as ${local}`);

    const again = await page.goto(link);
    expect(again?.status()).toBe(400);
    expect(await page.locator('[role=alert]').textContent()).toContain('this link was already used, was revoked, or has expired');
    await context.close();
  });

  it('accepts with a passkey from the virtual authenticator: an account without a password, named as chosen', async () => {
    const link = await invite('pavel', 'LOGISTICS');
    const { context, page, cdp, authenticatorId } = await stack.withAuthenticator({ conditional: false });
    await page.goto(link);
    await page.fill('#passkey-username', 'pavel.k');
    await page.click('button:has-text("Create my account with a passkey")');
    await page.waitForSelector('h1:text("You are signed in")');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    const user = await deps.store.users.findByUsername(tenantId, 'pavel.k');
    expect(user).toMatchObject({ role: 'LOGISTICS', emailVerified: true });
    expect(user?.passwordHash).toBeUndefined();
    expect(await deps.store.passkeys.listByUser(tenantId, user?.id ?? '')).toHaveLength(1);
    await context.close();
  });
});
