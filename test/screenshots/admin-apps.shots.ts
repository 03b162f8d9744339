import { mkdir } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdmin } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { connectionOf, idpCertificate, oidcConnection, samlConnection } from '../helpers/federation-admin';
import { createClient } from '../helpers/oauth';

/**
 * `npm run screenshots`: the tenant console's shops, OAuth clients, connections and
 * domains, and SCIM tokens (docs/api.md 15.3.5-15.3.8) at a phone's width and a desktop's,
 * written to docs/screenshots/admin-<page>-<width>.png for docs/guides/tenant-admins.md.
 */
const OUT = 'docs/screenshots';
const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1024, height: 768 },
} as const;

describe('screenshots of the tenant console’s apps, connections and SCIM tokens', () => {
  let stack: BrowserStack;
  let connectionId: string;
  const tenantId = 'acme-console';
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    stack = await startBrowserStack();
    const { app } = stack;
    const token = (await registerAdmin(app, tenantId, 'admin', password)).token;
    await app.request('adminUpdateTenant', { token, body: { displayName: 'Acme Shops' } });
    await app.request('adminCreateShop', { token, body: { shopId: 'berlin-1', name: 'Berlin Mitte' } });
    await createClient(app, token, tenantId, { clientId: 'partner-analytics', redirectUri: 'https://analytics.example/callback' });
    await app.request('adminAddDomain', { token, body: { domain: 'acme.example' } });
    connectionId = await connectionOf(app, token, oidcConnection(['acme.example']));
    await idpCertificate();
    await connectionOf(app, token, await samlConnection(['acme.example']));
    await app.request('adminCreateScimToken', { token, body: { name: 'Entra ID production' } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  async function signedIn(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${stack.issuer}/admin?tenant=${tenantId}`);
    await page.fill('input[name=username]', 'admin');
    // A tenant with connections asks for the username first (docs/api.md 14.3).
    if ((await page.locator('input[name=password]').count()) === 0)
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.fill('input[name=password]', password);
    await Promise.all([page.waitForURL((url) => url.pathname.startsWith('/admin')), page.click('button[type=submit]')]);
    return page;
  }

  const go = (path: string) => async (page: Page) => {
    await page.goto(`${stack.issuer}${path}`);
  };
  /** Each page, reached in a signed-in browser profile at each width. */
  const journeys: Record<string, (page: Page) => Promise<void>> = {
    'admin-shops': go('/admin/console/shops'),
    'admin-clients': go('/admin/console/clients'),
    'admin-client': go('/admin/console/clients?client=partner-analytics'),
    'admin-client-secret': async (page) => {
      await page.goto(`${stack.issuer}/admin/console/clients?client=partner-analytics`);
      await Promise.all([page.waitForNavigation(), page.click('form[action="/admin/console/clients/rotate"] button[type=submit]')]);
    },
    'admin-connections': go('/admin/console/connections'),
    'admin-connection': async (page) => go(`/admin/console/connections?connection=${connectionId}`)(page),
    'admin-scim-tokens': go('/admin/console/scim-tokens'),
  };

  for (const [name, reach] of Object.entries(journeys)) {
    it(`takes the ${name} page`, async () => {
      for (const [width, viewport] of Object.entries(VIEWPORTS)) {
        const context = await stack.context({ viewport });
        const page = await signedIn(context);
        await reach(page);
        expect(await page.locator('h1').count()).toBe(1);
        await page.screenshot({ path: `${OUT}/${name}-${width}.png`, fullPage: true });
        await context.close();
      }
    });
  }
});
