import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, PASSKEY_STACK, startBrowserStack } from '../helpers/browser';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { activateTotp } from '../helpers/mfa';
import { createClient, type TestClient } from '../helpers/oauth';

/**
 * Passkeys on the hosted pages in a real browser (docs/api.md 11.11): Debian's chromium
 * with its virtual authenticator (CDP WebAuthn domain), against the service's functions
 * served over HTTP on `localhost` (an RP ID must be a domain, never an IP address). The
 * virtual authenticator answers a conditional request at once, as a user picking the
 * passkey from the username field's autofill would; the button's tests switch
 * conditional mediation off so that only the button asks.
 */
describe('passkeys on the hosted pages (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let issuer: string;
  let tenantId: string;
  let adminToken: string;
  let client: TestClient;
  let otherClient: TestClient;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    stack = await startBrowserStack(PASSKEY_STACK);
    ({ issuer, deps, app } = stack);
    const { appsBase } = stack;
    tenantId = uniqueTenant('passkeyweb');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    client = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/shop/callback`, scope: 'openid orders:read' });
    await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: client.clientId },
      body: { first_party: true },
    });
    const otherTenant = uniqueTenant('passkeyweb-other');
    const otherAdmin = (await registerAdmin(app, otherTenant, 'admin', password)).token;
    otherClient = await createClient(app, otherAdmin, otherTenant, { redirectUri: `${appsBase}/other/callback` });
    await app.request('updateOAuth2Client', {
      token: otherAdmin,
      pathParameters: { clientId: otherClient.clientId },
      body: { first_party: true },
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  async function newUser() {
    const username = `user-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, adminToken, { username, password, role: 'OPERATOR', tenantId });
    return { username, token: staff.token, id: staff.user.id };
  }

  const authorizeUrl = (to: TestClient = client, extra: Record<string, string> = {}) =>
    stack.authorizeUrl(to, { scope: to === client ? 'openid orders:read' : 'orders:read', nonce: 'n-1', ...extra });

  async function passwordSignIn(page: Page, username: string) {
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('form[action="/oauth2/hosted/sign-in"] button[type=submit]');
  }

  const claimsOf = (idToken = '') => JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8'));

  /** Signs in with the password (and a TOTP code when given), then adds a passkey on the passkeys page. */
  async function registerInBrowser(page: Page, username: string, totp?: () => string) {
    const { url, verifier, state } = authorizeUrl();
    await page.goto(url);
    await passwordSignIn(page, username);
    if (totp) {
      await page.fill('input[name=code]', totp());
      await page.click('button[type=submit]');
    }
    await stack.arrived(page, client, state, verifier);
    const shown = await page.goto(`${issuer}/oauth2/hosted/passkeys`);
    expect(shown?.status()).toBe(200);
    expect(shown?.headers()['content-security-policy']).toMatch(/default-src 'none';.*; script-src 'sha256-[^']+'$/);
    expect(await page.locator('li').count()).toBe(0);
    await page.fill('input[name=name]', 'My laptop');
    await page.click('button:has-text("Add a passkey")');
    await page.waitForSelector('li');
    expect(await page.locator('li').allTextContents()).toEqual([expect.stringMatching(/^My laptop \(added \d{4}-\d{2}-\d{2}\)$/)]);
  }

  it('adds a passkey on the passkeys page, then signs in with the button: no password, amr hwk user mfa', async () => {
    const user = await newUser();
    const { context, page, cdp, authenticatorId } = await stack.withAuthenticator({ conditional: false });
    await registerInBrowser(page, user.username);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

    await context.clearCookies();
    const { url, verifier, state } = authorizeUrl();
    await page.goto(url);
    expect(await page.getAttribute('input[name=username]', 'autocomplete')).toBe('username webauthn');
    await page.click('button:has-text("Sign in with a passkey")');
    const tokens = await stack.arrived(page, client, state, verifier);
    // The virtual authenticator is not backup eligible: a device-bound key (RFC 8176 `hwk`).
    expect(claimsOf(tokens.id_token).amr).toEqual(['hwk', 'user', 'mfa']);
    await context.close();
  });

  it('signs in by conditional mediation (the username field’s autofill) as soon as the page loads', async () => {
    const user = await newUser();
    const { context, page } = await stack.withAuthenticator();
    // Registration first: the sign-in page of that journey has no passkey yet to offer.
    await registerInBrowser(page, user.username);
    await context.clearCookies();
    const { url, verifier, state } = authorizeUrl();
    await page.goto(url);
    await stack.arrived(page, client, state, verifier);
    await context.close();
  });

  it('lets a user with TOTP sign in with the passkey alone: no second-factor page', async () => {
    const user = await newUser();
    const { code } = await activateTotp(app, deps, user.token);
    const { context, page } = await stack.withAuthenticator({ conditional: false });
    await registerInBrowser(page, user.username, code);
    await context.clearCookies();
    const { url, verifier, state } = authorizeUrl();
    await page.goto(url);
    const seen: string[] = [];
    page.on('framenavigated', (frame) => seen.push(frame.url()));
    await page.click('button:has-text("Sign in with a passkey")');
    const tokens = await stack.arrived(page, client, state, verifier);
    expect(seen.some((address) => address.includes('second-factor'))).toBe(false);
    expect(claimsOf(tokens.id_token).amr).toContain('user');
    await context.close();
  });

  it('refuses a cloned authenticator (its counter went back) with Invalid passkey', async () => {
    const user = await newUser();
    const original = await stack.withAuthenticator({ conditional: false });
    await registerInBrowser(original.page, user.username);
    const [credential] = (await original.cdp.send('WebAuthn.getCredentials', { authenticatorId: original.authenticatorId })).credentials;
    // One sign-in with the original moves the stored counter on.
    await original.context.clearCookies();
    const first = authorizeUrl();
    await original.page.goto(first.url);
    await original.page.click('button:has-text("Sign in with a passkey")');
    await stack.arrived(original.page, client, first.state, first.verifier);
    await original.context.close();

    const clone = await stack.withAuthenticator({ conditional: false });
    await clone.cdp.send('WebAuthn.addCredential', {
      authenticatorId: clone.authenticatorId,
      credential: { ...credential, signCount: 0 },
    } as never);
    await clone.page.goto(authorizeUrl().url);
    await clone.page.click('button:has-text("Sign in with a passkey")');
    await clone.page.waitForSelector('[role=alert]');
    expect(await clone.page.locator('[role=alert]').textContent()).toBe('Invalid passkey');
    expect(await clone.page.locator('input[name=password]').count()).toBe(1);
    await clone.context.close();
  });

  it('refuses a passkey of another tenant, and a replayed assertion', async () => {
    const user = await newUser();
    const { context, page } = await stack.withAuthenticator({ conditional: false });
    await registerInBrowser(page, user.username);
    await context.clearCookies();

    await page.goto(authorizeUrl(otherClient).url);
    await page.click('button:has-text("Sign in with a passkey")');
    await page.waitForSelector('[role=alert]');
    expect(await page.locator('[role=alert]').textContent()).toBe('Invalid passkey');

    // The same form posted again after it signed the user in: the interaction is used.
    const { url, verifier, state } = authorizeUrl();
    await page.goto(url);
    let posted = '';
    await page.route(`${issuer}/oauth2/hosted/passkey`, async (route) => {
      posted = route.request().postData() ?? '';
      await route.continue();
    });
    await page.click('button:has-text("Sign in with a passkey")');
    await stack.arrived(page, client, state, verifier);
    const replayed = await context.request.post(`${issuer}/oauth2/hosted/passkey`, {
      headers: { origin: issuer, 'content-type': 'application/x-www-form-urlencoded' },
      data: posted,
    });
    expect(replayed.status()).toBe(400);
    expect(await replayed.text()).toContain('Sign-in expired');

    // The same assertion in a new interaction: its challenge was spent.
    await page.unrouteAll();
    await page.goto(authorizeUrl(client, { prompt: 'login' }).url);
    const csrf = (await page.getAttribute('form[action="/oauth2/hosted/passkey"] input[name=csrf]', 'value')) ?? '';
    const fields = new URLSearchParams(posted);
    fields.set('csrf', csrf);
    const again = await context.request.post(`${issuer}/oauth2/hosted/passkey`, {
      headers: { origin: issuer, 'content-type': 'application/x-www-form-urlencoded' },
      data: fields.toString(),
    });
    expect(again.status()).toBe(401);
    expect(await again.text()).toContain('<p class="error" role="alert">Invalid passkey</p>');
    await context.close();
  });

  it('refuses an assertion made on another origin', async () => {
    const user = await newUser();
    const { context, page } = await stack.withAuthenticator({ conditional: false });
    await registerInBrowser(page, user.username);
    await context.clearCookies();
    await page.goto(authorizeUrl().url);
    const csrf = (await page.getAttribute('form[action="/oauth2/hosted/passkey"] input[name=csrf]', 'value')) ?? '';
    const options = (await page.getAttribute('form[data-passkey]', 'data-options')) ?? '';
    // A look-alike page on another origin of the same RP ID (another port) runs the ceremony with the real challenge.
    const evil = 'http://localhost:1/';
    await context.route(`${evil}**`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>evil</title>' }));
    await page.goto(evil);
    const credential = await page.evaluate(async (json) => {
      const parsed = JSON.parse(json);
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(parsed);
      const made = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential;
      return JSON.stringify(made.toJSON());
    }, options);
    const answer = await context.request.post(`${issuer}/oauth2/hosted/passkey`, {
      headers: { origin: issuer, 'content-type': 'application/x-www-form-urlencoded' },
      data: new URLSearchParams({ csrf, credential }).toString(),
    });
    expect(answer.status()).toBe(401);
    expect(await answer.text()).toContain('<p class="error" role="alert">Invalid passkey</p>');
    await context.close();
  });

  it('keeps the passkeys page to a live, recent browser session of its own origin and CSRF token', async () => {
    const user = await newUser();
    const { context, page } = await stack.withAuthenticator({ conditional: false });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const none = await context.request.get(`${issuer}/oauth2/hosted/passkeys`);
    expect(none.status()).toBe(401);
    expect(await none.text()).toContain('<p class="error" role="alert">Unauthorized</p>');

    const { url, verifier, state } = authorizeUrl();
    await page.goto(url);
    await passwordSignIn(page, user.username);
    await stack.arrived(page, client, state, verifier);
    await page.goto(`${issuer}/oauth2/hosted/passkeys`);
    const csrf = (await page.getAttribute('form[data-passkey] input[name=csrf]', 'value')) ?? '';
    const crossSite = await context.request.post(`${issuer}/oauth2/hosted/passkeys`, {
      headers: { ...form, origin: 'http://127.0.0.1:1' },
      data: new URLSearchParams({ csrf, credential: '{}' }).toString(),
    });
    expect(crossSite.status()).toBe(403);
    expect(await crossSite.text()).toContain('Cross-site request refused');
    const wrongToken = await context.request.post(`${issuer}/oauth2/hosted/passkeys`, {
      headers: { ...form, origin: issuer },
      data: new URLSearchParams({ csrf: `${csrf}x`, credential: '{}' }).toString(),
    });
    expect(wrongToken.status()).toBe(403);
    expect(await wrongToken.text()).toContain('Cross-site request refused');
    const refused = await context.request.post(`${issuer}/oauth2/hosted/passkeys`, {
      headers: { ...form, origin: issuer },
      data: new URLSearchParams({ csrf, credential: '{}' }).toString(),
    });
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain('<p class="error" role="alert">Invalid passkey registration</p>');

    // Eleven minutes later (REAUTH_MAX_AGE_SECONDS is 600) the session lives on, but adding needs a new sign-in.
    const now = Date.now();
    deps.clock.set(now + 11 * 60 * 1000);
    try {
      const stale = await page.goto(`${issuer}/oauth2/hosted/passkeys`);
      expect(stale?.status()).toBe(200);
      expect(stale?.headers()['content-security-policy']).not.toContain('script-src');
      expect(await page.locator('form[data-passkey]').count()).toBe(0);
      expect(await page.locator('main').textContent()).toContain('To add a passkey, sign in again');
      const late = await context.request.post(`${issuer}/oauth2/hosted/passkeys`, {
        headers: { ...form, origin: issuer },
        data: new URLSearchParams({ csrf, credential: '{}' }).toString(),
      });
      expect(late.status()).toBe(403);
      expect(await late.text()).toContain('<p class="error" role="alert">Recent authentication required</p>');
    } finally {
      deps.clock.set(now);
    }
    await context.close();
  });
});
