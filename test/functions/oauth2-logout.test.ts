import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeySet, signJwt } from '../../lib/tokens/signing-keys';
import { type App, registerStaff, testApp } from '../helpers/app';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { FORM, grantTokens, newSecret, type OAuthTenant, oauthTenant, type TestClient, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'a long unusual passphrase';
const BYE = 'https://app.example.com/bye';
/** An ID token's claims, to sign again changed. */
const claimsOf = (token: string) => decodeJwt(token) as Record<string, string | number | boolean | string[]>;

/** GET|POST /oauth2/logout (docs/api.md 11.12): RP-initiated logout of the browser session. */
describe('RP-initiated logout (handlers)', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let other: OAuthTenant;
  let origin: string;
  let serial = 0;

  /** A first-party OpenID client with a post-logout URI, so a sign-in goes straight back with a code. */
  const openIdClient = async (within: OAuthTenant, clientId = within.client.clientId) => {
    const body = { first_party: true, scope: 'openid orders:read', post_logout_redirect_uris: `${BYE} https://app.example.com/other-bye` };
    const changed = await app.request('updateOAuth2Client', { token: within.adminToken, pathParameters: { clientId }, body });
    expect(changed.status).toBe(200);
  };

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    tenant = await oauthTenant(app);
    other = await oauthTenant(app);
    await openIdClient(tenant);
    await openIdClient(other);
  });

  /** A user signed in through the hosted pages: the browser's jar, the ID token the app got, and a JSON session of the user. */
  const signedIn = async (within = tenant, client: TestClient = within.client) => {
    const username = `user-${serial++}`;
    const staff = await registerStaff(app, within.adminToken, {
      username,
      password: PASSWORD,
      role: 'OPERATOR',
      tenantId: within.tenantId,
    });
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, client, { scope: 'openid', nonce: 'n-1' });
    const back = await postForm(app, jar, 'hostedSignIn', { csrf: begun.csrf, username, password: PASSWORD }, origin);
    expect(back.status).toBe(303);
    const code = new URL(back.headers.Location ?? '').searchParams.get('code') ?? '';
    const fields = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: begun.verifier };
    const tokens = await app.request('oauth2Token', tokenRequest(client, fields));
    expect(tokens.status).toBe(200);
    const idToken = String(tokens.body.id_token);
    return { jar, idToken, sid: String(decodeJwt(idToken).sid), userId: staff.user.id as string, userToken: staff.token as string };
  };

  const logout = async (jar: CookieJar, query: Record<string, string>) =>
    jar.take(await app.request('oauth2Logout', { method: 'GET', headers: { accept: 'text/html', ...jar.header() }, query }));
  const logoutForm = async (jar: CookieJar, fields: Record<string, string>, from = origin) =>
    jar.take(
      await app.request('oauth2Logout', {
        method: 'POST',
        headers: { 'content-type': FORM, origin: from, ...jar.header() },
        body: new URLSearchParams(fields).toString(),
      }),
    );

  const sessionIds = async (userToken: string) => {
    const listed = await app.request('listSessions', { token: userToken });
    return (listed.body.data.sessions as Array<{ id: string }>).map((session) => session.id);
  };
  const expectPageHeaders = (response: Response) => {
    expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(response.headers['Cache-Control']).toBe('no-store');
    expect(response.headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['X-Frame-Options']).toBe('DENY');
  };
  const expectErrorPage = (response: Response, status: number, message: string) => {
    expect(response.status).toBe(status);
    expectPageHeaders(response);
    expect(response.headers.Location).toBeUndefined();
    expect(response.cookies).toBeUndefined();
    expect(String(response.body)).toContain(`<p class="error" role="alert">${message}</p>`);
  };
  const clearedCookie = '__Host-session=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax';

  it('ends the session of the hint and redirects to the registered URI with state; the session is gone and prompt=none needs a sign-in', async () => {
    const user = await signedIn();
    expect(await sessionIds(user.userToken)).toContain(user.sid);
    const cookie = user.jar.cookies.get('__Host-session') ?? '';
    const answer = await logout(user.jar, { id_token_hint: user.idToken, post_logout_redirect_uri: BYE, state: 'st 1' });
    expect(answer.status).toBe(302);
    expect(answer.headers.Location).toBe(`${BYE}?state=st+1`);
    expect(answer.headers['Cache-Control']).toBe('no-store');
    expect(answer.cookies).toEqual([clearedCookie]);
    expect(await sessionIds(user.userToken)).not.toContain(user.sid);
    // The cookie, had the browser kept it, names a dead session: prompt=none gets login_required.
    const kept = new CookieJar();
    kept.cookies.set('__Host-session', cookie);
    const again = await browserAuthorize(app, kept, tenant.client, { prompt: 'none' });
    expect(new URL(again.response.headers.Location ?? '').searchParams.get('error')).toBe('login_required');
    const trail = await app.request('adminListAudit', { token: tenant.adminToken, query: { type: 'signed_out', userId: user.userId } });
    expect(trail.body.data.events).toEqual([
      expect.objectContaining({
        type: 'signed_out',
        actor: { type: 'user', id: user.userId },
        outcome: 'success',
        details: { sessionId: user.sid, clientId: tenant.client.clientId },
      }),
    ]);
  });

  it('shows the signed-out page without a post-logout URI, and takes an expired hint', async () => {
    const user = await signedIn();
    const claims = claimsOf(user.idToken);
    const keys = await deps.keys.load();
    const expired = signJwt(keys, 'JWT', { ...claims, iat: Number(claims.iat) - 7200, exp: Number(claims.iat) - 3600 }, 'ES256');
    const answer = await logout(user.jar, { id_token_hint: expired });
    expect(answer.status).toBe(200);
    expectPageHeaders(answer);
    expect(String(answer.body)).toContain('<h1>Signed out</h1>');
    expect(answer.cookies).toEqual([clearedCookie]);
    expect(await sessionIds(user.userToken)).not.toContain(user.sid);
  });

  it('names the tenant by its display name on the confirmation and signed-out pages (docs/api.md 9.14)', async () => {
    const renamed = await app.request('adminUpdateTenant', { token: other.adminToken, body: { displayName: 'Other & Sons' } });
    expect(renamed.status).toBe(200);
    const user = await signedIn(other);
    const asked = await logout(user.jar, {});
    expect(String(asked.body)).toContain('Other &amp; Sons');
    const signedOut = await logoutForm(user.jar, { csrf: csrfOf(asked) });
    expect(signedOut.status).toBe(200);
    expect(String(signedOut.body)).toContain('<h1>Signed out</h1>');
    expect(String(signedOut.body)).toContain('Other &amp; Sons');
    expect(String(signedOut.body)).not.toContain(other.tenantId);
  });

  it('takes an RS256 hint, and the RP’s own POST form (303)', async () => {
    const user = await signedIn();
    const claims = claimsOf(user.idToken);
    const rs256 = signJwt(await deps.keys.load(), 'JWT', claims, 'RS256');
    expect(decodeProtectedHeader(rs256).alg).toBe('RS256');
    // A form from the RP's own site: no Origin check (the hint proves the session).
    const answer = await logoutForm(user.jar, { id_token_hint: rs256, post_logout_redirect_uri: BYE }, 'https://app.example.com');
    expect(answer.status).toBe(303);
    expect(answer.headers.Location).toBe(BYE);
    expect(await sessionIds(user.userToken)).not.toContain(user.sid);
  });

  it('signs out without a cookie: the redirect on a hint, or the signed-out page, and sets no cookie', async () => {
    const user = await signedIn();
    const jar = new CookieJar();
    const redirected = await logout(jar, { id_token_hint: user.idToken, post_logout_redirect_uri: BYE, state: 's' });
    expect([redirected.status, redirected.headers.Location, redirected.cookies]).toEqual([302, `${BYE}?state=s`, undefined]);
    const page = await logout(jar, {});
    expect([page.status, page.cookies]).toEqual([200, undefined]);
    expect(String(page.body)).toContain('<h1>Signed out</h1>');
  });

  it('never redirects without an id_token_hint: the signed-out page links to the registered URI, with state (RFC 9700 section 4.11.2)', async () => {
    // Anyone can make a tenant and register a client with any post-logout URI: a bare client_id proves nothing.
    const user = await signedIn();
    const query = { client_id: tenant.client.clientId, post_logout_redirect_uri: BYE, state: 'a&b' };
    const asked = await logout(user.jar, query);
    expect(String(asked.body)).toContain('<h1>Sign out?</h1>');
    const confirmed = await logoutForm(user.jar, { ...query, csrf: csrfOf(asked) });
    const withoutCookie = await logout(new CookieJar(), query);
    for (const answer of [confirmed, withoutCookie]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.Location).toBeUndefined();
      expectPageHeaders(answer);
      const body = String(answer.body);
      expect(body).toContain('<h1>Signed out</h1>');
      expect(body).toContain(`<a href="${BYE}?state=a%26b">Return to ${tenant.client.clientId} (app.example.com)</a>`);
    }
    expect(await sessionIds(user.userToken)).not.toContain(user.sid);
  });

  describe('refusals: the error page, never a redirect, and the session lives on', () => {
    let user: Awaited<ReturnType<typeof signedIn>>;
    beforeAll(async () => {
      user = await signedIn();
    });

    const forged = async (change: Record<string, string>, alg: 'ES256' | 'RS256' = 'ES256', ours = true) => {
      const keys = ours ? await deps.keys.load() : await generateKeySet('test-key-1', 'test-rsa-1');
      return signJwt(keys, 'JWT', { ...claimsOf(user.idToken), ...change }, alg);
    };

    it.each<[string, () => Promise<Record<string, string>>, string]>([
      [
        'an unregistered post-logout URI',
        async () => ({ id_token_hint: user.idToken, post_logout_redirect_uri: 'https://evil.example/bye' }),
        'Invalid post_logout_redirect_uri',
      ],
      [
        'the client’s redirect URI, which is no post-logout URI',
        async () => ({ id_token_hint: user.idToken, post_logout_redirect_uri: tenant.client.redirectUri }),
        'Invalid post_logout_redirect_uri',
      ],
      [
        'a registered URI with a suffix',
        async () => ({ id_token_hint: user.idToken, post_logout_redirect_uri: `${BYE}/../evil` }),
        'Invalid post_logout_redirect_uri',
      ],
      ['a post-logout URI without a client', async () => ({ post_logout_redirect_uri: BYE }), 'Invalid post_logout_redirect_uri'],
      [
        'a client_id other than the hint’s aud',
        async () => ({ id_token_hint: user.idToken, client_id: other.client.clientId, post_logout_redirect_uri: BYE }),
        'Invalid client',
      ],
      ['an unknown client_id', async () => ({ client_id: 'nobody', post_logout_redirect_uri: BYE }), 'Invalid client'],
      [
        'a hint with a broken signature',
        async () => ({ id_token_hint: `${user.idToken.slice(0, -4)}AAAA`, post_logout_redirect_uri: BYE }),
        'Invalid id_token_hint',
      ],
      [
        'a hint signed by a key of the same kid that is not ours',
        async () => ({ id_token_hint: await forged({}, 'ES256', false), post_logout_redirect_uri: BYE }),
        'Invalid id_token_hint',
      ],
      [
        'a hint of another issuer',
        async () => ({ id_token_hint: await forged({ iss: 'https://evil.example' }), post_logout_redirect_uri: BYE }),
        'Invalid id_token_hint',
      ],
      [
        'a hint for a client that does not exist',
        async () => ({ id_token_hint: await forged({ aud: 'nobody' }) }),
        'Invalid id_token_hint',
      ],
      [
        'a hint whose tenant is not its client’s',
        async () => ({ id_token_hint: await forged({ tenantId: other.tenantId }) }),
        'Invalid id_token_hint',
      ],
      [
        'an access token as the hint',
        async () => ({ id_token_hint: (await grantTokens(app, user.userToken, tenant.client)).access_token }),
        'Invalid id_token_hint',
      ],
      ['a hint that is no JWT', async () => ({ id_token_hint: 'not.a.jwt' }), 'Invalid id_token_hint'],
      ['an unknown parameter', async () => ({ id_token_hint: user.idToken, redirect_uri: BYE }), 'Invalid logout request'],
      ['an over-long state', async () => ({ id_token_hint: user.idToken, state: 's'.repeat(513) }), 'Invalid logout request'],
    ])('%s', async (_, query, message) => {
      expectErrorPage(await logout(user.jar, await query()), 400, message);
      expect(await sessionIds(user.userToken)).toContain(user.sid);
    });

    it('refuses a hint of another tenant’s session while this browser is signed in to this tenant', async () => {
      const stranger = await signedIn(other);
      const answer = await logout(user.jar, { id_token_hint: stranger.idToken, post_logout_redirect_uri: BYE });
      expectErrorPage(answer, 400, 'Invalid id_token_hint');
      expect(await sessionIds(user.userToken)).toContain(user.sid);
      expect(await sessionIds(stranger.userToken)).toContain(stranger.sid);
    });
  });

  describe('a request that does not prove the session: the user confirms', () => {
    it('asks, with the hint of another session, then ends this session after the confirmation (303 with state)', async () => {
      const mine = await signedIn();
      const theirs = await signedIn();
      const query = { id_token_hint: theirs.idToken, post_logout_redirect_uri: BYE, state: '"><script>alert(1)</script>' };
      const asked = await logout(mine.jar, query);
      expect(asked.status).toBe(200);
      expectPageHeaders(asked);
      expect(asked.headers['Content-Security-Policy']).toContain("form-action 'self' https://app.example.com;");
      expect(asked.cookies).toBeUndefined();
      const body = String(asked.body);
      expect(body).toContain('<h1>Sign out?</h1>');
      expect(body).not.toContain('<script>');
      expect(await sessionIds(mine.userToken)).toContain(mine.sid);
      const csrf = csrfOf(asked);
      expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const confirmed = await logoutForm(mine.jar, { ...query, csrf });
      expect(confirmed.status).toBe(303);
      expect(new URL(confirmed.headers.Location ?? '').searchParams.get('state')).toBe(query.state);
      expect(await sessionIds(mine.userToken)).not.toContain(mine.sid);
      // Only this browser's session ended, not the one the hint named.
      expect(await sessionIds(theirs.userToken)).toContain(theirs.sid);
    });

    it('asks without a hint, and refuses a confirmation from another origin or with another token', async () => {
      const user = await signedIn();
      const asked = await logout(user.jar, { client_id: tenant.client.clientId });
      expect(String(asked.body)).toContain('<h1>Sign out?</h1>');
      const csrf = csrfOf(asked);
      expectErrorPage(
        await logoutForm(user.jar, { client_id: tenant.client.clientId, csrf }, 'https://evil.example'),
        403,
        'Cross-site request refused',
      );
      expectErrorPage(
        await logoutForm(user.jar, { client_id: tenant.client.clientId, csrf: 'x'.repeat(43) }),
        403,
        'Cross-site request refused',
      );
      const another = await signedIn();
      const theirCsrf = csrfOf(await logout(another.jar, {}));
      expectErrorPage(await logoutForm(user.jar, { csrf: theirCsrf }), 403, 'Cross-site request refused');
      expectErrorPage(await logoutForm(user.jar, { csrf, extra: 'x' }), 400, 'Invalid form body');
      expect(await sessionIds(user.userToken)).toContain(user.sid);
      const confirmed = await logoutForm(user.jar, { client_id: tenant.client.clientId, csrf });
      expect(confirmed.status).toBe(200);
      expect(String(confirmed.body)).toContain('<h1>Signed out</h1>');
      expect(await sessionIds(user.userToken)).not.toContain(user.sid);
    });
  });

  describe('client registration and PATCH (docs/api.md 4.8, 9.11)', () => {
    it('registers post_logout_redirect_uris, refuses a bad one, and lets PATCH set id_token_signed_response_alg', async () => {
      const base = {
        client_secret: newSecret(),
        redirect_uri: 'https://app.example.com/callback',
        grant_types: 'authorization_code',
        scope: 'openid',
        tenant_id: tenant.tenantId,
      };
      const clientId = `logout-${serial++}`;
      const created = await app.request('createOAuth2Client', {
        token: tenant.adminToken,
        body: { ...base, client_id: clientId, post_logout_redirect_uris: `${BYE} ${BYE}` },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.client.post_logout_redirect_uris).toEqual([BYE]);
      const refused = await app.request('createOAuth2Client', {
        token: tenant.adminToken,
        body: { ...base, client_id: `logout-${serial++}`, post_logout_redirect_uris: 'javascript:alert(1)' },
      });
      expect(refused).toMatchObject({ status: 400, body: failure('Invalid post_logout_redirect_uri') });
      const pathParameters = { clientId };
      const patched = await app.request('updateOAuth2Client', {
        token: tenant.adminToken,
        pathParameters,
        body: { id_token_signed_response_alg: 'RS256' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.data.client).toMatchObject({ id_token_signed_response_alg: 'RS256', post_logout_redirect_uris: [BYE] });
      const read = await app.request('readOAuth2Client', { token: tenant.adminToken, pathParameters });
      expect(read.body.data.client.id_token_signed_response_alg).toBe('RS256');
      const bad = await app.request('updateOAuth2Client', {
        token: tenant.adminToken,
        pathParameters,
        body: { id_token_signed_response_alg: 'HS256' },
      });
      expect(bad.status).toBe(400);
    });
  });
});
