import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { accentStylesheet } from '../../lib/hosted/branding';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { openPage, postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { CookieJar, csrfOf } from '../helpers/hosted';

const PASSWORD = 'console frame passphrase';
const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const text = (body: unknown) => String(body);

/** The frame of the account page and the tenant console (docs/api.md 15.1), its functions called in-process. */
describe('the console frame', () => {
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let tenantId: string;
  let adminToken: string;
  const admin = () => ({ tenantId, username: 'admin', password: PASSWORD });

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenantId = uniqueTenant('frame');
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
    await registerStaff(app, adminToken, { username: 'operator', password: PASSWORD, role: 'OPERATOR', tenantId });
  });

  it('signs a browser in through the hosted sign-in and shows the page in the frame', async () => {
    const { page } = await signedInJar(app, origin, 'account', admin());
    const body = text(page.body);
    expect(page.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': expect.stringMatching(
        /^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^ ]+ 'sha256-[^ ]+; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
      ),
    });
    expect(body).toMatch(/^<!doctype html><html lang="en">/);
    expect(body).toContain('<a class="skip" href="#main">Skip to content</a>');
    expect(body).toContain('<nav aria-label="Sections">');
    expect(body).toContain('<a href="/account/profile" aria-current="page">Profile</a>');
    expect(body).toContain('<main id="main" tabindex="-1"><h1>Profile</h1><div class="flash" role="status"></div>');
    expect(body).toContain('Signed in as admin');
    expect(body).toContain('<button type="submit" name="language" value="de" class="secondary" lang="de">Deutsch</button>');
  });

  it('speaks German by Accept-Language, then by the switch, which is kept in a cookie', async () => {
    const { jar } = await signedInJar(app, origin, 'account', admin());
    const german = await openPage(app, jar, 'account', { headers: { 'accept-language': 'fr;q=0.9, de-AT;q=0.8, en;q=0.1' } });
    expect(text(german.body)).toMatch(/<html lang="de">/);
    expect(text(german.body)).toContain('<h1>Profil</h1>');
    const switched = await postAction(
      app,
      jar,
      'account',
      { section: 'language', action: 'set' },
      { csrf: csrfOf(german), language: 'de', returnTo: '/account/profile?x=1' },
      origin,
    );
    expect(switched).toMatchObject({ status: 303, headers: { Location: '/account/profile?x=1' } });
    expect(switched.cookies).toEqual([
      expect.stringMatching(/^__Host-lang=de; Path=\/; Max-Age=31536000; Secure; HttpOnly; SameSite=Lax$/),
    ]);
    expect(text((await openPage(app, jar, 'account', { headers: { 'accept-language': 'en' } })).body)).toMatch(/<html lang="de">/);
    // Back to a page of the area only, never elsewhere.
    const elsewhere = await postAction(
      app,
      jar,
      'account',
      { section: 'language', action: 'set' },
      { csrf: csrfOf(german), language: 'en', returnTo: '//evil.example/account' },
      origin,
    );
    expect(elsewhere.headers.Location).toBe('/account');
  });

  it('shows the console to an ADMIN and a 403 page to any other role', async () => {
    const { page } = await signedInJar(app, origin, 'admin', admin());
    expect(text(page.body)).toContain('<a href="/admin/console/overview" aria-current="page">Overview</a>');
    expect(text(page.body)).toContain(`<dd>${tenantId}</dd>`);
    const operator = new CookieJar();
    const signIn = await openPage(app, operator, 'admin', { query: { tenant: tenantId } });
    await app
      .request('hostedSignIn', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...operator.header() },
        body: new URLSearchParams({ csrf: csrfOf(signIn), username: 'operator', password: PASSWORD }).toString(),
      })
      .then((response) => operator.take(response));
    const refused = await openPage(app, operator, 'admin');
    expect(refused.status).toBe(403);
    expect(text(refused.body)).toContain('You are not allowed to see this page.');
    expect(text(refused.body)).not.toContain(tenantId);
    const section = await openPage(app, operator, 'admin', { section: 'overview' });
    expect(section.status).toBe(403);
    // The operator's own account page is theirs.
    expect((await openPage(app, operator, 'account')).status).toBe(200);
  });

  it('refuses a cross-site form, a stale token and a dead session, each with its page, and answers 404 for no such section', async () => {
    const { jar, page } = await signedInJar(app, origin, 'account', admin());
    const csrf = csrfOf(page);
    const language = { section: 'language', action: 'set' };
    const fields = { csrf, language: 'de', returnTo: '/account' };
    const crossSite = await postAction(app, jar, 'account', language, fields, 'https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(text(crossSite.body)).toContain('This form was sent from another site and was refused. Nothing was changed.');
    expect(crossSite.cookies ?? []).toEqual([]);
    const stale = await postAction(app, jar, 'account', language, { ...fields, csrf: `${csrf}x` }, origin);
    expect(stale.status).toBe(403);
    expect(text(stale.body)).toContain('<h1>This page expired</h1>');
    expect(text(stale.body)).toContain('<a href="/account/language">');
    const missing = await openPage(app, jar, 'account', { section: 'nothing-here' });
    expect(missing.status).toBe(404);
    expect(text((await postAction(app, jar, 'account', { section: 'profile', action: 'nothing' }, fields, origin)).body)).toContain(
      'There is no such page.',
    );
    const gone = new CookieJar();
    gone.cookies.set('__Host-session', jar.cookies.get('__Host-session') ?? '');
    const user = await deps.store.users.findByUsername(tenantId, 'admin');
    for (const one of await deps.store.sessions.listByUser(tenantId, user?.id ?? ''))
      await deps.store.sessions.revoke({ tenantId, id: one.id }, Math.floor(Date.now() / 1000), 'revoked');
    const dead = await postAction(app, gone, 'account', { section: 'profile', action: 'x' }, fields, origin);
    expect(dead.status).toBe(401);
    expect(text(dead.body)).toContain(`<a href="/account/profile?tenant=${tenantId}">Sign in again</a>`);
    // The page itself of a dead session goes to the sign-in.
    const again = await openPage(app, gone, 'account');
    expect(again.status).toBe(200);
    expect(text(again.body)).toContain('action="/oauth2/hosted/sign-in"');
  });

  it('brands the pages with the tenant’s name, logo and accent colour, allowed by the CSP alone', async () => {
    const branded = uniqueTenant('brand');
    const token = (await registerAdmin(app, branded, 'admin', PASSWORD)).token;
    const changed = await app.request('adminUpdateTenant', {
      token,
      body: { displayName: '<b>Acme</b> & "Sons"', logoUrl: 'https://cdn.example.com/logo.svg?v=1', accentColor: '#FFD700' },
    });
    expect(changed.status).toBe(200);
    const { page } = await signedInJar(app, origin, 'account', { tenantId: branded, username: 'admin', password: PASSWORD });
    const body = text(page.body);
    expect(body).toContain('<img src="https://cdn.example.com/logo.svg?v=1" alt="&lt;b>Acme&lt;/b> &amp; &quot;Sons&quot; logo"/>');
    expect(body).toContain('<p class="name">&lt;b>Acme&lt;/b> &amp; &quot;Sons&quot;</p>');
    const accent = accentStylesheet('#FFD700') ?? '';
    // Gold is light: black text on it.
    expect(accent).toBe(':root{--accent:#ffd700;--on-accent:#000000}');
    expect(body).toContain(`<style>${accent}</style>`);
    expect(page.headers['Content-Security-Policy']).toContain(
      `style-src ${hash(String(/<style>([^<]*)<\/style>/.exec(body)?.[1]))} ${hash(accent)};`,
    );
    expect(page.headers['Content-Security-Policy']).toContain('img-src https://cdn.example.com;');
    expect(accentStylesheet('#1d4ed8')).toBe(':root{--accent:#1d4ed8;--on-accent:#ffffff}');
    expect(accentStylesheet('red;}</style>')).toBeUndefined();
  });
});
