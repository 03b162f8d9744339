import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { signedInBrowser } from '../helpers/console';
import { createClient, grantTokens } from '../helpers/oauth';

/**
 * `npm run screenshots`: the account page (docs/api.md 15.2) and the console's start
 * (15.3) in chromium at a phone's width (360 px, the narrowest the pages promise) and a
 * desktop's, written to docs/screenshots/account-<section>-<width>.png for the guide
 * (docs/guides/account-page.md).
 */
const OUT = 'docs/screenshots';
const VIEWPORTS = {
  phone: { width: 360, height: 740 },
  desktop: { width: 1280, height: 800 },
} as const;
const SECTIONS = ['profile', 'password', 'security', 'passkeys', 'sessions', 'apps'] as const;

describe('screenshots of the account page', () => {
  let stack: BrowserStack;
  const tenantId = 'acme-account';
  const password = 'a long unusual passphrase';
  /** One user per width: the first width's TOTP enrolment stays pending. */
  const USERS = { phone: 'alice', desktop: 'anna' } as const;

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    stack = await startBrowserStack();
    const { app } = stack;
    const adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    await app.request('adminUpdateTenant', { token: adminToken, body: { displayName: 'Acme Shops', accentColor: '#0f766e' } });
    const client = await createClient(app, adminToken, tenantId, { redirectUri: `${stack.appsBase}/callback`, scope: 'orders:read' });
    await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: client.clientId },
      body: { client_name: 'Partner Analytics' },
    });
    for (const username of Object.values(USERS)) {
      const user = await registerStaff(app, adminToken, { username, password, role: 'OPERATOR', tenantId });
      await grantTokens(app, user.token, client);
    }
  });

  afterAll(async () => {
    await stack?.close();
  });

  async function shoot(page: Page, name: string) {
    expect(await page.locator('h1').count()).toBe(1);
    await page.screenshot({ path: `${OUT}/${name}.png`, fullPage: true });
  }

  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    it(`takes every section at the ${width}’s width, the TOTP enrolment and the console`, async () => {
      const account = { tenantId, username: USERS[width as keyof typeof USERS], password };
      const { context, page } = await signedInBrowser(stack, 'account', account);
      await page.setViewportSize(viewport);
      for (const section of SECTIONS) {
        await page.goto(`${stack.issuer}/account/${section}`);
        await shoot(page, `account-${section}-${width}`);
      }
      await page.goto(`${stack.issuer}/account/password`);
      await page.fill('#change-currentPassword', 'wrong');
      await page.fill('#change-newPassword', 'abc');
      await Promise.all([page.waitForLoadState('load'), page.click('form[action="/account/password/change"] button[type=submit]')]);
      await shoot(page, `account-password-errors-${width}`);
      await page.goto(`${stack.issuer}/account/security`);
      await Promise.all([page.waitForLoadState('load'), page.click('form[action="/account/security/totp"] button[type=submit]')]);
      await shoot(page, `account-totp-${width}`);
      await context.close();
      const admin = await signedInBrowser(stack, 'admin', { tenantId, username: 'admin', password });
      await admin.page.setViewportSize(viewport);
      await shoot(admin.page, `console-overview-${width}`);
      await admin.context.close();
    });
  }
});
