import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OidcConnection } from '../../lib/federation/connection';
import { registerAdmin } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { uniqueTenant } from '../helpers/deps';
import { verifiedDomain } from '../helpers/federation';
import { createClient } from '../helpers/oauth';
import { startOidcIdp, storedOidcConnection, type TestIdp } from '../helpers/oidc-idp';

/**
 * Enterprise sign-in over OpenID Connect in a real browser (docs/api.md 14.3, 14.4):
 * Debian's chromium driven by playwright-core (test/helpers/browser.ts). A partner app
 * (openid-client as its relying party, unchanged, as in test/e2e/oidc-relying-parties.test.ts)
 * sends the browser to the hosted sign-in; the email typed there belongs to a verified
 * domain of the tenant's connection, so the browser goes on to the merchant's IdP
 * (oidc-provider on loopback), signs in there, and comes back through
 * GET /sso/oidc/callback to the app with a code.
 */
describe('enterprise sign-in through an OpenID Connect IdP (chromium)', () => {
  let stack: BrowserStack;
  let idp: TestIdp;
  let tenantId: string;
  let domain: string;
  let connection: OidcConnection;
  let rp: client.Configuration;
  let appCallback: string;

  beforeAll(async () => {
    stack = await startBrowserStack();
    const { app, deps, issuer, appsBase } = stack;
    tenantId = uniqueTenant('fed-browser');
    domain = `${tenantId}.example`;
    const admin = await registerAdmin(app, tenantId);
    appCallback = `${appsBase}/shop/callback`;
    const registered = await createClient(app, admin.token, tenantId, { redirectUri: appCallback, scope: 'openid email orders:read' });
    const firstParty = await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters: { clientId: registered.clientId },
      body: { first_party: true },
    });
    expect(firstParty.status).toBe(200);
    rp = await client.discovery(new URL(issuer), registered.clientId, undefined, client.ClientSecretBasic(registered.clientSecret), {
      execute: [client.allowInsecureRequests],
    });

    await verifiedDomain(deps, tenantId, domain);
    idp = await startOidcIdp({ redirectUri: `${issuer}/sso/oidc/callback` });
    connection = await storedOidcConnection(deps, tenantId, idp, { roleMapping: { 'shop-admins': 'ADMIN', staff: 'ANALYST' } });
  });

  afterAll(async () => {
    await stack?.close();
    await idp?.close();
  });

  /** The partner app's authorization request, built by openid-client: PKCE, state, nonce. */
  async function appAuthorization() {
    const checks = {
      pkceCodeVerifier: client.randomPKCECodeVerifier(),
      expectedState: client.randomState(),
      expectedNonce: client.randomNonce(),
    };
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: appCallback,
      scope: 'openid email orders:read',
      state: checks.expectedState,
      nonce: checks.expectedNonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.pkceCodeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, checks };
  }

  /** The person at the hosted sign-in: the email first, then the IdP's own sign-in form as `login`. */
  async function signInThroughIdp(page: Page, typed: string, login: string) {
    await page.fill('input[name=username]', typed);
    await page.click('button:has-text("Continue")');
    await page.waitForURL(`${idp.issuer}/interaction/**`);
    await page.fill('input[name=login]', login);
    await page.click('button:has-text("Sign in at the IdP")');
  }

  it('signs a federated user into a partner app: provisioned, with amr fed and idp in the tokens', async () => {
    idp.accounts.set('olga', { email: `olga@${domain}`, email_verified: true, groups: ['staff'], amr: ['pwd'] });
    const context = await stack.context();
    const page = await context.newPage();
    const { url, checks } = await appAuthorization();
    await page.goto(url.href);
    await signInThroughIdp(page, `olga@${domain}`, 'olga');
    await page.waitForURL(`${appCallback}?**`);
    const tokens = await client.authorizationCodeGrant(rp, new URL(page.url()), checks);
    const idToken = tokens.claims();
    expect(idToken).toMatchObject({ amr: ['fed'], idp: connection.id, email: `olga@${domain}`, email_verified: true });
    const [user] = await stack.deps.store.users.findByEmail(tenantId, `olga@${domain}`);
    expect(idToken?.sub).toBe(user?.id);
    expect(user?.role).toBe('ANALYST');
    expect((await context.cookies(stack.issuer)).map((cookie) => cookie.name)).toContain('__Host-session');
    await context.close();
  });

  it('ends on the error page for an identity the IdP vouches for outside the tenant’s domains, with no session', async () => {
    idp.accounts.set('pete', { email: 'pete@elsewhere.example', email_verified: true });
    const context = await stack.context();
    const page = await context.newPage();
    const { url } = await appAuthorization();
    await page.goto(url.href);
    const answered = page.waitForResponse((response) => response.url().startsWith(`${stack.issuer}/sso/oidc/callback`));
    await signInThroughIdp(page, `pete@${domain}`, 'pete');
    expect((await answered).status()).toBe(403);
    expect(await page.textContent('p.error')).toBe('This account is not allowed for this organization');
    expect((await context.cookies(stack.issuer)).map((cookie) => cookie.name)).not.toContain('__Host-session');
    expect(await stack.deps.store.users.findByEmail(tenantId, 'pete@elsewhere.example')).toEqual([]);
    await context.close();
  });
});
