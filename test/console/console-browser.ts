import { expect } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { openPage, postAction } from '../helpers/console';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { CookieJar, csrfOf } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { FORM } from '../helpers/oauth';

/**
 * A browser on the tenant console, in process (docs/api.md 15.1, 15.3), over
 * test/helpers/console.ts: signed in through the tenant's hosted sign-in that the console's
 * first GET begins (any role: another role's start page is the 403 page), then its pages
 * and forms, each form one request with the session's CSRF token.
 */
export interface ConsoleBrowser {
  jar: CookieJar;
  /** GET of a section's page with a query. */
  page(section: string, query?: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** POST of a section's action with these fields and the session's CSRF token (unless given). */
  post(section: string, action: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
}

export async function consoleBrowser(
  app: App,
  origin: string,
  tenantId: string,
  username: string,
  password: string,
): Promise<ConsoleBrowser> {
  const jar = new CookieJar();
  const signIn = await openPage(app, jar, 'admin', { query: { tenant: tenantId } });
  expect(signIn.status).toBe(200);
  const back = jar.take(
    await app.request('hostedSignIn', {
      headers: { 'content-type': FORM, origin, ...jar.header() },
      body: new URLSearchParams({ csrf: csrfOf(signIn), username, password }).toString(),
    }),
  );
  expect(back.status).toBe(303);
  // The start page's forms carry the session's token (none on another role's 403 page).
  const csrf = csrfOf(await openPage(app, jar, 'admin'));
  return {
    jar,
    page: (section, query, headers) =>
      openPage(app, jar, 'admin', { section, ...(query ? { query } : {}), ...(headers ? { headers } : {}) }),
    post: (section, action, fields, headers) => postAction(app, jar, 'admin', { section, action }, { csrf, ...fields }, origin, headers),
  };
}

/** The text of a page's `<main>`, tags removed and entities decoded as a reader sees it. */
export function mainText(response: Response): string {
  const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(String(response.body))?.[1] ?? '';
  return main
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Where an action's 303 goes (path and query), and that page as the browser then shows it, its message once. */
export async function followed(browser: ConsoleBrowser, response: Response): Promise<{ location: string; page: Response }> {
  expect(response.status).toBe(303);
  const url = new URL(String(response.headers.Location), 'https://console.test');
  const section = url.pathname.split('/').at(-1) ?? '';
  return { location: `${url.pathname}${url.search}`, page: await browser.page(section, Object.fromEntries(url.searchParams)) };
}

/** The password of the console tests' ADMINs and staff. */
export const CONSOLE_PASSWORD = 'tenant admin passphrase';

/** A new tenant on deps of its own (the clock standing near real time), its ADMIN `admin` signed in to the console. */
export async function consoleTenant(prefix: string) {
  const deps = nearRealTime(await testDeps());
  const app = testApp(deps);
  const origin = new URL(deps.config.issuer).origin;
  const tenantId = uniqueTenant(prefix);
  const admin = await registerAdmin(app, tenantId, 'admin', CONSOLE_PASSWORD);
  const browser = await consoleBrowser(app, origin, tenantId, 'admin', CONSOLE_PASSWORD);
  return { deps, app, origin, tenantId, admin, browser };
}
