import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SamlConnection } from '../../lib/federation/connection';
import { type App, registerAdmin } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { createClient, type TestClient } from '../helpers/oauth';
import { makeSamlIdp, type SamlIdp, type SamlIdpServer, startSamlIdpServer } from '../helpers/saml-idp';
import { samlConnectionOf } from '../helpers/saml-sign-in';

/**
 * SAML sign-in in a real browser (docs/api.md 14.5): chromium on the hosted sign-in types
 * an address of the tenant's verified domain, is sent to the test IdP's HTTP-Redirect
 * endpoint (a loopback server on another site), whose page posts the signed response back
 * to the ACS, and arrives at the client with a code: a user provisioned just in time, with
 * the role the IdP's group maps to. A forged response ends on the error page.
 */
describe('SAML sign-in (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let issuer: string;
  let tenantId: string;
  let domain: string;
  let client: TestClient;
  let idp: SamlIdp;
  let idpServer: SamlIdpServer;
  let saml: SamlConnection;

  beforeAll(async () => {
    stack = await startBrowserStack();
    ({ issuer, deps, app } = stack);
    tenantId = uniqueTenant('saml-web');
    domain = `${tenantId}.example`;
    const adminToken = (await registerAdmin(app, tenantId, 'admin', 'a long unusual passphrase')).token;
    client = await createClient(app, adminToken, tenantId, { redirectUri: `${stack.appsBase}/shop/callback` });
    const marked = await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: client.clientId },
      body: { first_party: true },
    });
    expect(marked.status).toBe(200);
    idp = await makeSamlIdp();
    idpServer = await startSamlIdpServer(idp, { nameId: 'nobody' });
    saml = await samlConnectionOf(deps, tenantId, domain, {
      idpEntityId: idp.entityId,
      ssoUrl: idpServer.ssoUrl,
      signingCertificates: [idp.cert],
      roleAttribute: 'groups',
      roleMapping: { 'shop-finance': 'FINANCE' },
    });
  });

  afterAll(async () => {
    await idpServer?.close();
    await stack?.close();
  });

  it('asks for the address, goes to the IdP and back through the ACS, and arrives with a code of a provisioned user', async () => {
    const email = `maria@${domain}`;
    idpServer.user = { nameId: 'okta-00u1maria', attributes: { email: [email], groups: ['shop-finance', 'everyone'] } };
    const context = await stack.context();
    const page = await context.newPage();
    const { url, verifier, state } = stack.authorizeUrl(client);
    const shown = await page.goto(url);
    // The form's answer is a page that goes on to the IdP (docs/api.md 14.3), so the sign-in
    // page needs no IdP among its form targets.
    expect(shown?.headers()['content-security-policy']).not.toContain(new URL(idpServer.ssoUrl).origin);
    expect(await page.locator('label[for=username]').textContent()).toBe('Username or email');
    await page.fill('input[name=username]', email);
    await page.click('button[type=submit]');
    await stack.arrived(page, client, state, verifier);
    expect(idpServer.requests.at(-1)).toMatchObject({ acsUrl: `${issuer}/sso/saml/${saml.id}/acs` });
    const [user] = await deps.store.users.findByEmail(tenantId, email);
    expect(user).toMatchObject({ role: 'FINANCE', emailVerified: true });
    expect((await context.cookies(issuer)).map((cookie) => cookie.name)).toContain('__Host-session');
    await context.close();
  });

  it('ends a response signed by another key on the error page, with no session', async () => {
    const email = `forged@${domain}`;
    const forger = await makeSamlIdp(idp.entityId);
    idpServer.user = {
      nameId: 'okta-00u1forged',
      attributes: { email: [email] },
      tamper: (options) => ({ ...options, key: forger.key }),
    };
    const context = await stack.context();
    const page = await context.newPage();
    await page.goto(stack.authorizeUrl(client).url);
    await page.fill('input[name=username]', email);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith(`/sso/saml/${saml.id}/acs`)),
      page.click('button[type=submit]'),
    ]);
    expect(answer.status()).toBe(400);
    expect(await page.locator('[role=alert]').textContent()).toContain('Sign-in failed');
    expect((await context.cookies(issuer)).map((cookie) => cookie.name)).not.toContain('__Host-session');
    expect(await deps.store.users.findByEmail(tenantId, email)).toEqual([]);
    await context.close();
  });
});
