import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { activateTotp } from '../helpers/mfa';
import { createClient, type TestClient } from '../helpers/oauth';

/**
 * The hosted sign-in in a real browser (docs/api.md 11.5-11.10): Debian's chromium
 * driven by playwright-core against the service's functions served over HTTP, one browser
 * for the file, a fresh context (cookie jar) per user journey (test/helpers/browser.ts).
 * The partner apps' callbacks are on another site (localhost) than the service (127.0.0.1).
 */
describe('browser sign-in (chromium)', () => {
  let stack: BrowserStack;
  let deps: TestDeps;
  let app: App;
  let issuer: string;
  let tenantId: string;
  let adminToken: string;
  let thirdParty: TestClient;
  let firstParty: TestClient;
  let secondFirstParty: TestClient;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    stack = await startBrowserStack();
    ({ issuer, deps, app } = stack);
    const { appsBase } = stack;
    tenantId = uniqueTenant('hosted');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    thirdParty = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/partner/callback` });
    firstParty = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/shop/callback` });
    secondFirstParty = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/back-office/callback` });
    for (const client of [firstParty, secondFirstParty]) {
      const marked = await app.request('updateOAuth2Client', {
        token: adminToken,
        pathParameters: { clientId: client.clientId },
        body: { first_party: true },
      });
      expect(marked.status).toBe(200);
    }
    await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: thirdParty.clientId },
      body: { client_name: 'Partner <Analytics>' },
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** A new user of the tenant (by the ADMIN) and a JSON-login session token of theirs. */
  async function newUser(username = `user-${Math.random().toString(36).slice(2, 8)}`) {
    const staff = await registerStaff(app, adminToken, { username, password, role: 'OPERATOR', tenantId });
    return { username, token: staff.token, id: staff.user.id };
  }

  async function signIn(page: Page, username: string) {
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
  }

  const sessionIdOf = async (context: BrowserContext) =>
    (await context.cookies(issuer)).find((cookie) => cookie.name === '__Host-session')?.value.split('.')[1];

  it('signs a user in to a third-party client with consent, in a __Host- cookie session listed by GET /auth/sessions', async () => {
    const user = await newUser();
    const context = await stack.context();
    const page = await context.newPage();
    const { url, verifier, state } = stack.authorizeUrl(thirdParty);
    const shown = await page.goto(url);
    expect(shown?.status()).toBe(200);
    const headers = shown?.headers() ?? {};
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['content-security-policy']).toMatch(
      /default-src 'none'; style-src 'sha256-[^']+'; form-action 'self' http:\/\/localhost:\d+; frame-ancestors 'none'/,
    );
    expect(await page.locator('header').textContent()).toBe(tenantId);
    expect(await page.getAttribute('input[name=username]', 'autocomplete')).toBe('username webauthn');
    expect(await page.getAttribute('input[name=password]', 'autocomplete')).toBe('current-password');
    expect(await page.locator('label[for=username]').textContent()).toBe('Username');

    await signIn(page, user.username);
    await page.waitForSelector('button[name=decision][value=allow]');
    expect(await page.locator('h1').textContent()).toBe('Allow Partner <Analytics>?');
    expect(await page.locator('li').allTextContents()).toEqual(['orders:read']);
    await page.click('button[name=decision][value=allow]');
    const tokens = await stack.arrived(page, thirdParty, state, verifier);
    expect(tokens).toMatchObject({ scope: 'orders:read' });

    const cookie = (await context.cookies(issuer)).find((candidate) => candidate.name === '__Host-session');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    const listed = await app.request('listSessions', { token: user.token });
    expect(listed.body.data.sessions.map((session: { id: string }) => session.id)).toContain(await sessionIdOf(context));

    // The consent is remembered as the grant: the next authorization goes straight back.
    const again = stack.authorizeUrl(thirdParty);
    await page.goto(again.url);
    await stack.arrived(page, thirdParty, again.state, again.verifier);
    await context.close();
  });

  it('asks a user with TOTP for the code on the second-factor page', async () => {
    const user = await newUser();
    const { code } = await activateTotp(app, deps, user.token);
    const context = await stack.context();
    const page = await context.newPage();
    const { url, verifier, state } = stack.authorizeUrl(thirdParty);
    await page.goto(url);
    await signIn(page, user.username);
    await page.waitForSelector('input[name=code]');
    expect(await page.getAttribute('input[name=code]', 'autocomplete')).toBe('one-time-code');
    expect(
      await page.locator('select[name=method] option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
    ).toEqual(['TOTP']);
    await page.fill('input[name=code]', '000000');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    expect(await page.locator('[role=alert]').textContent()).toBe('Invalid MFA code');
    await page.fill('input[name=code]', code());
    await page.click('button[type=submit]');
    await page.click('button[name=decision][value=allow]');
    await stack.arrived(page, thirdParty, state, verifier);
    await context.close();
  });

  it('skips consent for a first-party client, then signs in to a second client by SSO; prompt=login asks again', async () => {
    const user = await newUser();
    const context = await stack.context();
    const page = await context.newPage();
    const first = stack.authorizeUrl(firstParty);
    await page.goto(first.url);
    await signIn(page, user.username);
    await stack.arrived(page, firstParty, first.state, first.verifier);

    const second = stack.authorizeUrl(secondFirstParty);
    await page.goto(second.url);
    await stack.arrived(page, secondFirstParty, second.state, second.verifier);

    const forced = stack.authorizeUrl(secondFirstParty, { prompt: 'login' });
    await page.goto(forced.url);
    await page.waitForSelector('input[name=password]');
    const before = await sessionIdOf(context);
    await signIn(page, user.username);
    await stack.arrived(page, secondFirstParty, forced.state, forced.verifier);
    expect(await sessionIdOf(context)).not.toBe(before);
    await context.close();
  });

  it('answers prompt=none with a code in a live session, and with error=login_required without one', async () => {
    const user = await newUser();
    const context = await stack.context();
    const page = await context.newPage();
    const without = stack.authorizeUrl(firstParty, { prompt: 'none' });
    await page.goto(without.url);
    await page.waitForURL(`${firstParty.redirectUri}?**`);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ error: 'login_required', state: without.state, iss: issuer });

    const signed = stack.authorizeUrl(firstParty);
    await page.goto(signed.url);
    await signIn(page, user.username);
    await stack.arrived(page, firstParty, signed.state, signed.verifier);
    const silent = stack.authorizeUrl(firstParty, { prompt: 'none' });
    await page.goto(silent.url);
    await stack.arrived(page, firstParty, silent.state, silent.verifier);
    await context.close();
  });

  it('sends error=access_denied with state and iss when the user denies', async () => {
    const user = await newUser();
    const context = await stack.context();
    const page = await context.newPage();
    const { url, state } = stack.authorizeUrl(thirdParty);
    await page.goto(url);
    await signIn(page, user.username);
    await page.click('button[name=decision][value=deny]');
    await page.waitForURL(`${thirdParty.redirectUri}?**`);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ error: 'access_denied', state, iss: issuer });
    await context.close();
  });

  it('ends the browser session when it is revoked through DELETE /auth/sessions/{id}', async () => {
    const user = await newUser();
    const context = await stack.context();
    const page = await context.newPage();
    const first = stack.authorizeUrl(firstParty);
    await page.goto(first.url);
    await signIn(page, user.username);
    await stack.arrived(page, firstParty, first.state, first.verifier);
    const revoked = await app.request('revokeSession', {
      token: user.token,
      pathParameters: { sessionId: (await sessionIdOf(context)) ?? '' },
    });
    expect(revoked.status).toBe(200);
    const next = stack.authorizeUrl(firstParty);
    await page.goto(next.url);
    expect(await page.locator('input[name=password]').count()).toBe(1);
    await context.close();
  });

  it('refuses a cross-site POST to a hosted form', async () => {
    const user = await newUser();
    const context = await stack.context();
    const page = await context.newPage();
    const { url } = stack.authorizeUrl(thirdParty);
    await page.goto(url);
    await signIn(page, user.username);
    await page.waitForSelector('button[name=decision][value=allow]');
    const csrf = await page.getAttribute('input[name=csrf]', 'value');
    // Another site posts the consent form, with the right token even.
    await context.route('https://attacker.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<form method="post" action="${issuer}/oauth2/hosted/consent"><input name="csrf" value="${csrf}"><button name="decision" value="allow">go</button></form>`,
      }),
    );
    const attacker = await context.newPage();
    await attacker.goto('https://attacker.example/');
    const [answer] = await Promise.all([attacker.waitForResponse(`${issuer}/oauth2/hosted/consent`), attacker.click('button')]);
    expect(answer.status()).toBe(403);
    expect(await attacker.locator('[role=alert]').textContent()).toBe('Cross-site request refused');
    await context.close();
  });

  it('never renders a hostile state, client name or username as markup', async () => {
    const hostile = '"><img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>';
    const user = await newUser(`<b>${Math.random().toString(36).slice(2, 6)}</b>`);
    await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: thirdParty.clientId },
      body: { client_name: hostile },
    });
    const context = await stack.context();
    const page = await context.newPage();
    const { url } = stack.authorizeUrl(thirdParty, { state: hostile, prompt: 'consent' });
    await page.goto(url);
    await signIn(page, user.username);
    await page.waitForSelector('button[name=decision][value=allow]');
    expect(await page.locator('img, script, b').count()).toBe(0);
    expect(await page.title()).toBe(`Allow ${hostile}?`);
    expect(await page.locator('strong').textContent()).toBe(user.username);
    await context.close();
  });
});
