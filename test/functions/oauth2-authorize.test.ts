import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../lib/crypto/token-hash';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { createClient, type OAuthTenant, oauthTenant, pkcePair } from '../helpers/oauth';

describe('GET /oauth2/authorize', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let other: OAuthTenant;
  const { challenge } = pkcePair();

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app);
    other = await oauthTenant(app);
  });

  const query = (overrides: Record<string, string | undefined> = {}) => {
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: tenant.client.clientId,
      redirect_uri: tenant.client.redirectUri,
      scope: 'orders:read',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...overrides,
    };
    return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  };

  it('redirects (302) to the redirect URI with a 256-bit code, the state and the issuer, and stores only the code hash', async () => {
    const response = await app.request('oauth2Authorize', { token: tenant.adminToken, query: query() });
    expect(response).toEqual({
      status: 302,
      headers: expect.objectContaining({ Location: expect.any(String), 'Cache-Control': 'no-store' }),
      body: undefined,
    });
    const location = new URL(response.headers.Location!);
    expect(`${location.origin}${location.pathname}`).toBe(tenant.client.redirectUri);
    expect([...location.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe('http://localhost:3000');
    const code = location.searchParams.get('code')!;
    expect(Buffer.from(code, 'base64url')).toHaveLength(32);

    const now = Math.floor(deps.clock.now() / 1000);
    expect(await deps.store.authorizationCodes.find(tenant.tenantId, hashToken(code))).toEqual({
      hash: hashToken(code),
      tenantId: tenant.tenantId,
      clientId: tenant.client.clientId,
      redirectUri: tenant.client.redirectUri,
      userId: tenant.adminId,
      sessionId: expect.any(String),
      scope: ['orders:read'],
      codeChallenge: challenge,
      grantId: expect.any(String),
      createdAt: now,
      expiresAt: now + 60,
    });
    expect(deps.logText()).not.toContain(code);
  });

  it('keeps the query a redirect URI already has and encodes the state', async () => {
    const client = await createClient(app, tenant.adminToken, tenant.tenantId, {
      redirectUri: 'https://app.example.com/cb?tenant=a%20b&x',
    });
    const state = 'a&b=c d/é?#';
    const response = await app.request('oauth2Authorize', {
      token: tenant.adminToken,
      query: query({ client_id: client.clientId, redirect_uri: client.redirectUri, state }),
    });
    expect(response.status).toBe(302);
    const location = response.headers.Location!;
    expect(location).toMatch(
      /^https:\/\/app\.example\.com\/cb\?tenant=a%20b&x&code=[A-Za-z0-9_-]{43}&state=a%26b%3Dc\+d%2F%C3%A9%3F%23&iss=/,
    );
    expect(new URL(location).searchParams.get('state')).toBe(state);
  });

  it('grants the client its registered scope when none is asked, and leaves out state when none is given', async () => {
    const response = await app.request('oauth2Authorize', {
      token: tenant.adminToken,
      query: query({ scope: undefined, state: undefined }),
    });
    const location = new URL(response.headers.Location!);
    expect([...location.searchParams.keys()]).toEqual(['code', 'iss']);
    const code = await deps.store.authorizationCodes.find(tenant.tenantId, hashToken(location.searchParams.get('code')!));
    expect(code?.scope).toEqual(['orders:read', 'orders:write']);
  });

  it('answers 401 Unauthorized without identity, also with bad input', async () => {
    for (const spec of [{ query: query() }, { query: { response_type: 'token' } }, { query: query(), token: 'not.a.token' }]) {
      expect(await app.request('oauth2Authorize', spec)).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: failure('Unauthorized'),
      });
    }
  });

  describe('refusals, in the order of docs/api.md 4.6, never redirecting', () => {
    let noCodeGrant: string;
    beforeAll(async () => {
      noCodeGrant = (await createClient(app, tenant.adminToken, tenant.tenantId, { grantTypes: 'client_credentials' })).clientId;
    });

    it.each<[string, () => Record<string, string | undefined>, string]>([
      ['no client_id', () => ({ client_id: undefined }), 'client_id: Invalid input: expected string, received undefined'],
      ['an empty redirect_uri', () => ({ redirect_uri: '' }), 'redirect_uri: Too small: expected string to have >=1 characters'],
      ['no response_type', () => ({ response_type: undefined }), 'response_type: Invalid input: expected string, received undefined'],
      [
        'a malformed code_challenge',
        () => ({ code_challenge: 'short' }),
        'code_challenge: Invalid string: must match pattern /^[A-Za-z0-9_-]{43}$/',
      ],
      ['response_type token', () => ({ response_type: 'token' }), 'Unsupported response type'],
      [
        'response_type token and everything else wrong',
        () => ({ response_type: 'token', client_id: 'nobody', scope: 'admin' }),
        'Unsupported response type',
      ],
      ['an unknown client', () => ({ client_id: 'nobody' }), 'Invalid client'],
      [
        'a client of another tenant',
        () => ({ client_id: other.client.clientId, redirect_uri: other.client.redirectUri }),
        'Invalid client',
      ],
      [
        'an unknown client and a wrong redirect_uri',
        () => ({ client_id: 'nobody', redirect_uri: 'https://evil.example/cb' }),
        'Invalid client',
      ],
      ['an unregistered redirect_uri', () => ({ redirect_uri: 'https://evil.example/cb' }), 'Invalid redirect_uri'],
      ['a redirect_uri differing by a trailing slash', () => ({ redirect_uri: `${tenant.client.redirectUri}/` }), 'Invalid redirect_uri'],
      ['a redirect_uri differing in case', () => ({ redirect_uri: tenant.client.redirectUri.toUpperCase() }), 'Invalid redirect_uri'],
      ['a redirect_uri with another query', () => ({ redirect_uri: `${tenant.client.redirectUri}?next=evil` }), 'Invalid redirect_uri'],
      [
        'a wrong redirect_uri and a wrong scope',
        () => ({ redirect_uri: 'https://evil.example/cb', scope: 'admin' }),
        'Invalid redirect_uri',
      ],
      ['a scope beyond the client', () => ({ scope: 'orders:read admin' }), 'Invalid scope'],
      ['a malformed scope', () => ({ scope: 'orders:read\\x' }), 'Invalid scope'],
      ['a client without the authorization_code grant', () => ({ client_id: noCodeGrant }), 'Unauthorized client'],
      [
        'no code_challenge (PKCE is required)',
        () => ({ code_challenge: undefined, code_challenge_method: undefined }),
        'Missing code_challenge',
      ],
      ['code_challenge_method plain', () => ({ code_challenge_method: 'plain' }), 'Unsupported code_challenge_method'],
      ['no code_challenge_method (RFC 7636: plain)', () => ({ code_challenge_method: undefined }), 'Unsupported code_challenge_method'],
    ])('answers 400 for %s', async (_, overrides, error) => {
      const response = await app.request('oauth2Authorize', { token: tenant.adminToken, query: query(overrides()) });
      expect(response).toEqual({
        status: 400,
        headers: expect.not.objectContaining({ Location: expect.anything() }),
        body: failure(error),
      });
    });
  });

  it('never hands a user of tenant B a code for a client of tenant A', async () => {
    const response = await app.request('oauth2Authorize', { token: other.adminToken, query: query() });
    expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid client') });
  });
});
