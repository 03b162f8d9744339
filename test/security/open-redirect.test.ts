import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { createClient, newSecret, pkcePair, type TestClient } from '../helpers/oauth';

/**
 * Open redirects: the authorization endpoint redirects only to a URI
 * registered for the client, compared exactly (docs/api.md 4.6), and registration accepts
 * only absolute https URIs (http on loopback hosts), without fragment or user
 * information (docs/api.md 4.8). Every refusal is a 400 in the envelope with no Location.
 */
describe('open redirect attempts', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let client: TestClient;
  const { challenge } = pkcePair();

  beforeAll(async () => {
    deps = await testDeps();
    nearRealTime(deps);
    app = testApp(deps);
    tenantId = uniqueTenant('redirect');
    adminToken = (await registerAdmin(app, tenantId)).token;
    client = await createClient(app, adminToken, tenantId, { redirectUri: 'https://app.example.com/callback' });
  });

  const authorize = (redirectUri: string, extra: Record<string, string> = {}) =>
    app.request('oauth2Authorize', {
      token: adminToken,
      query: {
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...extra,
      },
    });
  const noRedirect = (error: string) => ({
    status: 400,
    headers: expect.not.objectContaining({ Location: expect.anything() }),
    body: failure(error),
  });

  it.each([
    'https://evil.example/callback',
    'https://app.example.com.evil.example/callback',
    'https://app.example.com@evil.example/callback',
    'https://evil.example/?https://app.example.com/callback',
    'https://evil.example#https://app.example.com/callback',
    '//evil.example/callback',
    '/callback',
    'https:app.example.com/callback',
    'https://app.example.com/callback/../../evil',
    'https://app.example.com/callback/',
    'https://app.example.com/callback?next=https://evil.example',
    'https://app.example.com/callback#',
    'https://app.example.com/callback#https://evil.example',
    'https://app.example.com:443/callback',
    'https://APP.example.com/callback',
    'HTTPS://app.example.com/callback',
    'http://app.example.com/callback',
    'https://app.example.com/Callback',
    'https://app.example.com/callback%2F..%2F..%2Fevil',
    'https://app.example.com/callback ',
    ' https://app.example.com/callback',
    'https://app.example.com/callback\t',
    'https://app.example.com/call\nback',
    'https://app.example.com/callback\r\nLocation: https://evil.example',
    'https://аpp.example.com/callback', // Cyrillic а
    'https://app.example.com%2eevil.example/callback',
    'https://app.example.com\\@evil.example/callback',
    'javascript://app.example.com/callback%0aalert(1)',
    'data:text/html,<script>location="https://evil.example"</script>',
  ])('answers 400 Invalid redirect_uri for %j, never redirecting', async (redirectUri) => {
    expect(await authorize(redirectUri)).toEqual(noRedirect('Invalid redirect_uri'));
  });

  // A thousand requests: beside the run's other files on two cores, they may take over the default 20 s.
  it('answers 1,000 random changes of the registered URI with 400 and no Location, unless the change gives the URI back', async () => {
    const registered = client.redirectUri;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .tuple(fc.nat(registered.length), fc.string({ minLength: 1, maxLength: 3 }))
            .map(([at, text]) => registered.slice(0, at) + text + registered.slice(at)),
          fc
            .tuple(fc.nat(registered.length - 1), fc.string({ minLength: 0, maxLength: 2 }))
            .map(([at, text]) => registered.slice(0, at) + text + registered.slice(at + 1)),
          fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })).map(([before, after]) => before + registered + after),
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
        ),
        async (candidate) => {
          const response = await authorize(candidate);
          if (candidate === registered) {
            expect(response.status).toBe(302);
            return;
          }
          expect(response).toEqual(noRedirect('Invalid redirect_uri'));
          refused++;
        },
      ),
      { numRuns: 1000 },
    );
    expect(refused).toBeGreaterThan(950);
  }, 60_000);

  it('keeps a hostile state inside its parameter: one code, the registered host, no header injection', async () => {
    const state = 'x&code=attacker-code&redirect_uri=https://evil.example/#\r\nLocation: https://evil.example';
    const response = await authorize(client.redirectUri, { state });
    expect(response.status).toBe(302);
    const location = response.headers.Location ?? '';
    expect(location).not.toMatch(/[\r\n]/);
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(client.redirectUri);
    expect(url.hash).toBe('');
    expect(url.searchParams.getAll('code')).toHaveLength(1);
    expect(url.searchParams.get('code')).not.toBe('attacker-code');
    expect(url.searchParams.get('state')).toBe(state);
    expect(url.searchParams.getAll('redirect_uri')).toEqual([]);
  });

  it.each([
    ['javascript:alert(1)'],
    ['data:text/html,hi'],
    ['http://evil.example/callback'],
    ['http://localhost.evil.example/callback'],
    ['http://127.0.0.1.evil.example/callback'],
    ['http://localhost@evil.example/callback'],
    ['https://user:pass@app.example.com/callback'],
    ['https://app.example.com/callback#fragment'],
    ['//evil.example/callback'],
    ['/callback'],
    ['https:app.example.com/callback'],
    ['https://app.example.com/call\nback'],
    ['https://app.example.com/callback https://evil.example/#x'],
    ['ftp://app.example.com/callback'],
    ['custom-scheme://callback'],
  ])('refuses to register the redirect URI %j: 400 Invalid redirect_uri', async (redirectUri) => {
    const response = await app.request('createOAuth2Client', {
      token: adminToken,
      body: {
        client_id: `c-${uniqueTenant('x')}`,
        client_secret: newSecret(),
        redirect_uri: redirectUri,
        grant_types: 'authorization_code',
        scope: 'orders:read',
        tenant_id: tenantId,
      },
    });
    expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid redirect_uri') });
  });

  it('accepts loopback http only on the loopback host itself, and redirects there exactly', async () => {
    const loopback = await createClient(app, adminToken, tenantId, { redirectUri: 'http://127.0.0.1:8765/cb' });
    const response = await app.request('oauth2Authorize', {
      token: adminToken,
      query: {
        response_type: 'code',
        client_id: loopback.clientId,
        redirect_uri: loopback.redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.Location ?? '').host).toBe('127.0.0.1:8765');
  });

  /** docs/api.md 11.12: RP-initiated logout sends the browser only to a post-logout URI the client registered, compared exactly. */
  describe('RP-initiated logout', () => {
    const BYE = 'https://app.example.com/bye';
    beforeAll(async () => {
      const pathParameters = { clientId: client.clientId };
      const body = { post_logout_redirect_uris: BYE };
      expect((await app.request('updateOAuth2Client', { token: adminToken, pathParameters, body })).status).toBe(200);
    });
    const logout = (uri: string, extra: Record<string, string> = {}) =>
      app.request('oauth2Logout', {
        method: 'GET',
        headers: { accept: 'text/html' },
        query: { client_id: client.clientId, post_logout_redirect_uri: uri, ...extra },
      });
    /** The signed-out page (200, no Location) and the href of its one link onward, as a browser would read it. */
    const signedOutWithLink = (response: { status: number; headers: Record<string, string>; body: unknown }, href?: string) => {
      expect(response.status).toBe(200);
      expect(response.headers.Location).toBeUndefined();
      const links = [...String(response.body).matchAll(/<a href="([^"]*)"/g)].map(([, raw]) =>
        (raw ?? '')
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      );
      expect(links).toHaveLength(1);
      if (href !== undefined) expect(links[0]).toBe(href);
      return links[0] ?? '';
    };
    const errorPage = (response: { status: number; headers: Record<string, string>; body: unknown }) => {
      expect(response.status).toBe(400);
      expect(response.headers.Location).toBeUndefined();
      expect(String(response.body)).toContain('<p class="error" role="alert">Invalid post_logout_redirect_uri</p>');
    };

    it.each([
      'https://evil.example/bye',
      'https://app.example.com.evil.example/bye',
      'https://app.example.com@evil.example/bye',
      '//evil.example/bye',
      '/bye',
      'https://app.example.com/bye/',
      'https://app.example.com/bye?next=https://evil.example',
      'https://app.example.com/bye#https://evil.example',
      'https://APP.example.com/bye',
      'http://app.example.com/bye',
      'https://app.example.com/bye\r\nLocation: https://evil.example',
      'https://app.example.com/callback',
      'javascript://app.example.com/bye%0aalert(1)',
    ])('answers %j with the error page, never redirecting', async (uri) => {
      errorPage(await logout(uri));
    });

    it('answers 300 random changes of the registered URI with the error page, unless the change gives the URI back', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc
              .tuple(fc.nat(BYE.length), fc.string({ minLength: 1, maxLength: 3 }))
              .map(([at, text]) => BYE.slice(0, at) + text + BYE.slice(at)),
            fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })).map(([before, after]) => before + BYE + after),
            fc.webUrl({ withQueryParameters: true, withFragments: true }),
          ),
          async (candidate) => {
            const response = await logout(candidate);
            if (candidate === BYE) signedOutWithLink(response, BYE);
            else if (candidate.length > 2048) expect(response.status).toBe(400);
            else errorPage(response);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('never redirects on a bare client_id (anyone can register one): the signed-out page links to the URI instead', async () => {
      signedOutWithLink(await logout(BYE, { state: 's' }), `${BYE}?state=s`);
    });

    it('keeps a hostile state inside its parameter, on the registered URI', async () => {
      const state = 'x&next=https://evil.example/#\r\nLocation: https://evil.example';
      const response = await logout(BYE, { state });
      const location = signedOutWithLink(response);
      expect(location).not.toMatch(/[\r\n]/);
      const url = new URL(location);
      expect([`${url.origin}${url.pathname}`, url.hash, url.searchParams.get('state'), url.searchParams.get('next')]).toEqual([
        BYE,
        '',
        state,
        null,
      ]);
    });

    it.each(['javascript:alert(1)', 'http://evil.example/bye', 'https://app.example.com/bye#x', '//evil.example/bye'])(
      'refuses to register the post-logout URI %j',
      async (uri) => {
        const response = await app.request('createOAuth2Client', {
          token: adminToken,
          body: {
            client_id: `c-${uniqueTenant('x')}`,
            client_secret: newSecret(),
            redirect_uri: 'https://app.example.com/callback',
            post_logout_redirect_uris: uri,
            grant_types: 'authorization_code',
            scope: 'orders:read',
            tenant_id: tenantId,
          },
        });
        expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid post_logout_redirect_uri') });
      },
    );
  });
});
