import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors';
import { browserForForm, browserForPage, isPagePath } from '../../lib/hosted/page-session';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';

const PASSWORD = 'correct horse battery';

/** A page request of a browser with `jar`'s cookies (the shape of payload 2.0 the handlers read). */
const pageEvent = (jar: CookieJar, extra: { query?: Record<string, string>; origin?: string } = {}) =>
  ({
    headers: { ...jar.header(), ...(extra.origin ? { origin: extra.origin } : {}) },
    queryStringParameters: extra.query,
    requestContext: { http: { sourceIp: '198.51.100.7', userAgent: 'test' } },
  }) as unknown as APIGatewayProxyEventV2;

/** The error a call throws: its status and code. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { status: error.statusCode, code: error.code, message: error.message };
}

/** The pages of a signed-in person (docs/api.md 15.1): sign-in first, back to the page, then the forms' checks. */
describe('page sign-in', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let origin: string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenantId = uniqueTenant('pages');
    await registerAdmin(app, tenantId, 'admin', PASSWORD);
  });

  /** Signs `jar` in through the hosted sign-in a page began, and returns where it came back to. */
  async function signIn(jar: CookieJar, returnTo: string): Promise<Response> {
    const begun = await browserForPage(deps, pageEvent(jar, { query: { tenant: tenantId } }), returnTo);
    if (!('reply' in begun)) throw new Error('expected the sign-in page');
    const { reply } = begun;
    const signInPage = jar.take({ status: reply.statusCode, headers: reply.headers ?? {}, body: reply.html, cookies: reply.cookies });
    expect(signInPage.status).toBe(200);
    expect(String(signInPage.body)).not.toContain('to continue to');
    return postForm(app, jar, 'hostedSignIn', { csrf: csrfOf(signInPage), username: 'admin', password: PASSWORD }, origin);
  }

  it('sends a browser without a session through the tenant’s sign-in and back to the page', async () => {
    const jar = new CookieJar();
    const back = await signIn(jar, '/account?section=sessions');
    expect(back.status).toBe(303);
    expect(back.headers.Location).toBe(`${origin}/account?section=sessions`);
    const page = await browserForPage(deps, pageEvent(jar), '/account');
    expect('signedIn' in page && page.signedIn.user.username).toBe('admin');
  });

  it('checks the Origin, the session and the CSRF token of a form', async () => {
    const jar = new CookieJar();
    await signIn(jar, '/admin');
    const page = await browserForPage(deps, pageEvent(jar), '/admin');
    if (!('signedIn' in page)) throw new Error('expected a signed-in browser');
    const { csrf, session } = page.signedIn;
    expect((await browserForForm(deps, pageEvent(jar, { origin }), csrf)).user.username).toBe('admin');
    expect(await refusal(browserForForm(deps, pageEvent(jar, { origin: 'https://evil.example' }), csrf))).toMatchObject({
      status: 403,
      code: 'CROSS_SITE_REQUEST',
    });
    expect(await refusal(browserForForm(deps, pageEvent(jar, { origin }), `${csrf}x`))).toMatchObject({
      status: 403,
      code: 'PAGE_EXPIRED',
    });
    expect(await refusal(browserForForm(deps, pageEvent(new CookieJar(), { origin }), csrf))).toMatchObject({
      status: 401,
      code: 'SIGN_IN_AGAIN',
    });
    // A form of an earlier session of this browser: its token is not the new session's.
    const again = new CookieJar();
    await signIn(again, '/admin');
    expect(await refusal(browserForForm(deps, pageEvent(again, { origin }), csrf))).toMatchObject({ status: 403, code: 'PAGE_EXPIRED' });
    // A revoked session is no session.
    await deps.store.sessions.revoke({ tenantId, id: session.id }, Math.floor(Date.now() / 1000), 'revoked');
    expect(await refusal(browserForForm(deps, pageEvent(jar, { origin }), csrf))).toMatchObject({ status: 401, code: 'SIGN_IN_AGAIN' });
    const reopened = await browserForPage(deps, pageEvent(jar), '/admin');
    expect('reply' in reopened).toBe(true);
  });

  it('refuses a page of another site, an unknown tenant and a page without a tenant', async () => {
    for (const path of [
      '//evil.example/account',
      'https://evil.example/account',
      '/accounts',
      '/oauth2/token',
      '/account//evil',
      '/device\\x',
    ])
      expect(isPagePath(path), path).toBe(false);
    for (const path of ['/account', '/account/security', '/admin?section=staff&page=2', '/device?user_code=BCDF-GHJK'])
      expect(isPagePath(path), path).toBe(true);
    expect(
      await refusal(browserForPage(deps, pageEvent(new CookieJar(), { query: { tenant: tenantId } }), '//evil.example')),
    ).toMatchObject({
      status: 400,
    });
    expect(await refusal(browserForPage(deps, pageEvent(new CookieJar()), '/account'))).toMatchObject({
      status: 400,
      code: 'TENANT_REQUIRED',
    });
    expect(
      await refusal(browserForPage(deps, pageEvent(new CookieJar(), { query: { tenant: uniqueTenant('nobody') } }), '/account')),
    ).toMatchObject({ status: 404 });
    expect(await refusal(browserForPage(deps, pageEvent(new CookieJar(), { query: { tenant: '<script>' } }), '/account'))).toMatchObject({
      status: 400,
    });
  });
});
