import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { fieldErrorsOf, flashOf, openPage, postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { type CookieJar, csrfOf } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { authenticator } from '../helpers/mfa';

const PASSWORD = 'account page passphrase';
const text = (page: Response) => String(page.body);

/** The account page's forms (docs/api.md 15.2), each action through its function in-process: POST, 303, GET. */
describe('the account page', () => {
  let deps: TestDeps;
  let app: App;
  let origin: string;
  let tenantId: string;
  let adminToken: string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenantId = uniqueTenant('account');
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
  });

  /** A new user of the tenant signed in on the account page. */
  async function newUser(name = `user-${Math.random().toString(36).slice(2, 8)}`) {
    const staff = await registerStaff(app, adminToken, { username: name, password: PASSWORD, role: 'OPERATOR', tenantId });
    const { jar, page } = await signedInJar(app, origin, 'account', { tenantId, username: name, password: PASSWORD });
    return { name, id: staff.user.id as string, token: staff.token as string, jar, csrf: csrfOf(page) };
  }

  /** Posts an action and follows its 303 back to the section; returns the page shown. */
  async function act(jar: CookieJar, csrf: string, section: string, action: string, fields: Record<string, string> = {}) {
    const answer = await postAction(app, jar, 'account', { section, action }, { csrf, ...fields }, origin);
    if (answer.status !== 303) return answer;
    expect(answer.headers.Location).toBe(`/account/${section}`);
    return openPage(app, jar, 'account', { section });
  }

  it('changes the password with the current one, shows field errors beside the fields, never the password back', async () => {
    const user = await newUser();
    const short = await act(user.jar, user.csrf, 'password', 'change', { currentPassword: PASSWORD, newPassword: 'abc' });
    expect(short.status).toBe(400);
    expect(fieldErrorsOf(short)).toEqual([['change-newPassword', 'Enter at least 6 characters.']]);
    expect(text(short)).toContain('aria-describedby="change-newPassword-hint change-newPassword-error" aria-invalid="true"');
    expect(text(short)).not.toContain(PASSWORD);
    const wrong = await act(user.jar, user.csrf, 'password', 'change', { currentPassword: 'not it', newPassword: 'a new long passphrase' });
    expect(wrong.status).toBe(400);
    expect(text(wrong)).toContain('The password is not right.');
    const unknownField = await act(user.jar, user.csrf, 'password', 'change', {
      currentPassword: PASSWORD,
      newPassword: 'x'.repeat(20),
      role: 'ADMIN',
    });
    expect(unknownField.status).toBe(400);
    expect(text(unknownField)).toContain('The form could not be read.');
    const changed = await act(user.jar, user.csrf, 'password', 'change', {
      currentPassword: PASSWORD,
      newPassword: 'a new long passphrase',
    });
    expect(changed.status).toBe(200);
    expect(flashOf(changed)).toBe('Your password is changed. Your other sessions are signed out.');
    // Shown once: the next page has no message.
    expect(flashOf(await openPage(app, user.jar, 'account', { section: 'password' }))).toBe('');
    const login = await app.request('login', { body: { username: user.name, password: 'a new long passphrase', tenantId } });
    expect(login.status).toBe(200);
    const trail = await app.request('adminListAudit', { token: adminToken, query: { type: 'password_changed', userId: user.id } });
    expect(trail.body.data.events).toHaveLength(1);
  });

  it('sets and verifies the email address with the emailed code', async () => {
    const user = await newUser();
    const invalid = await act(user.jar, user.csrf, 'profile', 'email', { email: 'not an address' });
    expect(invalid.status).toBe(400);
    expect(fieldErrorsOf(invalid)).toEqual([['email-email', 'Enter an email address like name@example.com.']]);
    expect(text(invalid)).toContain('value="not an address"');
    const set = await act(user.jar, user.csrf, 'profile', 'email', { email: `${user.name}@example.com` });
    expect(flashOf(set)).toBe(`We sent a code to ${user.name}@example.com. Enter it below.`);
    const sent = await deps.outbox.latest(tenantId, user.id, 'EMAIL', 'verify-email');
    const wrong = await act(user.jar, user.csrf, 'profile', 'verify-email', { code: '000000' === sent?.code ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    const verified = await act(user.jar, user.csrf, 'profile', 'verify-email', { code: sent?.code ?? '' });
    expect(flashOf(verified)).toBe('Your email address is verified.');
    expect(text(verified)).toContain(`${user.name}@example.com (Verified)`);
  });

  it('enrols TOTP from the QR page, then asks for the second factor again before any change of factors', async () => {
    const user = await newUser();
    const enrolment = await postAction(app, user.jar, 'account', { section: 'security', action: 'totp' }, { csrf: user.csrf }, origin);
    expect(enrolment.status).toBe(200);
    expect(enrolment.headers['Cache-Control']).toBe('no-store');
    expect(enrolment.cookies ?? []).toEqual([]);
    expect(text(enrolment)).toMatch(/<div class="qr" role="img" aria-label="QR code to add [^"]+ to an authenticator app"><svg /);
    const otpauth = /data-otpauth="([^"]+)"/.exec(text(enrolment))?.[1]?.replaceAll('&amp;', '&') ?? '';
    const secret = new URL(otpauth).searchParams.get('secret') ?? '';
    expect(text(enrolment)).toContain(`>${secret}</p>`);
    const code = authenticator(deps, secret);
    const on = await act(user.jar, user.csrf, 'security', 'verify', { method: 'TOTP', code: code() });
    expect(flashOf(on)).toBe('Authenticator app is on.');
    // This session signed in with the password alone: recovery codes need the second factor first.
    const refused = await act(user.jar, user.csrf, 'security', 'recovery-codes');
    expect(refused.status).toBe(403);
    expect(text(refused)).toContain('Confirm it is you with your second factor first.');
    deps.clock.advance(30);
    const confirmed = await act(user.jar, user.csrf, 'security', 'confirm', { password: PASSWORD, method: 'TOTP', code: code() });
    expect(flashOf(confirmed)).toBe('Confirmed. You can go on.');
    const codes = await postAction(
      app,
      user.jar,
      'account',
      { section: 'security', action: 'recovery-codes' },
      { csrf: user.csrf },
      origin,
    );
    expect(codes.status).toBe(200);
    expect([...text(codes).matchAll(/<li>([0-9A-Za-z-]+)<\/li>/g)].length).toBe(10);
    const off = await act(user.jar, user.csrf, 'security', 'disable', { method: 'TOTP' });
    expect(flashOf(off)).toBe('Authenticator app is off.');
  });

  it('adds EMAIL codes with the code sent, and asks for a recent sign-in when the last is old', async () => {
    const user = await newUser();
    const added = await act(user.jar, user.csrf, 'security', 'email', { email: `${user.name}@example.org` });
    expect(flashOf(added)).toBe('We sent a code. Enter it to turn this method on.');
    const sent = await deps.outbox.latest(tenantId, user.id, 'EMAIL');
    const on = await act(user.jar, user.csrf, 'security', 'verify', { method: 'EMAIL', code: sent?.code ?? '' });
    expect(flashOf(on)).toBe('Email is on.');
    deps.clock.advance(deps.config.reauthMaxAgeSeconds + 1);
    const page = await openPage(app, user.jar, 'account', { section: 'security' });
    expect(text(page)).toContain('<h2 id="confirm-title">Confirm it is you</h2>');
    const old = await act(user.jar, user.csrf, 'security', 'disable', { method: 'EMAIL' });
    expect(old.status).toBe(403);
    expect(text(old)).toContain('Confirm it is you first.');
    const wrong = await act(user.jar, user.csrf, 'security', 'confirm', { password: 'wrong password' });
    expect(wrong.status).toBe(400);
    expect(text(wrong)).toContain('The password is not right.');
  });

  it('lists sessions with hostile user agents as text, signs out one and all others; revokes an app’s grant', async () => {
    const user = await newUser();
    const other = await signedInJar(app, origin, 'account', { tenantId, username: user.name, password: PASSWORD });
    void other;
    const hostile = '<script>alert(1)</script> "Evil" & Co';
    await app.request('login', { body: { username: user.name, password: PASSWORD, tenantId }, headers: { 'user-agent': hostile } });
    const page = await openPage(app, user.jar, 'account', { section: 'sessions' });
    expect(text(page)).toContain('&lt;script>alert(1)&lt;/script> &quot;Evil&quot; &amp; Co');
    expect(text(page)).not.toContain('<script>alert(1)');
    const ids = [...text(page).matchAll(/name="sessionId" value="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const one = await act(user.jar, user.csrf, 'sessions', 'revoke', { sessionId: ids[0] ?? '' });
    expect(flashOf(one)).toBe('The session is signed out.');
    const notMine = await act(user.jar, user.csrf, 'sessions', 'revoke', { sessionId: 'a'.repeat(32) });
    expect(notMine.status).toBe(404);
    expect(text(notMine)).toContain('The session was not found.');
    const others = await act(user.jar, user.csrf, 'sessions', 'revoke-others');
    expect(flashOf(others)).toMatch(/^\d+ other sessions? (is|are) signed out\.$/);
    expect([...text(others).matchAll(/name="sessionId"/g)]).toHaveLength(0);
    const apps = await openPage(app, user.jar, 'account', { section: 'apps' });
    expect(text(apps)).toContain('No app has access to your account.');
    const noGrant = await act(user.jar, user.csrf, 'apps', 'revoke', { grantId: 'nothing-of-mine' });
    expect(noGrant.status).toBe(404);
  });

  it('renders every section in German with the same structure', async () => {
    const user = await newUser();
    for (const section of ['profile', 'password', 'security', 'passkeys', 'sessions', 'apps']) {
      const page = await openPage(app, user.jar, 'account', { section, headers: { 'accept-language': 'de' } });
      expect(page.status, section).toBe(200);
      expect(text(page)).toMatch(/<html lang="de">/);
      expect(text(page), section).toContain('aria-current="page"');
    }
  });
});
