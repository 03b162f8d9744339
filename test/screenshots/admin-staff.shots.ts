import { mkdir } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { signedInBrowser } from '../helpers/console';
import { activateTotp } from '../helpers/mfa';

/**
 * `npm run screenshots` (vitest.screenshots.config.ts): the tenant console's staff,
 * invitations, audit trail and settings (docs/api.md 15.3.1-15.3.4) at a phone's width and
 * a desktop's, written to docs/screenshots/admin-<page>-<width>.png for the tenant admins'
 * guide (docs/guides/tenant-admins.md).
 */
const OUT = 'docs/screenshots';
const VIEWPORTS = {
  phone: { width: 390, height: 800 },
  desktop: { width: 1024, height: 800 },
} as const;

describe('screenshots of the tenant console: staff, invitations, audit, settings', () => {
  let stack: BrowserStack;
  const tenantId = 'acme-shops-staff';
  const password = 'a long unusual passphrase';
  let memberId = '';

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    stack = await startBrowserStack();
    const { app, deps } = stack;
    const admin = await registerAdmin(app, tenantId, 'admin', password);
    await app.request('adminUpdateTenant', { token: admin.token, body: { displayName: 'Acme Shops', accentColor: '#0f766e' } });
    await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'berlin-1', name: 'Berlin Mitte' } });
    const people = [
      ['alice.berg', 'OPERATOR', 'alice@acme-shops.example'],
      ['bob.kraus', 'FINANCE', 'bob@acme-shops.example'],
      ['chris.lange', 'LOGISTICS', undefined],
    ] as const;
    for (const [username, role, email] of people) {
      const created = await app.request('register', {
        token: admin.token,
        body: { username, password, role, tenantId, ...(email ? { email } : {}) },
      });
      memberId ||= created.body.data.user.id;
    }
    const bob = await app.request('login', { body: { username: 'bob.kraus', password, tenantId } });
    await activateTotp(app, deps, bob.body.data.token);
    await app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId: memberId }, body: { shopId: 'berlin-1' } });
    for (const email of ['dana@acme-shops.example', 'emil@acme-shops.example'])
      await app.request('adminCreateInvitation', { token: admin.token, body: { email, role: 'ANALYST', shopId: 'berlin-1' } });
    await registerStaff(app, admin.token, { username: 'fatima.roth', password, role: 'MANAGER', tenantId });
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** Each page, reached by an ADMIN's browser. */
  const pages: Record<string, (page: Page) => Promise<void>> = {
    staff: (page) => page.goto(`${stack.issuer}/admin/console/staff`).then(() => undefined),
    'staff-member': (page) => page.goto(`${stack.issuer}/admin/console/staff?user=${memberId}`).then(() => undefined),
    'staff-delete': (page) => page.goto(`${stack.issuer}/admin/console/staff?user=${memberId}&confirm=delete`).then(() => undefined),
    invitations: (page) => page.goto(`${stack.issuer}/admin/console/invitations`).then(() => undefined),
    audit: (page) => page.goto(`${stack.issuer}/admin/console/audit`).then(() => undefined),
    settings: (page) => page.goto(`${stack.issuer}/admin/console/settings`).then(() => undefined),
  };

  for (const [name, reach] of Object.entries(pages)) {
    it(`takes the ${name} page`, async () => {
      for (const [width, viewport] of Object.entries(VIEWPORTS)) {
        const signedIn: { context: BrowserContext; page: Page } = await signedInBrowser(stack, 'admin', {
          tenantId,
          username: 'admin',
          password,
        });
        await signedIn.page.setViewportSize(viewport);
        await reach(signedIn.page);
        expect(await signedIn.page.locator('h1').count()).toBe(1);
        await signedIn.page.screenshot({ path: `${OUT}/admin-${name}-${width}.png` });
        await signedIn.context.close();
      }
    });
  }
});
