import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdmin } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { expectAccessible, signedInBrowser } from '../helpers/console';
import { uniqueTenant } from '../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { idpCertificate, idpMetadata } from '../helpers/federation-admin';

/**
 * The tenant console's shops, OAuth clients, connections and domains, and SCIM tokens in
 * chromium (docs/api.md 15.3.5-15.3.8): every action with JavaScript (in English) and
 * without (in German), and axe-core on every page each time.
 */
describe('tenant console: apps, connections, SCIM tokens (chromium)', () => {
  let stack: BrowserStack;
  let dns: TestDnsServer;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    dns = await startDnsServer();
    stack = await startBrowserStack({ env: () => ({ DNS_SERVERS: dns.address }) });
  });

  afterAll(async () => {
    await stack?.close();
    await dns?.close();
  });

  const form = (section: string, action: string) => `form[action="/admin/console/${section}/${action}"]`;
  async function submit(page: Page, section: string, action: string, fields: Record<string, string | boolean> = {}) {
    const selector = form(section, action);
    for (const [name, value] of Object.entries(fields)) {
      const field = page.locator(`${selector} [name="${name}"]`);
      if (typeof value === 'boolean') await field.setChecked(value);
      else if ((await field.evaluate((element) => element.tagName)) === 'SELECT') await field.selectOption(value);
      else await field.fill(value);
    }
    await Promise.all([page.waitForNavigation(), page.click(`${selector} button[type=submit]`)]);
  }
  const flash = (page: Page) => page.locator('.flash').textContent();
  const secret = async (page: Page) => (await page.locator('p.secret').textContent())?.trim() ?? '';
  const open = async (page: Page, path: string) => {
    const response = await page.goto(`${stack.issuer}${path}`);
    expect(response?.status()).toBe(200);
  };

  it.each([
    ['with JavaScript, in English', true, 'en'],
    ['without JavaScript, in German', false, 'de'],
  ] as const)(
    'runs every action %s, and every page passes axe',
    async (_, javaScript, language) => {
      // A tenant each: once it has connections, its sign-in asks for the username first (docs/api.md 14.3).
      const tenantId = uniqueTenant('capps-web');
      await registerAdmin(stack.app, tenantId, 'admin', password);
      const { context, page } = await signedInBrowser(stack, 'admin', { tenantId, username: 'admin', password }, { javaScript, language });
      const tag = javaScript ? 'js' : 'nojs';
      // axe-core runs as a script: without JavaScript, on the same markup in a page that runs scripts.
      const scratch = javaScript ? undefined : await (await stack.context({ locale: 'de-DE' })).newPage();
      const axe = async (label: string) => {
        if (scratch) await scratch.setContent(await page.content());
        await expectAccessible(scratch ?? page, `${label} (${language})`);
      };
      expect(await page.getAttribute('html', 'lang')).toBe(language);

      // Shops.
      await open(page, '/admin/console/shops');
      await axe('shops');
      await submit(page, 'shops', 'create', { shopId: `shop-${tag}`, name: `Shop ${tag}` });
      expect(await flash(page)).toContain(`shop-${tag}`);
      expect(await page.locator('td code', { hasText: `shop-${tag}` }).count()).toBe(1);

      // OAuth clients: register (the secret shown once), edit, rotate, delete.
      const clientId = `app-${tag}`;
      await open(page, '/admin/console/clients');
      await axe('clients');
      await submit(page, 'clients', 'create', {
        client_id: clientId,
        redirect_uri: 'https://shop.example/callback\nhttps://shop.example/other',
        'grant_types:client_credentials': true,
        scope: 'orders:read',
      });
      const first = await secret(page);
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await page.locator('button[data-copy]').isVisible()).toBe(javaScript);
      await axe('client secret');
      await Promise.all([page.waitForNavigation(), page.click(`a[href="/admin/console/clients?client=${clientId}"]`)]);
      await axe('client');
      expect(await page.content()).not.toContain(first);
      await submit(page, 'clients', 'update', { client_name: `Shop app ${tag}`, first_party: true });
      expect(await flash(page)).toContain(clientId);
      expect(await page.inputValue(`${form('clients', 'update')} [name=client_name]`)).toBe(`Shop app ${tag}`);
      await submit(page, 'clients', 'rotate', { previous_secret_expires_in: '0' });
      const second = await secret(page);
      expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(second).not.toBe(first);
      await open(page, `/admin/console/clients?delete=${clientId}`);
      await axe('client deletion');
      await submit(page, 'clients', 'delete');
      expect(await flash(page)).toContain(clientId);
      expect(
        (await stack.app.request('readOAuth2Client', { token: await adminToken(tenantId), pathParameters: { clientId } })).status,
      ).toBe(404);

      // Connections and domains.
      const domain = `${tag}.${tenantId}.example`;
      await open(page, '/admin/console/connections');
      await axe('connections');
      await submit(page, 'connections', 'add-domain', { domain });
      expect(await flash(page)).toContain(domain);
      const value = (await page.locator('code', { hasText: 'identity-verification=' }).last().textContent()) ?? '';
      dns.txt.set(`_identity-verification.${domain}`, [value]);
      await submit(page, 'connections', 'verify-domain');
      expect(await flash(page)).toContain(domain);
      await submit(page, 'connections', 'create-oidc', {
        name: `Okta ${tag}`,
        issuer: 'https://acme.okta.example',
        clientId: '0oa1web',
        clientSecret: 'okta-web-client-secret-Lm3',
        domains: domain,
        roleMapping: 'Store Admins = ADMIN',
        defaultRole: 'OPERATOR',
        jitProvisioning: true,
      });
      expect(await flash(page)).toContain(`Okta ${tag}`);
      const oidcId = new URL(page.url()).searchParams.get('connection');
      expect(await page.content()).not.toContain('okta-web-client-secret-Lm3');
      await axe('connection');
      await submit(page, 'connections', 'update', { ssoRequired: true, scopes: 'openid email groups' });
      expect(await page.isChecked(`${form('connections', 'update')} [name=ssoRequired]`)).toBe(true);
      await submit(page, 'connections', 'disable');
      expect(await page.locator(`${form('connections', 'enable')} button`).count()).toBe(1);
      await submit(page, 'connections', 'enable');
      expect(await page.locator(`${form('connections', 'disable')} button`).count()).toBe(1);
      await open(page, '/admin/console/connections');
      await submit(page, 'connections', 'create-saml', {
        name: `Entra ${tag}`,
        metadataXml: idpMetadata(await idpCertificate()),
        domains: domain,
        defaultRole: 'ANALYST',
      });
      expect(await page.locator('dd code', { hasText: '/acs' }).count()).toBe(1);
      await open(page, `/admin/console/connections?delete=${oidcId}`);
      await axe('connection deletion');
      await submit(page, 'connections', 'delete');
      expect(await flash(page)).toContain(`Okta ${tag}`);
      await open(page, `/admin/console/connections?deleteDomain=${domain}`);
      await axe('domain deletion');
      await submit(page, 'connections', 'delete-domain');
      expect(await flash(page)).toContain(domain);

      // SCIM tokens.
      await open(page, '/admin/console/scim-tokens');
      await axe('SCIM tokens');
      await submit(page, 'scim-tokens', 'create', { name: `Entra ${tag}` });
      const token = await secret(page);
      expect(token.split('.')).toHaveLength(3);
      await axe('SCIM token');
      await open(page, '/admin/console/scim-tokens');
      expect(await page.content()).not.toContain(token);
      await Promise.all([page.waitForNavigation(), page.click('td a')]);
      await axe('SCIM token deletion');
      await submit(page, 'scim-tokens', 'delete');
      expect(await flash(page)).toContain(`Entra ${tag}`);

      await context.close();
      await scratch?.context().close();
    },
    60_000,
  );

  /** A session token of the tenant's ADMIN, for the JSON twins' checks. */
  async function adminToken(tenantId: string): Promise<string> {
    const login = await stack.app.request('login', { body: { username: 'admin', password, tenantId } });
    return login.body.data.token;
  }
});
