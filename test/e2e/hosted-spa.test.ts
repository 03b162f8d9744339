import { build } from 'esbuild';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff } from '../helpers/app';
import { type BrowserStack, startBrowserStack } from '../helpers/browser';
import { uniqueTenant } from '../helpers/deps';

/** oidc-client-ts as published, bundled for the page: `window.oidc` is the package's exports. */
async function oidcClientBundle(): Promise<string> {
  const bundled = await build({
    stdin: { contents: "export * from 'oidc-client-ts';", resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    globalName: 'oidc',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]?.text ?? '';
}

/** A page of the app: the bundle, nothing else; the test drives oidc-client-ts in it. */
const PAGE = { contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>SPA</title><script src="/oidc.js"></script>' };

/**
 * A single-page app on another origin than the service signs in with oidc-client-ts
 * 3.5.0, unmodified, in Debian's chromium (docs/api.md 16.1, 16.2, docs/guides/single-page-apps.md):
 * code flow with PKCE as a public client, the token endpoint and userinfo called from the
 * app's origin through CORS, a refresh with its refresh token, and RP-initiated logout.
 */
describe('a single-page app with oidc-client-ts (chromium)', () => {
  let stack: BrowserStack;
  let app: App;
  let issuer: string;
  let appsBase: string;
  let tenantId: string;
  let clientId: string;
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    const bundle = await oidcClientBundle();
    stack = await startBrowserStack({
      appFiles: {
        '/oidc.js': { contentType: 'text/javascript', body: bundle },
        '/spa': PAGE,
        '/callback': PAGE,
        '/signed-out': PAGE,
      },
    });
    ({ issuer, appsBase, app } = stack);
    tenantId = uniqueTenant('spa');
    const admin = await registerAdmin(app, tenantId, 'admin', password);
    clientId = `spa-${tenantId}`;
    const registered = await app.request('createOAuth2Client', {
      token: admin.token,
      body: {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        redirect_uri: `${appsBase}/callback`,
        post_logout_redirect_uris: `${appsBase}/signed-out`,
        grant_types: 'authorization_code refresh_token',
        scope: 'openid profile',
        tenant_id: tenantId,
        allowed_origins: appsBase,
      },
    });
    expect(registered.status).toBe(201);
    await registerStaff(app, admin.token, { username: 'sam', password, role: 'OPERATOR', tenantId });
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** The app's UserManager settings, as a page builds them. */
  const settings = () => ({
    authority: issuer,
    client_id: clientId,
    redirect_uri: `${appsBase}/callback`,
    post_logout_redirect_uri: `${appsBase}/signed-out`,
    response_type: 'code',
    scope: 'openid profile',
    loadUserInfo: true,
  });

  /** Runs `script` with a UserManager of the settings in the page (its user kept in localStorage). */
  function inApp<T>(page: Page, script: string): Promise<T> {
    return page.evaluate(
      async ({ config, body }) => {
        const oidc = (window as unknown as { oidc: Record<string, new (...args: unknown[]) => unknown> }).oidc;
        const { UserManager, WebStorageStateStore } = oidc as unknown as {
          UserManager: new (settings: unknown) => Record<string, (...args: unknown[]) => Promise<unknown>>;
          WebStorageStateStore: new (options: unknown) => unknown;
        };
        const manager = new UserManager({ ...config, userStore: new WebStorageStateStore({ store: window.localStorage }) });
        return new Function('manager', `return (async () => { ${body} })();`)(manager);
      },
      { config: settings(), body: script },
    ) as Promise<T>;
  }

  it('signs in (code + PKCE), refreshes with its refresh token and signs out, calling the service from its own origin', async () => {
    const context = await stack.context();
    const page = await context.newPage();
    const requests: Request[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(issuer)) requests.push(request);
    });
    /** The requests to the service so far, with the `Origin` the browser sent. */
    const callsSoFar = () =>
      Promise.all(
        requests.map(async (request) => ({ url: request.url(), method: request.method(), origin: (await request.allHeaders()).origin })),
      );

    await page.goto(`${appsBase}/spa`);
    // Navigates away to the service's hosted sign-in.
    void inApp(page, 'await manager.signinRedirect({ state: { from: "spa" } });').catch(() => undefined);
    await page.waitForURL(`${issuer}/oauth2/authorize?**`);
    const authorize = new URL(page.url());
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    await page.fill('input[name=username]', 'sam');
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    const consent = page.locator('button[name=decision][value=allow]');
    await page.waitForURL((url) => url.href.startsWith(`${appsBase}/callback`) || url.href.startsWith(issuer)).catch(() => undefined);
    if (await consent.count()) await consent.click();
    await page.waitForURL(`${appsBase}/callback?**`);

    const signedIn = await inApp<{ profile: Record<string, unknown>; refresh: boolean; access: string; state: unknown }>(
      page,
      'const user = await manager.signinRedirectCallback(); return { profile: user.profile, refresh: Boolean(user.refresh_token), access: user.access_token, state: user.state };',
    );
    expect(signedIn.profile).toMatchObject({ iss: issuer, aud: clientId, preferred_username: 'sam', tenantId });
    expect(signedIn.refresh).toBe(true);
    expect(signedIn.state).toEqual({ from: 'spa' });
    // The token endpoint and userinfo answered the app's origin: CORS let it read them.
    expect(await callsSoFar()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ url: `${issuer}/oauth2/token`, method: 'POST', origin: appsBase }),
        expect.objectContaining({ url: `${issuer}/oauth2/userinfo`, method: 'GET', origin: appsBase }),
      ]),
    );

    const refreshed = await inApp<{ access: string; refresh: boolean }>(
      page,
      'const user = await manager.signinSilent(); return { access: user.access_token, refresh: Boolean(user.refresh_token) };',
    );
    expect(refreshed.access).not.toBe(signedIn.access);
    expect(refreshed.refresh).toBe(true);
    const grants = (await callsSoFar()).filter((call) => call.url === `${issuer}/oauth2/token` && call.method === 'POST');
    expect(grants).toHaveLength(2);

    void inApp(page, 'await manager.signoutRedirect({ state: "bye" });').catch(() => undefined);
    await page.waitForURL(`${appsBase}/signed-out?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBeTruthy();
    expect((await context.cookies(issuer)).map((cookie) => cookie.name)).not.toContain('__Host-session');
    await context.close();
  });

  it('lets a listed origin read a failure of the token endpoint, and refuses an origin no client lists', async () => {
    const context = await stack.context();
    const page = await context.newPage();
    const tryToken = (from: Page) =>
      from.evaluate(
        (tokenEndpoint) =>
          fetch(tokenEndpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=refresh_token&client_id=nobody&refresh_token=x',
          }).then(
            (answer) => answer.status,
            () => 'refused by CORS',
          ),
        `${issuer}/oauth2/token`,
      );
    await page.goto(`${appsBase}/spa`);
    expect(await tryToken(page)).toBe(401);
    // The same app server under another host name: another origin, which no client lists.
    await page.goto(`${appsBase.replace('localhost', '127.0.0.1')}/spa`);
    expect(await tryToken(page)).toBe('refused by CORS');
    await context.close();
  });
});
