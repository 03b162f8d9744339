import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { deviceCookieName } from '../../lib/abuse/device-token';
import { type App, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import { activateTotp } from '../helpers/mfa';
import { createClient, type OAuthTenant, oauthTenant, type TestClient } from '../helpers/oauth';

const PASSWORD = 'a long unusual passphrase';

/** The browser door of GET /oauth2/authorize and the hosted forms (docs/api.md 11.5-11.10), handler by handler. */
describe('browser sign-in (handlers)', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let other: OAuthTenant;
  let firstParty: TestClient;
  let origin: string;
  let serial = 0;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenant = await oauthTenant(app);
    other = await oauthTenant(app);
    firstParty = await createClient(app, tenant.adminToken, tenant.tenantId);
    const pathParameters = { clientId: firstParty.clientId };
    await app.request('updateOAuth2Client', { token: tenant.adminToken, pathParameters, body: { first_party: true } });
  });

  const newUser = async (within = tenant) => {
    const username = `user-${serial++}`;
    await registerStaff(app, within.adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId: within.tenantId });
    return username;
  };

  /** The sign-in page of a new interaction for the client, in a new jar. */
  const signInPage = async (client: TestClient = tenant.client, extra: Record<string, string> = {}) => {
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, client, extra);
    expect(begun.response.status).toBe(200);
    return { jar, csrf: begun.csrf, verifier: begun.verifier };
  };

  const expectErrorPage = (
    response: { status: number; headers: Record<string, string>; body: unknown },
    status: number,
    message: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(response.headers['Cache-Control']).toBe('no-store');
    expect(response.headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    expect(response.headers.Location).toBeUndefined();
    expect(String(response.body)).toContain(`<p class="error" role="alert">${message}</p>`);
  };

  it('keeps the 401 of docs/api.md 4.6 for a caller without a token that does not ask for HTML', async () => {
    const response = await app.request('oauth2Authorize', {
      method: 'GET',
      headers: { accept: 'application/json' },
      query: { response_type: 'code', client_id: tenant.client.clientId, redirect_uri: tenant.client.redirectUri },
    });
    expect(response).toMatchObject({ status: 401, body: failure('Unauthorized') });
  });

  it.each([
    ['an unknown client', { client_id: 'nobody' }, 'Invalid client'],
    ['a redirect URI that is not registered', { redirect_uri: 'https://attacker.example/cb' }, 'Invalid redirect_uri'],
    ['no PKCE', { code_challenge: '' }, 'Invalid authorization request'],
    ['a scope beyond the client', { scope: 'admin' }, 'Invalid scope'],
    ['an unknown prompt', { prompt: 'select_account' }, 'Invalid authorization request'],
  ])('answers %s with the error page, never a redirect', async (_, extra, message) => {
    const { response } = await browserAuthorize(app, new CookieJar(), tenant.client, extra);
    expectErrorPage(response, 400, message);
  });

  it('signs in, asks consent and answers with a code, state and iss; the session cookie is __Host-, HttpOnly, Secure, Lax', async () => {
    const username = await newUser();
    const { jar, csrf } = await signInPage();
    const consent = await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin);
    expect(consent.status).toBe(200);
    expect(String(consent.body)).toContain('name="decision" value="allow"');
    expect(consent.cookies?.[0]).toMatch(/^__Host-session=[^;]+; Path=\/; Max-Age=43200; Secure; HttpOnly; SameSite=Lax$/);
    const allowed = await postForm(app, jar, 'hostedConsent', { csrf, decision: 'allow' }, origin);
    expect(allowed.status).toBe(303);
    const location = new URL(allowed.headers.Location ?? '');
    expect(location.searchParams.get('state')).toBe('some-state');
    expect(location.searchParams.get('iss')).toBe(deps.config.issuer);
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The interaction was used: the same form again is refused.
    expectErrorPage(await postForm(app, jar, 'hostedConsent', { csrf, decision: 'allow' }, origin), 400, 'Sign-in expired');
  });

  it('shows the sign-in page again for a wrong password, and the interaction stays usable', async () => {
    const username = await newUser();
    const { jar, csrf } = await signInPage(firstParty);
    const wrong = await postForm(app, jar, 'hostedSignIn', { csrf, username, password: 'not the password' }, origin);
    expect(wrong.status).toBe(401);
    expect(String(wrong.body)).toContain('Invalid credentials');
    expect(csrfOf(wrong)).toBe(csrf);
    expect(wrong.cookies).toBeUndefined();
    const right = await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin);
    expect(right.status).toBe(303);
    // The hosted door is audited as the JSON login is (docs/api.md 9.8): the refusal, then the sign-in.
    const trail = await app.request('adminListAudit', { token: tenant.adminToken, query: { limit: '100' } });
    const mine = (trail.body.data.events as Array<{ type: string; outcome: string; details: Record<string, unknown> }>).filter(
      (event) => event.details.username === username && event.type.startsWith('login_'),
    );
    // With registerStaff's own JSON login (the test clock stands still: compared as a set).
    expect(mine.map((event) => [event.type, event.outcome, event.details.reason ?? '']).sort()).toEqual([
      ['login_failed', 'failure', 'wrong_password'],
      ['login_succeeded', 'success', ''],
      ['login_succeeded', 'success', ''],
    ]);
  });

  it.each([
    ['another origin', { origin: 'https://attacker.example' }, 403, 'Cross-site request refused'],
    ['the null origin', { origin: 'null' }, 403, 'Cross-site request refused'],
    ['another interaction’s token', { csrf: 'x'.repeat(43) }, 403, 'Cross-site request refused'],
    ['no interaction cookie', { dropCookies: true }, 400, 'Sign-in expired'],
    ['a field too many', { extra: { role: 'ADMIN' } }, 400, 'Invalid form body'],
  ])(
    'refuses a sign-in form with %s',
    async (_, change: { origin?: string; csrf?: string; dropCookies?: boolean; extra?: object }, status, message) => {
      const username = await newUser();
      const { jar, csrf } = await signInPage();
      if (change.dropCookies) jar.cookies.clear();
      const fields = { csrf: change.csrf ?? csrf, username, password: PASSWORD, ...change.extra };
      expectErrorPage(await postForm(app, jar, 'hostedSignIn', fields, change.origin ?? origin), status, message);
    },
  );

  it('refuses a username that grows past its bound under NFKC with 400 on the sign-in page, as the JSON login does, never a 500', async () => {
    const { jar, csrf } = await signInPage(firstParty);
    const username = '\uFDFA'.repeat(128);
    const json = await app.request('login', { body: { username, password: PASSWORD, tenantId: tenant.tenantId } });
    expect(json.status).toBe(400);
    const answer = await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin);
    expect(answer.status).toBe(400);
    expect(answer.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(String(answer.body)).toContain(
      'Username: Too long after Unicode normalization (NFKC): expected at most 128 characters and 512 bytes',
    );
    // The sign-in page again, and the interaction still usable.
    expect(csrfOf(answer)).toBe(csrf);
    const right = await postForm(app, jar, 'hostedSignIn', { csrf, username: await newUser(), password: PASSWORD }, origin);
    expect(right.status).toBe(303);
  });

  it('refuses a repeated form field and a body that is not a form', async () => {
    const { jar, csrf } = await signInPage();
    const repeated = await app.request('hostedSignIn', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...jar.header() },
      body: `csrf=${csrf}&username=a&username=b&password=p`,
    });
    expectErrorPage(repeated, 400, 'Invalid form body');
    const json = await app.request('hostedSignIn', { headers: { origin, ...jar.header() }, body: { csrf, username: 'a', password: 'p' } });
    expectErrorPage(json, 400, 'Invalid form body');
  });

  it('makes the browser a known device of the account: an unknown-source lockout leaves it signing in', async () => {
    const username = await newUser();
    const known = await signInPage(firstParty);
    const signedIn = await postForm(app, known.jar, 'hostedSignIn', { csrf: known.csrf, username, password: PASSWORD }, origin);
    expect(signedIn.status).toBe(303);
    const name = deviceCookieName({ tenantId: tenant.tenantId, username });
    // Sent to the hosted sign-in only: no other route of the service sees it (docs/api.md 10.1).
    expect(signedIn.cookies).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${name}=d1\\.[^;]+; Max-Age=31536000; Path=/oauth2/hosted/sign-in; Secure; HttpOnly; SameSite=Strict$`),
      ),
    );
    // An attacker spends the unknown sources' budget through the JSON login.
    for (let i = 0; i < 5; i++) {
      const guess = await app.request('login', { body: { username, password: `guess-${i}`, tenantId: tenant.tenantId } });
      expect(guess.status).toBe(401);
    }
    const stranger = await signInPage(firstParty);
    const refused = await postForm(app, stranger.jar, 'hostedSignIn', { csrf: stranger.csrf, username, password: PASSWORD }, origin);
    expect(refused.status).toBe(429);
    expect(String(refused.body)).toContain('Too many failed attempts');
    // The browser that signed in before is known: its own budget, untouched.
    const again = await browserAuthorize(app, known.jar, firstParty, { prompt: 'login' });
    const back = await postForm(app, known.jar, 'hostedSignIn', { csrf: again.csrf, username, password: PASSWORD }, origin);
    expect(back.status).toBe(303);
  });

  it('asks a user with MFA for a code on its own page, signs in with it, and audits each refused code and the lockout', async () => {
    const username = `user-${serial++}`;
    const session = await registerStaff(app, tenant.adminToken, {
      username,
      password: PASSWORD,
      role: 'OPERATOR',
      tenantId: tenant.tenantId,
    });
    const { code } = await activateTotp(app, deps, session.token);
    const first = await signInPage(firstParty);
    const asked = await postForm(app, first.jar, 'hostedSignIn', { csrf: first.csrf, username, password: PASSWORD }, origin);
    expect(asked.status).toBe(200);
    expect(String(asked.body)).toContain('name="code"');
    const signedIn = await postForm(app, first.jar, 'hostedSecondFactor', { csrf: first.csrf, method: 'TOTP', code: code() }, origin);
    expect(signedIn.status).toBe(303);
    const { jar, csrf } = await signInPage(firstParty);
    expect((await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin)).status).toBe(200);
    const wrong = await postForm(app, jar, 'hostedSecondFactor', { csrf, method: 'TOTP', code: '000000' }, origin);
    expect(wrong.status).toBe(401);
    expect(String(wrong.body)).toContain('Invalid MFA code');
    // The user's code budget (docs/api.md 4.1): 5 wrong codes, then 429 even for a right one.
    for (let i = 0; i < 4; i++) await postForm(app, jar, 'hostedSecondFactor', { csrf, method: 'TOTP', code: '000000' }, origin);
    expectErrorPage(
      await postForm(app, jar, 'hostedSecondFactor', { csrf, method: 'TOTP', code: code(1) }, origin),
      429,
      'Too many failed attempts',
    );
    // Asking for the code is a step, not a refusal; every refused code and the lockout are (docs/api.md 9.8).
    const trail = await deps.store.audit.list(tenant.tenantId, { shards: deps.config.audit.shards, limit: 100, userId: session.user.id });
    const mine = trail.events.filter((event) => event.type.startsWith('login_'));
    expect(mine.map((event) => [event.type, event.details.reason ?? '', event.details.method ?? ''].join(' ')).sort()).toEqual([
      ...Array(5).fill('login_failed invalid_mfa_code TOTP'),
      'login_locked mfa_attempts TOTP',
      'login_succeeded  ',
      // registerStaff's own JSON login.
      'login_succeeded  ',
    ]);
    expect(mine.filter((event) => event.type === 'login_succeeded').map((event) => event.details.amr)).toContainEqual(['pwd', 'otp']);
  });

  it('asks for the password again when the sign-in is older than max_age', async () => {
    const username = await newUser();
    const { jar, csrf } = await signInPage(firstParty);
    expect((await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin)).status).toBe(303);
    deps.clock.advance(61);
    expect((await browserAuthorize(app, jar, firstParty, { max_age: '120' })).response.status).toBe(302);
    const again = await browserAuthorize(app, jar, firstParty, { max_age: '60' });
    expect(again.response.status).toBe(200);
    expect(String(again.response.body)).toContain('name="password"');
  });

  it('refuses an interaction older than 10 minutes', async () => {
    const username = await newUser();
    const { jar, csrf } = await signInPage();
    deps.clock.advance(601);
    expectErrorPage(await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin), 400, 'Sign-in expired');
  });

  it('signs in again rather than across tenants: a browser session of another tenant is no session here', async () => {
    const otherUser = await newUser(other);
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, other.client);
    await postForm(app, jar, 'hostedSignIn', { csrf: begun.csrf, username: otherUser, password: PASSWORD }, origin);
    expect(jar.cookies.has('__Host-session')).toBe(true);
    const here = await browserAuthorize(app, jar, firstParty, { prompt: 'none' });
    expect(here.response.status).toBe(302);
    expect(new URL(here.response.headers.Location ?? '').searchParams.get('error')).toBe('login_required');
  });

  it('ends in the sign-in page after the idle timeout', async () => {
    const username = await newUser();
    const { jar, csrf } = await signInPage(firstParty);
    expect((await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin)).status).toBe(303);
    expect((await browserAuthorize(app, jar, firstParty)).response.status).toBe(302);
    deps.clock.advance(30 * 60 + 1);
    expect((await browserAuthorize(app, jar, firstParty)).response.status).toBe(200);
  });

  it('never answers hostile form fields with a 5xx or as markup', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), async (username, password) => {
        const { jar, csrf } = await signInPage();
        const answer = await postForm(app, jar, 'hostedSignIn', { csrf, username: `<i>${username}`, password }, origin);
        expect(answer.status).toBeLessThan(500);
        expect(String(answer.body)).not.toContain('<i>');
      }),
      { numRuns: 25 },
    );
  });
});
