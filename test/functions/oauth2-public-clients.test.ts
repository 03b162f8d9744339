import { beforeAll, describe, expect, it } from 'vitest';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { basic, createClient, FORM, form, newSecret, type OAuthTenant, oauthTenant, pkcePair, type TestClient } from '../helpers/oauth';

/** docs/api.md 16.1: public clients (single-page and native apps), and 16.2: authorization by POST. */
describe('public clients', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let spa: TestClient;
  let counter = 0;

  const register = (fields: Record<string, unknown>) =>
    app.request('createOAuth2Client', {
      token: tenant.adminToken,
      body: {
        client_id: `public-${++counter}-${tenant.tenantId}`,
        token_endpoint_auth_method: 'none',
        redirect_uri: 'https://spa.example.com/callback',
        grant_types: 'authorization_code refresh_token',
        scope: 'orders:read openid',
        tenant_id: tenant.tenantId,
        ...fields,
      },
    });

  /** Registers a public client; `clientSecret` is empty: it has none. */
  async function publicClient(fields: Record<string, unknown> = {}): Promise<TestClient> {
    const response = await register(fields);
    if (response.status !== 201) throw new Error(`registration failed: ${JSON.stringify(response.body)}`);
    const { client_id, redirect_uris } = response.body.data.client;
    return { clientId: client_id, clientSecret: '', redirectUri: redirect_uris[0], tenantId: tenant.tenantId };
  }

  const authorize = (who: TestClient, query: Record<string, string>) =>
    app.request('oauth2Authorize', {
      token: tenant.adminToken,
      query: { response_type: 'code', client_id: who.clientId, redirect_uri: who.redirectUri, ...query },
    });

  /** A code for `who` at `redirectUri` (PKCE S256), or the failed answer. */
  async function codeFor(who: TestClient, redirectUri = who.redirectUri) {
    const { verifier, challenge } = pkcePair();
    const response = await authorize(who, { redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256' });
    const location = new URL(response.headers.Location ?? 'none:');
    return { response, location, code: location.searchParams.get('code') ?? '', verifier };
  }

  /** A token request of a public client: `client_id` in the form, no secret. */
  const token = (who: TestClient, fields: Record<string, string | undefined>) =>
    app.request('oauth2Token', form({ client_id: who.clientId, ...fields }));

  async function tokensOf(who: TestClient, redirectUri = who.redirectUri) {
    const { code, verifier } = await codeFor(who, redirectUri);
    const response = await token(who, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
    expect(response.status).toBe(200);
    return response.body as { access_token: string; refresh_token: string };
  }

  const invalidClient = { status: 401, body: { error: 'invalid_client', error_description: 'Invalid client' } };
  const invalidGrant = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid grant' } };

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app);
    spa = await publicClient();
  });

  describe('registration (docs/api.md 4.8, 16.1)', () => {
    it('registers a public client without a secret, and stores no secret hash', async () => {
      const response = await register({ client_id: 'spa-registered', allowed_origins: 'https://spa.example.com http://127.0.0.1:5173' });
      expect(response).toEqual({
        status: 201,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            message: 'OAuth2 client created successfully',
            client: {
              client_id: 'spa-registered',
              tenant_id: tenant.tenantId,
              redirect_uris: ['https://spa.example.com/callback'],
              grant_types: ['authorization_code', 'refresh_token'],
              scope: 'orders:read openid',
              token_endpoint_auth_method: 'none',
              allowed_origins: ['https://spa.example.com', 'http://127.0.0.1:5173'],
            },
          },
        },
      });
      const stored = await deps.store.oauthClients.find('spa-registered');
      expect(stored).toMatchObject({
        tokenEndpointAuthMethod: 'none',
        allowedOrigins: ['https://spa.example.com', 'http://127.0.0.1:5173'],
      });
      expect(stored).not.toHaveProperty('secretHash');
      const read = await app.request('readOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId: 'spa-registered' } });
      expect(read.body.data.client).toMatchObject({
        token_endpoint_auth_method: 'none',
        allowed_origins: ['https://spa.example.com', 'http://127.0.0.1:5173'],
      });
    });

    it('registers a native app with loopback and private-use redirect URIs', async () => {
      const uris = 'http://127.0.0.1/callback http://[::1]:8400/callback com.example.app:/oauth2redirect';
      const response = await register({ redirect_uri: uris });
      expect(response.status).toBe(201);
      expect(response.body.data.client.redirect_uris).toEqual(uris.split(' '));
    });

    it.each([
      [{ client_secret: newSecret() }, 'A public client has no secret'],
      [{ grant_types: 'authorization_code client_credentials' }, 'Unsupported grant type'],
      [{ redirect_uri: 'myapp:/callback' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'com.example.app:' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'com.example.app://user@host/cb' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'com.example.app:/cb#fragment' }, 'Invalid redirect_uri'],
      [{ redirect_uri: 'http://spa.example.com/callback' }, 'Invalid redirect_uri'],
      [{ allowed_origins: 'https://spa.example.com/path' }, 'Invalid allowed_origins'],
      [{ allowed_origins: 'http://spa.example.com' }, 'Invalid allowed_origins'],
      [{ allowed_origins: 'https://SPA.example.com' }, 'Invalid allowed_origins'],
      [{ allowed_origins: 'https://spa.example.com:443' }, 'Invalid allowed_origins'],
      [{ allowed_origins: '*' }, 'Invalid allowed_origins'],
      [{ allowed_origins: 'null' }, 'Invalid allowed_origins'],
    ])('refuses %j: 400 %s, and registers nothing', async (fields, message) => {
      const clientId = `refused-${++counter}`;
      expect(await register({ client_id: clientId, ...fields })).toMatchObject({ status: 400, body: failure(message) });
      expect(await deps.store.oauthClients.find(clientId)).toBeUndefined();
    });

    it('refuses a confidential client without a secret, and native apps’ URIs for a confidential client', async () => {
      const confidential = { token_endpoint_auth_method: 'client_secret_post' };
      expect(await register(confidential)).toMatchObject({ status: 400, body: failure('Client secret required') });
      expect(await register({ ...confidential, client_secret: newSecret(), redirect_uri: 'com.example.app:/cb' })).toMatchObject({
        status: 400,
        body: failure('Invalid redirect_uri'),
      });
    });
  });

  describe('changes (docs/api.md 9.11, 9.13)', () => {
    it('changes a public client’s origins and URIs, but never to client_credentials; a confidential one keeps strict URIs', async () => {
      const native = await publicClient();
      const patch = (clientId: string, body: Record<string, unknown>) =>
        app.request('updateOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId }, body });
      const changed = await patch(native.clientId, { redirect_uri: 'com.example.app:/cb', allowed_origins: 'https://a.example.com' });
      expect(changed.body.data.client).toMatchObject({
        redirect_uris: ['com.example.app:/cb'],
        allowed_origins: ['https://a.example.com'],
      });
      expect(await patch(native.clientId, { allowed_origins: '' })).toMatchObject({
        status: 200,
        body: { data: { client: { allowed_origins: [] } } },
      });
      expect(await patch(native.clientId, { grant_types: 'client_credentials' })).toMatchObject({
        status: 400,
        body: failure('Unsupported grant type'),
      });
      expect(await patch(tenant.client.clientId, { redirect_uri: 'com.example.app:/cb' })).toMatchObject({
        status: 400,
        body: failure('Invalid redirect_uri'),
      });
      expect((await deps.store.oauthClients.find(native.clientId))?.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    });

    it('refuses to rotate the secret of a public client: 400, and gives it none', async () => {
      const response = await app.request('rotateOAuth2ClientSecret', {
        token: tenant.adminToken,
        pathParameters: { clientId: spa.clientId },
        body: { client_secret: newSecret() },
      });
      expect(response).toMatchObject({ status: 400, body: failure('A public client has no secret') });
      expect(await deps.store.oauthClients.find(spa.clientId)).not.toHaveProperty('secretHash');
    });
  });

  describe('the token endpoint (docs/api.md 4.7, 16.1)', () => {
    it('redeems a code with client_id alone, and rotates the refresh token', async () => {
      const issued = await tokensOf(spa);
      const refreshed = await token(spa, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
      expect(refreshed).toMatchObject({ status: 200, body: { token_type: 'Bearer', refresh_token: expect.any(String) } });
      expect(refreshed.body.refresh_token).not.toBe(issued.refresh_token);
      // The retired one again is reuse: the grant ends.
      expect(await token(spa, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).toMatchObject(invalidGrant);
      expect(await token(spa, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token })).toMatchObject(invalidGrant);
    });

    it('refuses a public client that presents a secret, in the body or by HTTP Basic: 401 invalid_client', async () => {
      const { code, verifier } = await codeFor(spa);
      const fields = { grant_type: 'authorization_code', code, redirect_uri: spa.redirectUri, code_verifier: verifier };
      expect(await token(spa, { ...fields, client_secret: newSecret() })).toMatchObject(invalidClient);
      const byBasic = form(fields);
      expect(
        await app.request('oauth2Token', { ...byBasic, headers: { ...byBasic.headers, authorization: basic(spa.clientId, '') } }),
      ).toMatchObject(invalidClient);
      // The code was not spent by the refused requests.
      expect((await token(spa, fields)).status).toBe(200);
    });

    it('refuses a confidential client without its secret: 401 invalid_client', async () => {
      expect(await token(tenant.client, { grant_type: 'client_credentials' })).toMatchObject(invalidClient);
    });

    it('requires PKCE S256 of a public client: no challenge, plain, or no verifier are refused', async () => {
      expect(await authorize(spa, {})).toMatchObject({ status: 400, body: failure('Missing code_challenge') });
      const plain = await authorize(spa, { code_challenge: pkcePair().challenge, code_challenge_method: 'plain' });
      expect(plain).toMatchObject({ status: 400, body: failure('Unsupported code_challenge_method') });
      const { code } = await codeFor(spa);
      expect(await token(spa, { grant_type: 'authorization_code', code, redirect_uri: spa.redirectUri })).toMatchObject(invalidGrant);
    });

    it('answers unauthorized_client to client_credentials, even for a public client stored with that grant', async () => {
      expect(await token(spa, { grant_type: 'client_credentials' })).toMatchObject({
        status: 400,
        body: { error: 'unauthorized_client', error_description: 'Unauthorized client' },
      });
      const stored = await deps.store.oauthClients.find(spa.clientId);
      if (!stored) throw new Error('no client');
      const forced = {
        ...stored,
        clientId: `forced-${tenant.tenantId}`,
        grantTypes: [...stored.grantTypes, 'client_credentials' as const],
      };
      expect(await deps.store.oauthClients.create(forced)).toBe('created');
      expect(await token({ ...spa, clientId: forced.clientId }, { grant_type: 'client_credentials' })).toMatchObject({
        status: 400,
        body: { error: 'unauthorized_client' },
      });
    });

    it('refuses a public client’s refresh token presented by another client, and ends its grant', async () => {
      const issued = await tokensOf(spa);
      const other = await publicClient();
      expect(await token(other, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).toMatchObject(invalidGrant);
      expect(await token(spa, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).toMatchObject(invalidGrant);
      // A confidential client presenting it ends it too.
      const again = await tokensOf(spa);
      const thief = await createClient(app, tenant.adminToken, tenant.tenantId);
      const stolen = await app.request(
        'oauth2Token',
        form({
          client_id: thief.clientId,
          client_secret: thief.clientSecret,
          grant_type: 'refresh_token',
          refresh_token: again.refresh_token,
        }),
      );
      expect(stolen).toMatchObject(invalidGrant);
      expect(await token(spa, { grant_type: 'refresh_token', refresh_token: again.refresh_token })).toMatchObject(invalidGrant);
      const revoked = deps.logs.filter((entry) => entry.event === 'oauth_refresh_token_of_other_client');
      expect(revoked).toHaveLength(2);
    });
  });

  describe('revocation and introspection (RFC 7009, RFC 7662)', () => {
    it('lets a public client revoke its own refresh token with client_id alone, ending the grant', async () => {
      const issued = await tokensOf(spa);
      const revoked = await app.request('revoke', form({ client_id: spa.clientId, token: issued.refresh_token }));
      expect(revoked).toMatchObject({ status: 200 });
      expect(await token(spa, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).toMatchObject(invalidGrant);
    });

    it('refuses introspection to a public client: 401 invalid_client', async () => {
      const issued = await tokensOf(spa);
      expect(await app.request('introspect', form({ client_id: spa.clientId, token: issued.access_token }))).toMatchObject(invalidClient);
    });
  });

  describe('native apps’ redirect URIs (RFC 8252, docs/api.md 16.1)', () => {
    it.each([
      ['http://127.0.0.1/callback', 'http://127.0.0.1:51234/callback'],
      ['http://127.0.0.1:8000/callback', 'http://127.0.0.1:61000/callback'],
      ['http://[::1]/callback', 'http://[::1]:8080/callback'],
    ])('matches the loopback URI %s on any port: %s', async (registered, presented) => {
      const native = await publicClient({ redirect_uri: registered });
      const { response, location } = await codeFor(native, presented);
      expect(response.status).toBe(302);
      expect(`${location.origin}${location.pathname}`).toBe(presented);
      // The code is bound to the URI as presented (RFC 6749 4.1.3).
      await tokensOf(native, presented);
    });

    it.each([
      ['http://127.0.0.1/callback', 'http://127.0.0.1:51234/other'],
      ['http://127.0.0.1/callback', 'http://127.0.0.1:51234/callback?x=1'],
      ['http://127.0.0.1/callback', 'https://127.0.0.1:51234/callback'],
      ['http://127.0.0.1/callback', 'http://[::1]:51234/callback'],
      ['http://localhost:8000/callback', 'http://localhost:8001/callback'],
    ])('refuses %s presented as %s: 400 Invalid redirect_uri', async (registered, presented) => {
      const native = await publicClient({ redirect_uri: registered });
      expect((await codeFor(native, presented)).response).toMatchObject({ status: 400, body: failure('Invalid redirect_uri') });
    });

    it('keeps a confidential client’s loopback URI exact, port included', async () => {
      const confidential = await createClient(app, tenant.adminToken, tenant.tenantId, { redirectUri: 'http://127.0.0.1:8000/cb' });
      expect((await codeFor(confidential, 'http://127.0.0.1:8001/cb')).response).toMatchObject({
        status: 400,
        body: failure('Invalid redirect_uri'),
      });
    });

    it('redirects to a private-use URI scheme with the code', async () => {
      const native = await publicClient({ redirect_uri: 'com.example.app:/oauth2redirect' });
      const { response, code } = await codeFor(native);
      expect(response.status).toBe(302);
      expect(response.headers.Location).toMatch(/^com\.example\.app:\/oauth2redirect\?code=/);
      expect(code).not.toBe('');
      await tokensOf(native);
    });
  });

  describe('POST /oauth2/authorize (OpenID Connect Core 3.1.2.1, docs/api.md 16.2)', () => {
    const parameters = (who: TestClient) => ({
      response_type: 'code',
      client_id: who.clientId,
      redirect_uri: who.redirectUri,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
    });

    it('issues a code for the Bearer door’s form, exactly as by GET', async () => {
      const response = await app.request('oauth2Authorize', { method: 'POST', token: tenant.adminToken, ...form(parameters(spa)) });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.Location ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(spa.redirectUri);
      expect(location.searchParams.get('state')).toBe('xyz');
      expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('checks the form as the query: a plain challenge is refused', async () => {
      const response = await app.request('oauth2Authorize', {
        method: 'POST',
        token: tenant.adminToken,
        ...form({ ...parameters(spa), code_challenge_method: 'plain' }),
      });
      expect(response).toMatchObject({ status: 400, body: failure('Unsupported code_challenge_method') });
    });

    it('answers 401 without a token and 415 to a JSON body', async () => {
      expect(await app.request('oauth2Authorize', { method: 'POST', ...form(parameters(spa)) })).toMatchObject({
        status: 401,
        body: failure('Unauthorized'),
      });
      const json = await app.request('oauth2Authorize', { method: 'POST', token: tenant.adminToken, body: parameters(spa) });
      expect(json).toMatchObject({ status: 415, body: failure('Unsupported content type') });
    });

    it('opens the hosted sign-in for a browser’s form POST', async () => {
      const response = await app.request('oauth2Authorize', {
        method: 'POST',
        body: new URLSearchParams(parameters(spa)).toString(),
        headers: { 'content-type': FORM, accept: 'text/html' },
      });
      expect(response.status).toBe(200);
      expect(response.headers['Content-Type']).toMatch(/^text\/html/);
      expect(String(response.body)).toContain('name="username"');
      const refused = await app.request('oauth2Authorize', {
        method: 'POST',
        body: new URLSearchParams({ ...parameters(spa), redirect_uri: 'https://evil.example/cb' }).toString(),
        headers: { 'content-type': FORM, accept: 'text/html' },
      });
      expect(refused.status).toBe(400);
      expect(refused.headers.Location).toBeUndefined();
    });
  });
});
