import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { uniqueTenant } from '../helpers/deps';
import { createClient, type TestClient } from '../helpers/oauth';

/**
 * RP-initiated logout in a real browser (docs/api.md 11.12): Debian's chromium driven by
 * playwright-core (test/helpers/browser.ts), as in test/e2e/hosted-browser.test.ts. The
 * partner app signs the user in through the hosted pages, then sends the browser to the
 * logout URL with the ID token it got; its post-logout page is answered on another site.
 */
describe('RP-initiated logout (chromium)', () => {
  let stack: BrowserStack;
  let appsBase: string;
  let app: App;
  let issuer: string;
  let tenantId: string;
  let adminToken: string;
  let client: TestClient;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    stack = await startBrowserStack();
    ({ issuer, appsBase, app } = stack);
    tenantId = uniqueTenant('logout');
    adminToken = (await registerAdmin(app, tenantId, 'admin', password)).token;
    client = await createClient(app, adminToken, tenantId, { redirectUri: `${appsBase}/shop/callback`, scope: 'openid orders:read' });
    const marked = await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: client.clientId },
      body: { first_party: true, post_logout_redirect_uris: `${appsBase}/shop/signed-out` },
    });
    expect(marked.status).toBe(200);
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** A new user signed in through the hosted pages in a fresh browser: the context, the page, the app's ID token, a JSON session token. */
  async function signedIn() {
    const username = `user-${Math.random().toString(36).slice(2, 8)}`;
    const staff = await registerStaff(app, adminToken, { username, password, role: 'OPERATOR', tenantId });
    const context = await stack.context();
    const page = await context.newPage();
    const { url, verifier, state } = stack.authorizeUrl(client, { scope: 'openid' });
    await page.goto(url);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    const tokens = await stack.arrived(page, client, state, verifier);
    const sessionId = (await context.cookies(issuer)).find((cookie) => cookie.name === '__Host-session')?.value.split('.')[1];
    expect(sessionId).toBeDefined();
    return { context, page, idToken: String(tokens.id_token), token: String(staff.token), sessionId };
  }

  const listedSessions = async (token: string) =>
    ((await app.request('listSessions', { token })).body.data.sessions as Array<{ id: string }>).map((session) => session.id);

  const logoutUrl = (parameters: Record<string, string>) => {
    const url = new URL('/oauth2/logout', issuer);
    url.search = new URLSearchParams(parameters).toString();
    return url.href;
  };

  it('logs out through the app’s logout URL: back at the registered URI with state, the session gone, prompt=none needs a sign-in', async () => {
    const user = await signedIn();
    expect(await listedSessions(user.token)).toContain(user.sessionId);
    const signedOut = `${appsBase}/shop/signed-out`;
    await user.page.goto(logoutUrl({ id_token_hint: user.idToken, post_logout_redirect_uri: signedOut, state: 'bye-1' }));
    await user.page.waitForURL(`${signedOut}?**`);
    expect(new URL(user.page.url()).searchParams.get('state')).toBe('bye-1');
    expect((await user.context.cookies(issuer)).map((cookie) => cookie.name)).not.toContain('__Host-session');
    expect(await listedSessions(user.token)).not.toContain(user.sessionId);
    await user.page.goto(stack.authorizeUrl(client, { scope: 'openid', prompt: 'none' }).url);
    await user.page.waitForURL(`${client.redirectUri}?**`);
    expect(new URL(user.page.url()).searchParams.get('error')).toBe('login_required');
    await user.context.close();
  });

  it('shows the error page for an unregistered post-logout URI, never redirects, and the session lives on', async () => {
    const user = await signedIn();
    const answer = await user.page.goto(
      logoutUrl({ id_token_hint: user.idToken, post_logout_redirect_uri: `${appsBase}/elsewhere`, state: 's' }),
    );
    expect(answer?.status()).toBe(400);
    expect(new URL(user.page.url()).origin).toBe(new URL(issuer).origin);
    expect(await user.page.textContent('p.error')).toBe('Invalid post_logout_redirect_uri');
    expect(await listedSessions(user.token)).toContain(user.sessionId);
    await user.context.close();
  });

  it('asks before ending a session the request does not prove, and signs out once the user confirms', async () => {
    const user = await signedIn();
    await user.page.goto(logoutUrl({ client_id: client.clientId }));
    expect(await user.page.textContent('h1')).toBe('Sign out?');
    expect(await listedSessions(user.token)).toContain(user.sessionId);
    await user.page.click('button[type=submit]');
    await user.page.waitForSelector('text=You are signed out');
    expect(await user.page.textContent('h1')).toBe('Signed out');
    expect(await listedSessions(user.token)).not.toContain(user.sessionId);
    await user.context.close();
  });
});
