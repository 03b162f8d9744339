import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure as envelope } from '../helpers/failures';
import { scanTable } from '../helpers/isolated-table';
import {
  authorizationCode,
  basic,
  createClient,
  form,
  type OAuthTenant,
  oauthTenant,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth';

type Format = 'json' | 'form';
type Auth = 'post' | 'basic';

describe('POST /oauth2/token', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  let client: TestClient;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app);
    client = tenant.client;
  });

  /** A token request in either format; `post` puts the credentials in the body, `basic` in the header. */
  function token(format: Format, who: TestClient, fields: Record<string, string | undefined>, auth: Auth = 'post') {
    if (format === 'form') return app.request('oauth2Token', tokenRequest(who, fields, auth));
    const credentials = auth === 'post' ? { client_id: who.clientId, client_secret: who.clientSecret } : {};
    return app.request('oauth2Token', {
      body: { ...credentials, ...fields },
      ...(auth === 'basic' ? { headers: { authorization: basic(who.clientId, who.clientSecret) } } : {}),
    });
  }

  async function codeFor(who: TestClient = client, scope?: string) {
    return authorizationCode(app, tenant.adminToken, who, scope === undefined ? {} : { scope });
  }

  const redeem = (format: Format, who: TestClient, code: string, verifier: string, auth: Auth = 'post') =>
    token(format, who, { grant_type: 'authorization_code', code, redirect_uri: who.redirectUri, code_verifier: verifier }, auth);

  /** The whole failure answer of each format. */
  function failure(format: Format, status: number, message: string, code: string, headers: Record<string, string> = {}) {
    return format === 'json'
      ? { status, headers: expect.objectContaining({ 'Cache-Control': 'no-store', ...headers }), body: envelope(message) }
      : {
          status,
          headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers }),
          body: { error: code, error_description: message },
        };
  }

  const introspect = async (who: TestClient, value: string) =>
    (await app.request('introspect', form({ token: value, client_id: who.clientId, client_secret: who.clientSecret }))).body;

  describe('authorization_code', () => {
    it('answers the RFC way (form): 200, no-store, an at+jwt access token, a refresh token and the scope', async () => {
      const { code, verifier } = await codeFor(client, 'orders:read');
      const response = await redeem('form', client, code, verifier);
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({
          'Content-Type': 'application/json; charset=utf-8',
          'Cache-Control': 'no-store',
          Pragma: 'no-cache',
        }),
        body: {
          access_token: expect.any(String),
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: expect.any(String),
          scope: 'orders:read',
        },
      });
      const { access_token: accessToken, refresh_token: refreshToken } = response.body;
      expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', kid: 'test-key-1', typ: 'at+jwt' });
      const now = Math.floor(deps.clock.now() / 1000);
      expect(decodeJwt(accessToken)).toEqual({
        iss: 'http://localhost:3000',
        aud: client.clientId,
        client_id: client.clientId,
        sub: tenant.adminId,
        scope: 'orders:read',
        tenantId: tenant.tenantId,
        grant_id: expect.any(String),
        iat: now,
        exp: now + 3600,
        jti: expect.any(String),
      });
      expect(Buffer.from(refreshToken.split('.')[2], 'base64url')).toHaveLength(32);
    });

    it('answers a JSON request in the envelope (docs/api.md 5.4, real values)', async () => {
      const { code, verifier } = await codeFor();
      const response = await redeem('json', client, code, verifier);
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
        body: {
          success: true,
          data: {
            access_token: expect.any(String),
            token_type: 'Bearer',
            expires_in: 3600,
            refresh_token: expect.any(String),
            scope: 'orders:read orders:write',
          },
        },
      });
    });

    it.each<[Format]>([['form'], ['json']])('authenticates the client by HTTP Basic (%s), form-decoding id and secret', async (format) => {
      const odd = await createClient(app, tenant.adminToken, tenant.tenantId, { clientId: `odd:id%+${Date.now()}` });
      const { code, verifier } = await codeFor(odd);
      const response = await redeem(format, odd, code, verifier, 'basic');
      expect(response.status).toBe(200);
    });

    it('issues no refresh token to a client without the refresh_token grant', async () => {
      const codeOnly = await createClient(app, tenant.adminToken, tenant.tenantId, { grantTypes: 'authorization_code' });
      const { code, verifier } = await codeFor(codeOnly);
      const response = await redeem('form', codeOnly, code, verifier);
      expect(response.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'orders:read orders:write',
      });
    });

    it('does not burn the code on a wrong verifier or redirect URI: the right request still works', async () => {
      const { code, verifier } = await codeFor();
      expect((await redeem('form', client, code, 'x'.repeat(43))).body.error).toBe('invalid_grant');
      const wrongUri = await token('form', client, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://evil.example/cb',
        code_verifier: verifier,
      });
      expect(wrongUri.body.error).toBe('invalid_grant');
      expect((await redeem('form', client, code, verifier)).status).toBe(200);
    });

    it('refuses a code presented twice and revokes everything issued from it', async () => {
      const { code, verifier } = await codeFor();
      const first = await redeem('form', client, code, verifier);
      expect(first.status).toBe(200);
      expect(await introspect(client, first.body.access_token)).toMatchObject({ active: true });

      expect(await redeem('form', client, code, verifier)).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
      expect(await introspect(client, first.body.access_token)).toEqual({ active: false });
      expect(await introspect(client, first.body.refresh_token)).toEqual({ active: false });
      const refresh = await token('form', client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      expect(refresh).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'authorization_code_reuse_detected', clientId: client.clientId }));
    });

    it('lets exactly one of 5 concurrent redemptions of a code win, and then revokes its tokens (the code was used twice)', async () => {
      const { code, verifier } = await codeFor();
      const answers = await Promise.all(Array.from({ length: 5 }, () => redeem('form', client, code, verifier)));
      const winners = answers.filter((answer) => answer.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((answer) => answer.body.error === 'invalid_grant')).toHaveLength(4);
      expect(await introspect(client, winners[0]!.body.access_token)).toEqual({ active: false });
    });

    it('refuses the code after its 60 seconds', async () => {
      const { code, verifier } = await codeFor();
      deps.clock.advance(60);
      expect(await redeem('form', client, code, verifier)).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
    });

    it('refuses the code once the session it was issued in has ended (logout)', async () => {
      const local = await oauthTenant(app);
      const { code, verifier } = await authorizationCode(app, local.adminToken, local.client);
      await app.request('logout', { token: local.adminToken });
      expect(await redeem('form', local.client, code, verifier)).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
    });
  });

  describe('refresh_token', () => {
    it('rotates: a new refresh token each time, the old one retired', async () => {
      const { code, verifier } = await codeFor();
      const issued = (await redeem('form', client, code, verifier)).body;
      deps.clock.advance(10);
      const refreshed = await token('form', client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
      expect(refreshed).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
        body: {
          access_token: expect.any(String),
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: expect.any(String),
          scope: 'orders:read orders:write',
        },
      });
      expect(refreshed.body.refresh_token).not.toBe(issued.refresh_token);
      expect(decodeJwt(refreshed.body.access_token)).toMatchObject({
        sub: tenant.adminId,
        grant_id: decodeJwt(issued.access_token).grant_id,
      });
      expect(await introspect(client, issued.refresh_token)).toEqual({ active: false });
      expect(await introspect(client, refreshed.body.refresh_token)).toMatchObject({ active: true });
    });

    it('revokes the grant when a retired refresh token is presented again (reuse)', async () => {
      const { code, verifier } = await codeFor();
      const issued = (await redeem('form', client, code, verifier)).body;
      const second = (await token('form', client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).body;
      const reuse = await token('form', client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
      expect(reuse).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
      // The thief's reuse ends the family: the latest tokens stop too.
      const latest = await token('form', client, { grant_type: 'refresh_token', refresh_token: second.refresh_token });
      expect(latest).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
      expect(await introspect(client, second.access_token)).toEqual({ active: false });
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'oauth_refresh_token_reuse_detected', clientId: client.clientId }));
    });

    it('narrows the scope of the access token on request and keeps the grant whole; refuses a wider one without spending the token', async () => {
      const { code, verifier } = await codeFor();
      const issued = (await redeem('form', client, code, verifier)).body;
      const wider = await token('form', client, {
        grant_type: 'refresh_token',
        refresh_token: issued.refresh_token,
        scope: 'orders:read admin',
      });
      expect(wider).toEqual(failure('form', 400, 'Invalid scope', 'invalid_scope'));
      const narrow = await token('form', client, {
        grant_type: 'refresh_token',
        refresh_token: issued.refresh_token,
        scope: 'orders:read',
      });
      expect(narrow.body).toMatchObject({ scope: 'orders:read' });
      expect(decodeJwt(narrow.body.access_token).scope).toBe('orders:read');
      const again = await token('form', client, { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token });
      expect(again.body.scope).toBe('orders:read orders:write');
    });

    it('refuses a refresh token of another client without revoking it', async () => {
      const { code, verifier } = await codeFor();
      const issued = (await redeem('form', client, code, verifier)).body;
      const thief = await createClient(app, tenant.adminToken, tenant.tenantId);
      const stolen = await token('form', thief, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
      expect(stolen).toEqual(failure('form', 400, 'Invalid grant', 'invalid_grant'));
      expect((await token('form', client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).status).toBe(200);
    });
  });

  describe('client_credentials', () => {
    it('issues an access token for the client itself and no refresh token', async () => {
      const response = await token('form', client, { grant_type: 'client_credentials', scope: 'orders:read' }, 'basic');
      expect(response).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
        body: { access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'orders:read' },
      });
      expect(decodeJwt(response.body.access_token)).toMatchObject({
        sub: client.clientId,
        aud: client.clientId,
        client_id: client.clientId,
        tenantId: tenant.tenantId,
      });
      expect(await introspect(client, response.body.access_token)).toMatchObject({ active: true, sub: client.clientId });
    });

    it('grants the registered scope when none is asked (JSON)', async () => {
      const response = await token('json', client, { grant_type: 'client_credentials' });
      expect(response.body).toEqual({
        success: true,
        data: { access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'orders:read orders:write' },
      });
    });

    it('issues a stateless token: signed claims without grant_id, and nothing written to the table', async () => {
      const local = await oauthTenant(app);
      const itemsOfTenant = async () =>
        (await scanTable(inject('dynamodbEndpoint'), inject('tableName'))).filter(
          (item) => String(item.pk).startsWith(`T#${local.tenantId}#`) || item.tenantId === local.tenantId,
        );
      const before = await itemsOfTenant();
      const response = await token('form', local.client, { grant_type: 'client_credentials', scope: 'orders:read' }, 'basic');
      expect(response.status).toBe(200);
      const now = Math.floor(deps.clock.now() / 1000);
      expect(decodeProtectedHeader(response.body.access_token)).toEqual({ alg: 'ES256', kid: 'test-key-1', typ: 'at+jwt' });
      expect(decodeJwt(response.body.access_token)).toEqual({
        iss: 'http://localhost:3000',
        aud: local.client.clientId,
        client_id: local.client.clientId,
        sub: local.client.clientId,
        scope: 'orders:read',
        tenantId: local.tenantId,
        iat: now,
        exp: now + 3600,
        jti: expect.any(String),
      });
      expect(await itemsOfTenant()).toEqual(before);
    });

    it('refuses a wrong secret for a client it has just served from its cache, and still serves the right one', async () => {
      expect((await token('form', client, { grant_type: 'client_credentials' }, 'basic')).status).toBe(200);
      const last = client.clientSecret.slice(-1);
      const wrong = { ...client, clientSecret: `${client.clientSecret.slice(0, -1)}${last === 'A' ? 'B' : 'A'}` };
      expect(await token('form', wrong, { grant_type: 'client_credentials' }, 'basic')).toEqual(
        failure('form', 401, 'Invalid client', 'invalid_client', { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"' }),
      );
      expect(await token('json', wrong, { grant_type: 'client_credentials' })).toEqual(
        failure('json', 401, 'Invalid client', 'invalid_client'),
      );
      expect((await token('form', client, { grant_type: 'client_credentials' }, 'basic')).status).toBe(200);
      expect(
        deps.logs.filter((line) => line.event === 'oauth_client_authentication_failed' && line.clientId === client.clientId).length,
      ).toBeGreaterThanOrEqual(2);
    });
  });

  describe('rules 1–3 of docs/api.md 4.7 and validation', () => {
    it.each<[string, Record<string, string | undefined>, number, string, string]>([
      [
        'authorization_code without code',
        { grant_type: 'authorization_code', redirect_uri: 'https://app.example.com/callback' },
        400,
        'Missing required parameters',
        'invalid_request',
      ],
      [
        'authorization_code without redirect_uri',
        { grant_type: 'authorization_code', code: 'abc' },
        400,
        'Missing required parameters',
        'invalid_request',
      ],
      [
        'authorization_code with an empty code',
        { grant_type: 'authorization_code', code: '', redirect_uri: 'https://app.example.com/callback' },
        400,
        'Missing required parameters',
        'invalid_request',
      ],
      ['refresh_token without refresh_token', { grant_type: 'refresh_token' }, 400, 'Missing refresh token', 'invalid_request'],
      ['grant_type password', { grant_type: 'password' }, 400, 'Unsupported grant type', 'unsupported_grant_type'],
      ['grant_type implicit', { grant_type: 'implicit', code: 'x' }, 400, 'Unsupported grant type', 'unsupported_grant_type'],
      ['no grant_type', {}, 400, 'grant_type: Invalid input: expected string, received undefined', 'invalid_request'],
      ['an empty grant_type', { grant_type: '' }, 400, 'grant_type: Too small: expected string to have >=1 characters', 'invalid_request'],
    ])('%s', async (_, fields, status, message, code) => {
      for (const format of ['json', 'form'] as const) {
        expect(await token(format, client, fields)).toEqual(failure(format, status, message, code));
      }
    });

    it('refuses rules 1–3 of docs/api.md 4.7 before client authentication: a wrong secret with an unsupported grant gets the grant error', async () => {
      const wrong = { ...client, clientSecret: 'not-the-secret-but-long-enough-to-pass' };
      expect(await token('json', wrong, { grant_type: 'password' })).toEqual(
        failure('json', 400, 'Unsupported grant type', 'unsupported_grant_type'),
      );
    });

    it('requires the client credentials in a JSON body without Basic, as the seed does', async () => {
      const response = await app.request('oauth2Token', { body: { grant_type: 'client_credentials', client_secret: client.clientSecret } });
      expect(response).toEqual(failure('json', 400, 'client_id: Invalid input: expected string, received undefined', ''));
    });

    it('refuses a repeated parameter (RFC 6749 3.2) as invalid_request', async () => {
      const body = `grant_type=client_credentials&grant_type=password&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
      const response = await app.request('oauth2Token', { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response).toEqual(failure('form', 400, 'grant_type: Invalid input: expected string, received array', 'invalid_request'));
    });

    it('answers 413 for a body over 16 KiB in RFC format too', async () => {
      const response = await app.request('oauth2Token', { ...form({}), body: `grant_type=${'x'.repeat(17_000)}` });
      expect(response).toEqual(failure('form', 413, 'Request body too large', 'invalid_request'));
    });
  });

  describe('refusals (docs/api.md 4.7) in both formats', () => {
    let other: OAuthTenant;
    let codeOnly: TestClient;
    let sibling: TestClient;
    beforeAll(async () => {
      other = await oauthTenant(app);
      codeOnly = await createClient(app, tenant.adminToken, tenant.tenantId, { grantTypes: 'authorization_code' });
      sibling = await createClient(app, tenant.adminToken, tenant.tenantId);
    });

    type Row = [
      string,
      () => Promise<{ who: TestClient; fields: Record<string, string | undefined>; auth?: Auth; headers?: Record<string, string> }>,
      number,
      string,
      string,
      Record<string, string>?,
    ];
    const rows: Row[] = [
      [
        'a wrong client secret',
        async () => ({ who: { ...client, clientSecret: 'w'.repeat(43) }, fields: { grant_type: 'client_credentials' } }),
        401,
        'Invalid client',
        'invalid_client',
      ],
      [
        'a wrong client secret by Basic (with WWW-Authenticate)',
        async () => ({ who: { ...client, clientSecret: 'w'.repeat(43) }, fields: { grant_type: 'client_credentials' }, auth: 'basic' }),
        401,
        'Invalid client',
        'invalid_client',
        { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"' },
      ],
      [
        'an unknown client',
        async () => ({ who: { ...client, clientId: 'nobody-at-all' }, fields: { grant_type: 'client_credentials' } }),
        401,
        'Invalid client',
        'invalid_client',
      ],
      [
        'Basic and a body secret at once (RFC 6749 2.3.1)',
        async () => ({ who: client, fields: { grant_type: 'client_credentials', client_secret: client.clientSecret }, auth: 'basic' }),
        401,
        'Invalid client',
        'invalid_client',
        { 'WWW-Authenticate': expect.stringMatching(/^Basic /) as unknown as string },
      ],
      [
        'a malformed Basic header',
        async () => ({ who: client, fields: { grant_type: 'client_credentials' }, auth: 'basic', headers: { authorization: 'Basic !!!' } }),
        401,
        'Invalid client',
        'invalid_client',
      ],
      [
        'a grant the client is not registered for',
        async () => ({ who: codeOnly, fields: { grant_type: 'client_credentials' } }),
        400,
        'Unauthorized client',
        'unauthorized_client',
      ],
      [
        'a refresh token for a client without the refresh_token grant',
        async () => ({ who: codeOnly, fields: { grant_type: 'refresh_token', refresh_token: 'x' } }),
        400,
        'Unauthorized client',
        'unauthorized_client',
      ],
      [
        'an unknown code',
        async () => ({
          who: client,
          fields: {
            grant_type: 'authorization_code',
            code: 'no-such-code',
            redirect_uri: client.redirectUri,
            code_verifier: 'v'.repeat(43),
          },
        }),
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'a wrong PKCE verifier',
        async () => {
          const { code } = await codeFor();
          return {
            who: client,
            fields: { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: 'v'.repeat(43) },
          };
        },
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'no PKCE verifier',
        async () => {
          const { code } = await codeFor();
          return { who: client, fields: { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri } };
        },
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'a wrong redirect URI',
        async () => {
          const { code, verifier } = await codeFor();
          return {
            who: client,
            fields: { grant_type: 'authorization_code', code, redirect_uri: `${client.redirectUri}?x=1`, code_verifier: verifier },
          };
        },
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'a code of another client of the tenant',
        async () => {
          const { code, verifier } = await codeFor();
          return {
            who: sibling,
            fields: { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier },
          };
        },
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'a code presented by a client of another tenant',
        async () => {
          const { code, verifier } = await codeFor();
          return {
            who: other.client,
            fields: { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier },
          };
        },
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'a malformed refresh token',
        async () => ({ who: client, fields: { grant_type: 'refresh_token', refresh_token: 'abc' } }),
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'an unknown refresh token',
        async () => ({ who: client, fields: { grant_type: 'refresh_token', refresh_token: `${'g'.repeat(22)}.0.${'s'.repeat(43)}` } }),
        400,
        'Invalid grant',
        'invalid_grant',
      ],
      [
        'a scope beyond the client (client_credentials)',
        async () => ({ who: client, fields: { grant_type: 'client_credentials', scope: 'orders:read admin' } }),
        400,
        'Invalid scope',
        'invalid_scope',
      ],
    ];

    describe.each<[Format]>([['json'], ['form']])('%s', (format) => {
      it.each(rows)('answers %s', async (_, setup, status, message, code, headers = {}) => {
        const { who, fields, auth, headers: extra } = await setup();
        const response = extra
          ? await app.request(
              'oauth2Token',
              format === 'form' ? { ...form(fields), headers: { ...form({}).headers, ...extra } } : { body: fields, headers: extra },
            )
          : await token(format, who, fields, auth);
        expect(response).toEqual(failure(format, status, message, code, headers));
      });
    });
  });

  it('never lets the session authorizer accept an OAuth access token', async () => {
    const { code, verifier } = await codeFor();
    const { access_token: accessToken } = (await redeem('form', client, code, verifier)).body;
    expect(await app.identityOf(accessToken)).toBeNull();
    expect(await app.request('me', { token: accessToken })).toEqual({
      status: 401,
      headers: expect.any(Object),
      body: envelope('Unauthorized'),
    });
  });

  it('keeps codes, refresh tokens and client secrets out of the logs and the table', async () => {
    const local = await oauthTenant(app);
    const { code, verifier } = await authorizationCode(app, local.adminToken, local.client);
    const issued = (await redeem('form', local.client, code, verifier)).body;
    const refreshed = (await token('form', local.client, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).body;
    const secrets = [code, verifier, issued.refresh_token, refreshed.refresh_token, local.client.clientSecret];
    const items = (await scanTable(inject('dynamodbEndpoint'), inject('tableName'))).filter(
      (item) => String(item.pk).startsWith(`T#${local.tenantId}#`) || item.tenantId === local.tenantId,
    );
    expect(items.map((item) => item.sk)).toEqual(expect.arrayContaining(['CLIENT', 'CODE', 'GRANT']));
    const table = JSON.stringify(items);
    const logs = deps.logText();
    for (const secret of secrets) {
      expect(table).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
