import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorizer from '../../functions/authorizer';
import * as hostedConsent from '../../functions/hosted-consent';
import * as hostedSecondFactor from '../../functions/hosted-second-factor';
import * as hostedSignIn from '../../functions/hosted-sign-in';
import * as oauth2Authorize from '../../functions/oauth2-authorize';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { type ApiServer, startApiServer } from '../helpers/http-server';
import { activateDelivered, activateTotp } from '../helpers/mfa';
import { createClient, pkcePair, type TestClient, tokenRequest } from '../helpers/oauth';

/**
 * The second-factor page beyond TOTP, and the hosted sign-in's device cookie, in a real
 * browser (docs/api.md 10.1, 11.7): chromium driven by playwright-core as in
 * hosted-browser.test.ts. Codes sent by SMS or email are read from the local outbox.
 */
describe('browser sign-in: second factors and known devices (chromium)', () => {
  let server: ApiServer;
  let apps: Server;
  let deps: TestDeps;
  let app: App;
  let browser: Browser;
  let issuer: string;
  let tenantId: string;
  let adminToken: string;
  let shop: TestClient;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    server = await startApiServer();
    apps = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('callback'));
    await new Promise<void>((listening) => apps.listen(0, '127.0.0.1', listening));
    const appsBase = `http://localhost:${(apps.address() as AddressInfo).port}`;
    issuer = server.url;
    deps = await testDeps({ ISSUER: issuer });
    deps.clock.set(Date.now());
    app = testApp(deps);
    server.mount(
      [
        { method: 'GET', path: '/oauth2/authorize', handler: oauth2Authorize.makeHandler(deps), authorizer: true },
        { method: 'POST', path: '/oauth2/hosted/sign-in', handler: hostedSignIn.makeHandler(deps), authorizer: false },
        { method: 'POST', path: '/oauth2/hosted/second-factor', handler: hostedSecondFactor.makeHandler(deps), authorizer: false },
        { method: 'POST', path: '/oauth2/hosted/consent', handler: hostedConsent.makeHandler(deps), authorizer: false },
      ],
      authorizer.makeHandler(deps),
    );
    tenantId = uniqueTenant('hosted-2fa');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    // First party: no consent page, so each journey ends at the callback after the second factor.
    shop = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/shop/callback` });
    const marked = await app.request('oauth2UpdateClient', {
      token: adminToken,
      pathParameters: { clientId: shop.clientId },
      body: { first_party: true },
    });
    expect(marked.status).toBe(200);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((closed) => apps?.close(closed));
  });

  async function newUser() {
    const username = `user-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, adminToken, { username, password, role: 'OPERATOR', tenantId });
    return { username, token: staff.token, id: staff.user.id };
  }

  async function browserContext(): Promise<BrowserContext> {
    const context = await browser.newContext();
    context.setDefaultTimeout(5_000);
    return context;
  }

  /** Opens the sign-in page of a new authorization of the shop client. */
  async function authorizeShop(page: Page, extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkcePair();
    const state = `state-${Math.random().toString(36).slice(2)}`;
    const url = new URL('/oauth2/authorize', issuer);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: shop.clientId,
      redirect_uri: shop.redirectUri,
      scope: 'orders:read',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    const shown = await page.goto(url.href);
    return { shown, verifier, state };
  }

  async function signIn(page: Page, username: string) {
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
  }

  /** The browser is back at the shop with a code that redeems. */
  async function arrived(page: Page, state: string, verifier: string) {
    await page.waitForURL(`${shop.redirectUri}?**`);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(state);
    const code = callback.searchParams.get('code') ?? '';
    const tokens = await app.request(
      'oauth2Token',
      tokenRequest(shop, { grant_type: 'authorization_code', code, redirect_uri: shop.redirectUri, code_verifier: verifier }),
    );
    expect(tokens.status).toBe(200);
  }

  const offered = (page: Page) =>
    page.locator('select[name=method] option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));

  const latestCode = async (userId: string, method: 'SMS' | 'EMAIL') => (await deps.outbox.latest(tenantId, userId, method))?.code ?? '';

  it('sends an SMS code when the page opens and takes it', async () => {
    const user = await newUser();
    await activateDelivered(app, deps, user.token, user.id, 'SMS', '+15550100301');
    // The code of the activation is used; the sign-in's is a later one (one per 30 s).
    deps.clock.advance(31);
    const context = await browserContext();
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
    const generated = await app.request('mfaRecoveryCodes', { token: stepUp.body.data.token });
    expect(generated.status).toBe(200);
    deps.clock.advance(31);
    return { ...user, recoveryCodes: generated.body.data.codes as string[] };
  }

  it('lets the user choose EMAIL: an empty code sends one, which signs in', async () => {
    const user = await userWithEveryFactor();
    const context = await browserContext();
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
    const context = await browserContext();
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
    const known = await browserContext();
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
    const stranger = await browserContext();
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
