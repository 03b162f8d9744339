import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rename, stat } from 'node:fs/promises';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { type LocalStack, startLocalStack } from '../helpers/local-stack';

/** A front end allowed by CORS (the first of the stack's two origins). */
const FRONT_END = 'http://localhost:5173';
/** An answer's CORS headers and Vary, each as the one value it arrived as. */
const corsHeaders = (answer: Response) =>
  Object.fromEntries([...answer.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));

/** The service as `npm start` serves it (test/helpers/local-stack.ts). */
describe('the local stack (serverless-offline)', () => {
  let stack: LocalStack;
  let base: string;

  beforeAll(async () => {
    stack = await startLocalStack({ env: { CORS_ALLOWED_ORIGINS: `${FRONT_END}, https://admin.example.com` } });
    base = stack.base;
  }, 90_000);

  afterAll(() => stack?.stop());

  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const get = (path: string, token?: string) => fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  /** The session token of a new tenant's first ADMIN. */
  const adminToken = async () => {
    const registered = await post('/auth/register', {
      username: 'ada',
      password: 'e2e passphrase that is long',
      role: 'ADMIN',
      tenantId: uniqueTenant('e2e-admin'),
    });
    return ((await registered.json()) as { data: { token: string } }).data.token;
  };

  it('serves register → login → me → refresh → logout as the contract says', async () => {
    const tenantId = uniqueTenant('e2e');
    const password = 'e2e passphrase that is long';

    const registered = await post('/auth/register', { username: 'eve', password, role: 'ADMIN', tenantId });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('cache-control')).toBe('no-store');

    const login = await post('/auth/login', { username: 'eve', password, tenantId });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { data: { token: string; refreshToken: string; user: { id: string } } };

    const me = await get('/auth/me', session.data.token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      success: true,
      data: { user: { userId: session.data.user.id, username: 'eve', tenantId, role: 'ADMIN' } },
    });

    const refreshed = await post('/auth/refresh', { refreshToken: session.data.refreshToken });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { data: { token: string } };

    const logout = await post('/auth/logout', {}, next.data.token);
    expect(await logout.json()).toEqual({ success: true, data: { message: 'Logged out' } });
    const after = await get('/auth/me', next.data.token);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual(failure('Unauthorized'));
  });

  it('sets the device cookie at login, and a locked-out account still signs in with it (docs/api.md 10)', async () => {
    const tenantId = uniqueTenant('e2e-device');
    const password = 'e2e passphrase that is long';
    expect((await post('/auth/register', { username: 'dee', password, role: 'ADMIN', tenantId })).status).toBe(201);
    const login = await post('/auth/login', { username: 'dee', password, tenantId });
    expect(login.status).toBe(200);
    const setCookie = login.headers.get('set-cookie') ?? '';
    // serverless-offline (hapi) writes the attributes in its own order and adds Expires.
    const [pair = '', ...attributes] = setCookie.split(/;\s*/);
    expect(pair).toMatch(/^__Secure-device-[\w-]{16}=d1\.[\w.-]+$/);
    expect(attributes).toEqual(expect.arrayContaining(['Max-Age=31536000', 'Path=/auth/login', 'Secure', 'HttpOnly', 'SameSite=Strict']));
    for (let i = 0; i < 5; i++) expect((await post('/auth/login', { username: 'dee', password: `guess ${i}`, tenantId })).status).toBe(401);
    expect((await post('/auth/login', { username: 'dee', password, tenantId })).status).toBe(429);
    const withCookie = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `theme=dark; ${pair}` },
      body: JSON.stringify({ username: 'dee', password, tenantId }),
    });
    expect(withCookie.status).toBe(200);
  });

  it('answers 401 in the envelope without a token, and 400 for bad JSON', async () => {
    const me = await get('/auth/me');
    expect([me.status, await me.json()]).toEqual([401, failure('Unauthorized')]);
    const bad = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' });
    expect([bad.status, await bad.json()]).toEqual([400, failure('Invalid JSON body')]);
  });

  it('answers 415 UNSUPPORTED_CONTENT_TYPE for a JSON body sent as text/plain (no CORS preflight for that)', async () => {
    const body = JSON.stringify({ username: 'x', password: 'y', tenantId: 'z' });
    const plain = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect([plain.status, await plain.json()]).toEqual([415, failure('Unsupported content type')]);
  });

  it('serves MFA: enable TOTP, verify it, then login asks for and accepts a code', async () => {
    const tenantId = uniqueTenant('e2e-mfa');
    const password = 'e2e passphrase that is long';
    const registered = await post('/auth/register', { username: 'mia', password, role: 'ADMIN', tenantId });
    const { token } = ((await registered.json()) as { data: { token: string } }).data;

    const secret = new Secret({ size: 20 });
    const totp = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 });
    const enabled = await post('/auth/mfa/enable', { method: 'TOTP', secret: secret.base32 }, token);
    expect(enabled.status).toBe(200);
    expect(await enabled.json()).toMatchObject({
      success: true,
      data: { method: 'TOTP', status: 'pending', otpauthUri: expect.stringMatching(/^otpauth:\/\/totp\//) },
    });
    const verified = await post('/auth/mfa/verify', { method: 'TOTP', code: totp.generate() }, token);
    expect([verified.status, await verified.json()]).toEqual([200, { success: true, data: { message: 'MFA verified successfully' } }]);

    const withoutCode = await post('/auth/login', { username: 'mia', password, tenantId });
    expect([withoutCode.status, withoutCode.headers.get('x-mfa-methods')]).toEqual([401, 'TOTP']);
    expect(await withoutCode.json()).toEqual(failure('MFA code required'));
    // The code of the next step: the current one was just used by verifyMFA.
    const next = totp.generate({ timestamp: Date.now() + 30_000 });
    const withCode = await post('/auth/login', { username: 'mia', password, tenantId, mfaCode: next, mfaMethod: 'TOTP' });
    expect(withCode.status).toBe(200);
  });

  it('serves OAuth: metadata, client registration, client_credentials, introspection', async () => {
    const tenantId = uniqueTenant('e2e-oauth');
    const registered = await post('/auth/register', { username: 'olga', password: 'e2e passphrase that is long', role: 'ADMIN', tenantId });
    const { token } = ((await registered.json()) as { data: { token: string } }).data;

    const metadata = (await (await get('/.well-known/oauth-authorization-server')).json()) as Record<string, string>;
    expect(metadata).toMatchObject({
      issuer: base,
      token_endpoint: `${base}/oauth2/token`,
      introspection_endpoint: `${base}/oauth2/introspect`,
    });

    const clientId = `e2e-${Date.now()}`;
    const clientSecret = randomBytes(32).toString('base64url');
    const created = await post(
      '/oauth2/clients',
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uri: 'https://app.example.com/cb',
        grant_types: 'client_credentials',
        scope: 'orders:read',
        tenant_id: tenantId,
      },
      token,
    );
    expect(created.status).toBe(201);
    expect(JSON.stringify(await created.json())).not.toContain(clientSecret);

    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const form = (path: string, fields: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const issued = await form('/oauth2/token', { grant_type: 'client_credentials', scope: 'orders:read' });
    expect([issued.status, issued.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const { access_token } = (await issued.json()) as { access_token: string };
    const introspected = await form('/oauth2/introspect', { token: access_token });
    expect(await introspected.json()).toMatchObject({ active: true, client_id: clientId, scope: 'orders:read', tenantId });
    // An OAuth access token is not a session token.
    expect((await get('/auth/me', access_token)).status).toBe(401);
  });

  describe('CORS, answered by the functions as API Gateway passes it through (.serverless-plugins/offline-cors.cjs)', () => {
    const preflight = (origin: string) =>
      fetch(`${base}/auth/login`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });

    it.each([FRONT_END, 'https://admin.example.com'])(
      'answers a preflight from %s with the allowed methods and Vary: Origin',
      async (origin) => {
        const answer = await preflight(origin);
        expect([answer.status, corsHeaders(answer)]).toEqual([
          204,
          {
            'access-control-allow-origin': origin,
            'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
            'access-control-allow-headers': 'Content-Type, Authorization, X-Device-Token',
            'access-control-max-age': '600',
            'access-control-expose-headers': 'X-MFA-Methods, Retry-After',
            vary: 'Origin,accept-encoding',
          },
        ]);
      },
    );

    it('answers a preflight of the token endpoint from an origin a client lists (docs/api.md 16.2), and only there', async () => {
      const spa = 'https://spa.local-stack.example';
      const token = await adminToken();
      const { tenantId } = decodeJwt(token) as { tenantId: string };
      const registered = await post(
        '/oauth2/clients',
        {
          client_id: `spa-${tenantId}`,
          token_endpoint_auth_method: 'none',
          redirect_uri: `${spa}/callback`,
          grant_types: 'authorization_code',
          scope: 'openid',
          tenant_id: tenantId,
          allowed_origins: spa,
        },
        token,
      );
      expect(registered.status).toBe(201);
      const toToken = await fetch(`${base}/oauth2/token`, {
        method: 'OPTIONS',
        headers: { origin: spa, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect([toToken.status, corsHeaders(toToken)]).toEqual([
        204,
        {
          'access-control-allow-origin': spa,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'Content-Type, Authorization, DPoP',
          'access-control-max-age': '600',
          vary: 'Origin,accept-encoding',
        },
      ]);
      const toLogin = await preflight(spa);
      expect([toLogin.status, corsHeaders(toLogin)]).toEqual([204, { vary: 'Origin,accept-encoding' }]);
    });

    it('answers a preflight from another origin without CORS headers, still with Vary: Origin', async () => {
      const answer = await preflight('https://evil.example.com');
      expect([answer.status, corsHeaders(answer)]).toEqual([204, { vary: 'Origin,accept-encoding' }]);
    });

    it('sends each CORS header and Vary once on answers to an allowed origin, success or failure', async () => {
      const jwks = await fetch(`${base}/.well-known/jwks.json`, { headers: { origin: 'https://admin.example.com' } });
      const me = await fetch(`${base}/auth/me`, { headers: { origin: FRONT_END } });
      expect([jwks.status, corsHeaders(jwks)]).toEqual([
        200,
        {
          'access-control-allow-origin': 'https://admin.example.com',
          'access-control-expose-headers': 'X-MFA-Methods, Retry-After',
          vary: 'Origin',
        },
      ]);
      expect([me.status, corsHeaders(me)]).toEqual([
        401,
        { 'access-control-allow-origin': FRONT_END, 'access-control-expose-headers': 'X-MFA-Methods, Retry-After', vary: 'Origin' },
      ]);
    });

    it.each([
      ['another origin', { origin: 'https://evil.example.com' }],
      ['no origin', {}],
    ])('sends no CORS header to %s, and Vary: Origin once', async (_, headers) => {
      const me = await fetch(`${base}/auth/me`, { headers });
      expect([me.status, corsHeaders(me)]).toEqual([401, { vary: 'Origin' }]);
    });
  });

  it('keeps serving while `npm run outbox` runs: the script never rebuilds dist/, which the stack serves', async () => {
    const tenantId = uniqueTenant('e2e-outbox');
    const password = 'e2e passphrase that is long';
    const registered = await post('/auth/register', { username: 'otto', password, role: 'ADMIN', tenantId, email: 'otto@example.com' });
    expect(registered.status).toBe(201);
    const served = await stat('dist/functions/login.cjs');

    const outbox = spawn('npm', ['run', '-s', 'outbox', '--', '--tenant', tenantId, '--username', 'otto'], {
      env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), TABLE_NAME: inject('tableName') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    outbox.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    outbox.stderr.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const exited = new Promise<number | null>((done) => outbox.once('exit', done));
    let running = true;
    void exited.then(() => {
      running = false;
    });

    // Functions this file has not called yet: each is loaded from dist/ on its first request.
    const requests: Array<() => Promise<Response>> = [
      () => get('/.well-known/openid-configuration'),
      () => get('/oauth2/userinfo'),
      () => post('/auth/password/forgot', {}),
      () => post('/auth/passkeys/authentication/options', {}),
      () => post('/auth/login', { username: 'otto', password, tenantId }),
    ];
    const answers: Array<[number, unknown]> = [];
    for (let i = 0; running || i < requests.length; i++) {
      const answer = await requests[i % requests.length]?.();
      if (answer) answers.push([answer.status, await answer.json()]);
    }

    expect(await exited, printed).toBe(0);
    expect(printed).toMatch(/^EMAIL \(verify-email\) to otto@example\.com at \S+: \d{6}$/m);
    // Every answer is the function's own: no Lambda error, no failure of the server.
    for (const [status, body] of answers) {
      expect(status, JSON.stringify(body)).toBeLessThan(500);
      expect(JSON.stringify(body)).not.toMatch(/errorMessage|Cannot find module/);
    }
    expect(answers.find(([, body]) => JSON.stringify(body).includes('"issuer"'))).toEqual([200, expect.objectContaining({ issuer: base })]);
    expect(answers.filter(([status]) => status === 200).length).toBeGreaterThanOrEqual(2);
    const after = await stat('dist/functions/login.cjs');
    expect([after.ino, after.mtimeMs]).toEqual([served.ino, served.mtimeMs]);
  }, 60_000);

  it("answers a function that fails (here: its bundle cannot be loaded) with the service's 500 envelope, no path in it", async () => {
    // A function no other test of this file calls, so that it is loaded now, from a bundle that is gone.
    const bundle = 'dist/functions/remove-passkey.cjs';
    await rename(bundle, `${bundle}.away`);
    try {
      const answer = await fetch(`${base}/auth/passkeys/some-id`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await adminToken()}` },
      });
      expect([answer.status, answer.headers.get('content-type'), answer.headers.get('cache-control'), await answer.json()]).toEqual([
        500,
        'application/json; charset=utf-8',
        'no-store',
        failure('Internal server error'),
      ]);
    } finally {
      await rename(`${bundle}.away`, bundle);
    }
  });

  it('publishes the JWKS: the ES256 key and the RS256 key of ID tokens (docs/api.md 11.4)', async () => {
    const jwks = await get('/.well-known/jwks.json');
    expect(await jwks.json()).toEqual({
      keys: [
        expect.objectContaining({ kid: 'e2e-key', kty: 'EC', crv: 'P-256' }),
        expect.objectContaining({ kid: 'e2e-key-rs256', kty: 'RSA', alg: 'RS256' }),
      ],
    });
  });
});
