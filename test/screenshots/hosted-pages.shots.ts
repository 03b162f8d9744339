import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorizer from '../../functions/authorizer';
import * as hostedConsent from '../../functions/hosted-consent';
import * as hostedSecondFactor from '../../functions/hosted-second-factor';
import * as hostedSignIn from '../../functions/hosted-sign-in';
import * as oauth2Authorize from '../../functions/oauth2-authorize';
import * as oauth2Logout from '../../functions/oauth2-logout';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps } from '../helpers/deps';
import { type ApiServer, startApiServer } from '../helpers/http-server';
import { activateTotp } from '../helpers/mfa';
import { createClient, pkcePair, type TestClient } from '../helpers/oauth';

/**
 * `npm run screenshots` (vitest.screenshots.config.ts, not part of `npm test`): the hosted
 * pages (docs/api.md 11.7, 11.9) in chromium at a phone's width and a desktop's, written
 * to docs/screenshots/<page>-<width>.png for the README's partner-app guide.
 */
const OUT = 'docs/screenshots';
const VIEWPORTS = {
  phone: { width: 390, height: 700 },
  desktop: { width: 1024, height: 640 },
} as const;

describe('screenshots of the hosted pages', () => {
  let server: ApiServer;
  let apps: Server;
  let deps: TestDeps;
  let app: App;
  let browser: Browser;
  let partner: TestClient;
  const tenantId = 'acme-shops';
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    server = await startApiServer();
    apps = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('callback'));
    await new Promise<void>((listening) => apps.listen(0, '127.0.0.1', listening));
    deps = await testDeps({ ISSUER: server.url });
    deps.clock.set(Date.now());
    app = testApp(deps);
    server.mount(
      [
        { method: 'GET', path: '/oauth2/authorize', handler: oauth2Authorize.makeHandler(deps), authorizer: true },
        { method: 'POST', path: '/oauth2/hosted/sign-in', handler: hostedSignIn.makeHandler(deps), authorizer: false },
        { method: 'POST', path: '/oauth2/hosted/second-factor', handler: hostedSecondFactor.makeHandler(deps), authorizer: false },
        { method: 'POST', path: '/oauth2/hosted/consent', handler: hostedConsent.makeHandler(deps), authorizer: false },
        { method: 'GET', path: '/oauth2/logout', handler: oauth2Logout.makeHandler(deps), authorizer: false },
        { method: 'POST', path: '/oauth2/logout', handler: oauth2Logout.makeHandler(deps), authorizer: false },
      ],
      authorizer.makeHandler(deps),
    );
    const adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    await app.request('adminUpdateTenant', { token: adminToken, body: { displayName: 'Acme Shops' } });
    partner = await createClient(app, adminToken, tenantId, {
      redirectUri: `http://localhost:${(apps.address() as AddressInfo).port}/callback`,
    });
    await app.request('oauth2UpdateClient', {
      token: adminToken,
      pathParameters: { clientId: partner.clientId },
      body: { client_name: 'Partner Analytics' },
    });
    await registerStaff(app, adminToken, { username: 'alice', password, role: 'OPERATOR', tenantId });
    const bob = await registerStaff(app, adminToken, { username: 'bob', password, role: 'OPERATOR', tenantId });
    await activateTotp(app, deps, bob.token);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((closed) => apps?.close(closed));
  });

  const authorizeUrl = (extra: Record<string, string> = {}) => {
    const url = new URL('/oauth2/authorize', server.url);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: partner.clientId,
      redirect_uri: partner.redirectUri,
      scope: 'orders:read',
      state: 'screenshot',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    return url.href;
  };

  async function signIn(page: Page, username: string) {
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
  }

  /** Each page, reached in a fresh browser profile at each width. */
  const journeys: Record<string, (page: Page) => Promise<void>> = {
    'sign-in': async (page) => {
      await page.goto(authorizeUrl());
    },
    'second-factor': async (page) => {
      await page.goto(authorizeUrl());
      await signIn(page, 'bob');
      await page.waitForSelector('input[name=code]');
    },
    consent: async (page) => {
      await page.goto(authorizeUrl());
      await signIn(page, 'alice');
      await page.waitForSelector('button[name=decision][value=allow]');
    },
    'sign-out': async (page) => {
      await page.goto(authorizeUrl());
      await signIn(page, 'alice');
      await page.waitForSelector('button[name=decision][value=allow]');
      await page.goto(new URL('/oauth2/logout', server.url).href);
      await page.waitForSelector('text=Sign out?');
    },
    'signed-out': async (page) => {
      await page.goto(authorizeUrl());
      await signIn(page, 'alice');
      await page.waitForSelector('button[name=decision][value=allow]');
      await page.goto(new URL('/oauth2/logout', server.url).href);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Signed out');
    },
    error: async (page) => {
      await page.goto(authorizeUrl({ redirect_uri: 'https://attacker.example/callback' }));
    },
  };

  for (const [name, reach] of Object.entries(journeys)) {
    it(`takes the ${name} page`, async () => {
      for (const [width, viewport] of Object.entries(VIEWPORTS)) {
        const context = await browser.newContext({ viewport });
        context.setDefaultTimeout(5_000);
        const page = await context.newPage();
        await reach(page);
        expect(await page.locator('h1').count()).toBe(1);
        await page.screenshot({ path: `${OUT}/${name}-${width}.png` });
        await context.close();
      }
    });
  }
});
