import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { activateDelivered, activateTotp } from '../helpers/mfa';
import { createClient, type TestClient } from '../helpers/oauth';

/**
 * The second-factor page beyond TOTP, and the hosted sign-in's device cookie, in a real
 * browser (docs/api.md 10.1, 11.7): chromium driven by playwright-core as in
 * hosted-browser.test.ts (test/helpers/browser.ts). Codes sent by SMS or email are read
 * from the local outbox.
 */
describe('browser sign-in: second factors and known devices (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let shop: TestClient;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    stack = await startBrowserStack();
    ({ deps, app } = stack);
    const { appsBase } = stack;
    tenantId = uniqueTenant('hosted-2fa');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    // First party: no consent page, so each journey ends at the callback after the second factor.
    shop = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/shop/callback` });
    const marked = await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: shop.clientId },
      body: { first_party: true },
    });
    expect(marked.status).toBe(200);
  });

  afterAll(async () => {
    await stack?.close();
  });

  async function newUser() {
    const username = `user-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, adminToken, { username, password, role: 'OPERATOR', tenantId });
    return { username, token: staff.token, id: staff.user.id };
  }

  /** Opens the sign-in page of a new authorization of the shop client. */
  async function authorizeShop(page: Page, extra: Record<string, string> = {}) {
    const { url, verifier, state } = stack.authorizeUrl(shop, extra);
    const shown = await page.goto(url);
    return { shown, verifier, state };
  }

  async function signIn(page: Page, username: string) {
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
  }

  /** The browser is back at the shop with a code that redeems. */
  const arrived = (page: Page, state: string, verifier: string) => stack.arrived(page, shop, state, verifier);

  const offered = (page: Page) =>
    page.locator('select[name=method] option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));

  const latestCode = async (userId: string, method: 'SMS' | 'EMAIL') => (await deps.outbox.latest(tenantId, userId, method))?.code ?? '';

  it('sends an SMS code when the page opens and takes it', async () => {
    const user = await newUser();
    await activateDelivered(app, deps, user.token, user.id, 'SMS', '+15550100301');
    // The code of the activation is used; the sign-in's is a later one (one per 30 s).
    deps.clock.advance(31);
    const context = await stack.context();
    const page = await context.newPage();
    const { verifier, state } = await authorizeShop(page);
    await signIn(page, user.username);
    await page.waitForSelector('input[name=code]');
    expect(await offered(page)).toEqual(['SMS']);
    const sent = await latestCode(user.id, 'SMS');
    expect(sent).toMatch(/^\d{6}$/);
    await page.fill('input[name=code]', sent === '000000' ? '111111' : '000000');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    expect(await page.locator('[role=alert]').textContent()).toBe('Invalid MFA code');
    await page.fill('input[name=code]', sent);
    await page.click('button[type=submit]');
    await arrived(page, state, verifier);
    await context.close();
  });

  /** A user with TOTP, EMAIL (activated in a session that passed TOTP) and recovery codes. */
  async function userWithEveryFactor() {
    const user = await newUser();
    const { code } = await activateTotp(app, deps, user.token);
    const stepUp = await app.request('login', { body: { username: user.username, password, tenantId, mfaCode: code() } });
    expect(stepUp.status).toBe(200);
    await activateDelivered(app, deps, stepUp.body.data.token, user.id, 'EMAIL', `${user.username}@example.com`);
    const generated = await app.request('generateRecoveryCodes', { token: stepUp.body.data.token });
    expect(generated.status).toBe(200);
    deps.clock.advance(31);
    return { ...user, recoveryCodes: generated.body.data.codes as string[] };
  }

  it('lets the user choose EMAIL: an empty code sends one, which signs in', async () => {
    const user = await userWithEveryFactor();
    const context = await stack.context();
    const page = await context.newPage();
    const { verifier, state } = await authorizeShop(page);
    await signIn(page, user.username);
    await page.waitForSelector('input[name=code]');
    expect(await offered(page)).toEqual(['TOTP', 'EMAIL', 'RECOVERY']);
    const before = await latestCode(user.id, 'EMAIL');
    await page.selectOption('select[name=method]', 'EMAIL');
    await page.click('button[type=submit]');
    await page.waitForSelector('select[name=method]');
    expect(await page.locator('select[name=method]').inputValue()).toBe('EMAIL');
    const sent = await latestCode(user.id, 'EMAIL');
    expect(sent).toMatch(/^\d{6}$/);
    expect(sent).not.toBe(before);
    await page.fill('input[name=code]', sent);
    await page.click('button[type=submit]');
    await arrived(page, state, verifier);
    await context.close();
  });

  it('takes a recovery code, once', async () => {
    const user = await userWithEveryFactor();
    const [recovery = ''] = user.recoveryCodes;
    const context = await stack.context();
    const page = await context.newPage();
    const { verifier, state } = await authorizeShop(page);
    await signIn(page, user.username);
    await page.waitForSelector('input[name=code]');
    await page.selectOption('select[name=method]', 'RECOVERY');
    await page.fill('input[name=code]', recovery);
    await page.click('button[type=submit]');
    await arrived(page, state, verifier);

    // The same code again, in a new sign-in: refused.
    const again = await authorizeShop(page, { prompt: 'login' });
    expect(again.shown?.status()).toBe(200);
    await signIn(page, user.username);
    await page.waitForSelector('input[name=code]');
    await page.selectOption('select[name=method]', 'RECOVERY');
    await page.fill('input[name=code]', recovery);
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    expect(await page.locator('[role=alert]').textContent()).toBe('Invalid MFA code');
    await context.close();
  });

  it('keeps a browser that signed in before signing in while unknown sources are locked out', async () => {
    const user = await newUser();
    const known = await stack.context();
    const knownPage = await known.newPage();
    const first = await authorizeShop(knownPage);
    await signIn(knownPage, user.username);
    await arrived(knownPage, first.state, first.verifier);
    const device = (await known.cookies()).find((cookie) => cookie.name.startsWith('__Secure-device-'));
    expect(device).toMatchObject({ path: '/oauth2/hosted/sign-in', httpOnly: true, secure: true, sameSite: 'Strict' });

    // An attacker spends the unknown sources' budget.
    for (let i = 0; i < 5; i++) {
      const guess = await app.request('login', { body: { username: user.username, password: `guess-${i}`, tenantId } });
      expect(guess.status).toBe(401);
    }
    const stranger = await stack.context();
    const strangerPage = await stranger.newPage();
    await authorizeShop(strangerPage);
    await signIn(strangerPage, user.username);
    await strangerPage.waitForSelector('[role=alert]');
    expect(await strangerPage.locator('[role=alert]').textContent()).toBe('Too many failed attempts');

    const again = await authorizeShop(knownPage, { prompt: 'login' });
    expect(again.shown?.status()).toBe(200);
    await signIn(knownPage, user.username);
    await arrived(knownPage, again.state, again.verifier);
    await Promise.all([known.close(), stranger.close()]);
  });
});
