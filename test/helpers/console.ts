import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { App } from './app';
import type { BrowserStack } from './browser';
import { CookieJar, csrfOf } from './hosted';
import type { Response } from './http';
import { FORM } from './oauth';

/*
 * The account page and the tenant console in tests (docs/api.md 15.1): a signed-in cookie
 * jar for the functions called in-process, and a signed-in browser (through the real
 * hosted sign-in) with JavaScript on or off, the axe-core check, and both languages.
 */

export type ConsoleArea = 'account' | 'admin';

const PAGE_ROUTE = { account: 'accountPage', admin: 'adminConsolePage' } as const;
const ACTION_ROUTE = { account: 'accountAction', admin: 'adminConsoleAction' } as const;
const SECTION_PATH = { account: '/account/{section}', admin: '/admin/console/{section}' } as const;
const HOME_PATH = { account: '/account', admin: '/admin' } as const;

export interface PageRequest {
  section?: string | undefined;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** GET of a page with the jar's cookies (the area's start page without a section). */
export async function openPage(app: App, jar: CookieJar, area: ConsoleArea, request: PageRequest = {}): Promise<Response> {
  const { section, query, headers } = request;
  return jar.take(
    await app.request(PAGE_ROUTE[area], {
      method: 'GET',
      path: section === undefined ? HOME_PATH[area] : SECTION_PATH[area],
      ...(section === undefined ? {} : { pathParameters: { section } }),
      ...(query ? { query } : {}),
      headers: { ...jar.header(), ...headers },
    }),
  );
}

/** POST of an action's form from `origin` with the jar's cookies. */
export async function postAction(
  app: App,
  jar: CookieJar,
  area: ConsoleArea,
  path: { section: string; action: string },
  fields: Record<string, string>,
  origin: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return jar.take(
    await app.request(ACTION_ROUTE[area], {
      method: 'POST',
      path: `${SECTION_PATH[area]}/{action}`,
      pathParameters: path,
      headers: { 'content-type': FORM, origin, ...jar.header(), ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/**
 * A jar signed in to `tenantId` as `username` through the hosted sign-in a page begins
 * (docs/api.md 15.1), on the area's start page; returns the jar and that page.
 */
export async function signedInJar(
  app: App,
  origin: string,
  area: ConsoleArea,
  account: { tenantId: string; username: string; password: string },
): Promise<{ jar: CookieJar; page: Response }> {
  const jar = new CookieJar();
  const signIn = await openPage(app, jar, area, { query: { tenant: account.tenantId } });
  expect(signIn.status).toBe(200);
  const back = jar.take(
    await app.request('hostedSignIn', {
      headers: { 'content-type': FORM, origin, ...jar.header() },
      body: new URLSearchParams({ csrf: csrfOf(signIn), username: account.username, password: account.password }).toString(),
    }),
  );
  expect(back.status, JSON.stringify(back.body)).toBe(303);
  const page = await openPage(app, jar, area);
  expect(page.status).toBe(200);
  return { jar, page };
}

/** The text of a page's `role="status"` flash region. */
export const flashOf = (page: Response) => /<div class="flash" role="status">([^<]*)<\/div>/.exec(String(page.body))?.[1];

/** Every field error of a page: the text beside each field. */
export const fieldErrorsOf = (page: Response) =>
  [...String(page.body).matchAll(/<p class="field-error" id="([^"]+)-error">([^<]*)<\/p>/g)].map((m) => [m[1], m[2]]);

// ---- In chromium -------------------------------------------------------------------

/**
 * A browser profile signed in to a tenant as a user, through the real hosted sign-in
 * (the page's `?tenant=` sends it there and back), with JavaScript on or off.
 */
export async function signedInBrowser(
  stack: BrowserStack,
  area: ConsoleArea,
  account: { tenantId: string; username: string; password: string },
  options: { javaScript?: boolean; language?: 'en' | 'de' } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await stack.context({
    javaScriptEnabled: options.javaScript ?? true,
    locale: options.language === 'de' ? 'de-DE' : 'en-US',
  });
  const page = await context.newPage();
  await page.goto(`${stack.issuer}${HOME_PATH[area]}?tenant=${encodeURIComponent(account.tenantId)}`);
  await page.fill('input[name=username]', account.username);
  await page.fill('input[name=password]', account.password);
  await Promise.all([page.waitForURL((url) => url.pathname.startsWith(HOME_PATH[area])), page.click('button[type=submit]')]);
  return { context, page };
}

const AXE_SOURCE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/**
 * axe-core on the page as it is (WCAG 2.x A and AA rules and best practices): fails on any
 * serious or critical violation, naming each with its elements. Injected by the test
 * (CDP evaluates it; the page's CSP does not apply to it).
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const context = page.context();
  const session = await context.newCDPSession(page);
  try {
    await session.send('Runtime.evaluate', { expression: AXE_SOURCE });
    const { result } = (await session.send('Runtime.evaluate', {
      expression: 'axe.run(document, { resultTypes: ["violations"] }).then((r) => JSON.stringify({ violations: r.violations }))',
      awaitPromise: true,
      returnByValue: true,
    })) as { result: { value: string } };
    const { violations } = JSON.parse(result.value) as AxeResult;
    const serious = violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
      );
    expect(serious, `axe on ${label}`).toEqual([]);
  } finally {
    await session.detach();
  }
}

/** The languages of the pages, for a test body run in each. */
export const BOTH_LANGUAGES = ['en', 'de'] as const;

/** Switches a signed-in page's language with the switch form (a form: works without JavaScript). */
export async function switchLanguage(page: Page, language: 'en' | 'de'): Promise<void> {
  const current = await page.getAttribute('html', 'lang');
  if (current === language) return;
  await Promise.all([page.waitForLoadState('load'), page.click(`form.lang button[value=${language}]`)]);
  await expect.poll(() => page.getAttribute('html', 'lang')).toBe(language);
}
