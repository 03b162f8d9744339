import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { activateTotp } from '../helpers/mfa';
import { createClient, pkcePair, type TestClient } from '../helpers/oauth';

/**
 * `npm run screenshots` (vitest.screenshots.config.ts, not part of `npm test`): the hosted
 * pages (docs/api.md 11.7, 11.9) in chromium at a phone's width and a desktop's, written
 * to docs/screenshots/<page>-<width>.png for the partner-app guide (docs/guides/partner-apps.md).
 */
const OUT = 'docs/screenshots';
const VIEWPORTS = {
  phone: { width: 390, height: 700 },
  desktop: { width: 1024, height: 640 },
} as const;

describe('screenshots of the hosted pages', () => {
  let stack: BrowserStack;
  let partner: TestClient;
  const tenantId = 'acme-shops';
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    stack = await startBrowserStack();
    const { app, deps } = stack;
    const adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    await app.request('adminUpdateTenant', { token: adminToken, body: { displayName: 'Acme Shops' } });
    partner = await createClient(app, adminToken, tenantId, {
      redirectUri: `${stack.appsBase}/callback`,
    });
    await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: partner.clientId },
      body: { client_name: 'Partner Analytics' },
    });
    await registerStaff(app, adminToken, { username: 'alice', password, role: 'OPERATOR', tenantId });
    const bob = await registerStaff(app, adminToken, { username: 'bob', password, role: 'OPERATOR', tenantId });
    await activateTotp(app, deps, bob.token);
  });

  afterAll(async () => {
    await stack?.close();
  });

  const authorizeUrl = (extra: Record<string, string> = {}) => {
    const url = new URL('/oauth2/authorize', stack.issuer);
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
      await page.goto(new URL('/oauth2/logout', stack.issuer).href);
      await page.waitForSelector('text=Sign out?');
    },
    'signed-out': async (page) => {
      await page.goto(authorizeUrl());
      await signIn(page, 'alice');
      await page.waitForSelector('button[name=decision][value=allow]');
      await page.goto(new URL('/oauth2/logout', stack.issuer).href);
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
        const context = await stack.context({ viewport });
        const page = await context.newPage();
        await reach(page);
        expect(await page.locator('h1').count()).toBe(1);
        await page.screenshot({ path: `${OUT}/${name}-${width}.png` });
        await context.close();
      }
    });
  }
});
