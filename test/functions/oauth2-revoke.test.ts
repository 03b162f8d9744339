import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { itemsUnder, scanTable } from '../helpers/isolated-table';
import { authorizationCode, createClient, form, type OAuthTenant, oauthTenant, type TestClient, tokenRequest } from '../helpers/oauth';

describe('POST /oauth2/revoke', () => {
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

  async function tokensFor(who: TestClient) {
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, who);
    const response = await app.request(
      'oauth2Token',
      tokenRequest(who, { grant_type: 'authorization_code', code, redirect_uri: who.redirectUri, code_verifier: verifier }),
    );
    return response.body as { access_token: string; refresh_token: string };
  }
  const active = async (who: TestClient, token: string) => (await app.request('introspect', tokenRequest(who, { token }))).body.active;
  const refresh = (who: TestClient, token: string) =>
    app.request('oauth2Token', tokenRequest(who, { grant_type: 'refresh_token', refresh_token: token }));

  it('revokes a refresh token and every access token of its grant (RFC 7009 2.1): 200, no body', async () => {
    const issued = await tokensFor(client);
    const response = await app.request('revoke', tokenRequest(client, { token: issued.refresh_token, token_type_hint: 'refresh_token' }));
    expect(response).toEqual({ status: 200, headers: expect.objectContaining({ 'Cache-Control': 'no-store' }), body: undefined });
    expect(await active(client, issued.refresh_token)).toBe(false);
    expect(await active(client, issued.access_token)).toBe(false);
    expect((await refresh(client, issued.refresh_token)).body).toEqual({ error: 'invalid_grant', error_description: 'Invalid grant' });
  });

  it('revokes an access token and the refresh token of its grant', async () => {
    const issued = await tokensFor(client);
    expect((await app.request('revoke', tokenRequest(client, { token: issued.access_token }, 'basic'))).status).toBe(200);
    expect(await active(client, issued.access_token)).toBe(false);
    expect((await refresh(client, issued.refresh_token)).status).toBe(400);
  });

  it('revokes a client_credentials token', async () => {
    const { access_token: token } = (await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).body;
    expect(await active(client, token)).toBe(true);
    await app.request('revoke', tokenRequest(client, { token }));
    expect(await active(client, token)).toBe(false);
  });

  it('revokes a stateless client_credentials token with a deny record under its jti, kept until the token expires (TTL = exp)', async () => {
    const { access_token: token } = (await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).body;
    const { jti, exp } = decodeJwt(token);
    const denyRecords = () => itemsUnder(inject('dynamodbEndpoint'), inject('tableName'), `T#${tenant.tenantId}#REVOKEDJTI#${jti}`);
    expect(await denyRecords()).toEqual([]);
    expect(await app.request('revoke', tokenRequest(client, { token }, 'basic'))).toMatchObject({ status: 200, body: undefined });
    const record = {
      pk: `T#${tenant.tenantId}#REVOKEDJTI#${jti}`,
      sk: 'REVOKED',
      clientId: client.clientId,
      revokedAt: Math.floor(deps.clock.now() / 1000),
      revokedReason: 'revoked_by_client:access_token',
      ttl: exp,
    };
    expect(await denyRecords()).toEqual([record]);
    expect(await active(client, token)).toBe(false);
    // Revoking again changes nothing (RFC 7009 2.2).
    expect((await app.request('revoke', tokenRequest(client, { token }))).status).toBe(200);
    expect(await denyRecords()).toEqual([record]);
    expect(JSON.stringify(await denyRecords())).not.toContain(token.split('.')[2]);
  });

  it("leaves another client's client_credentials token alone: no deny record, still active", async () => {
    const { access_token: token } = (await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).body;
    const { jti } = decodeJwt(token);
    for (const who of [await createClient(app, tenant.adminToken, tenant.tenantId), (await oauthTenant(app)).client]) {
      expect(await app.request('revoke', tokenRequest(who, { token }))).toMatchObject({ status: 200, body: undefined });
    }
    const records = (await scanTable(inject('dynamodbEndpoint'), inject('tableName'))).filter((item) =>
      String(item.pk).endsWith(`#REVOKEDJTI#${jti}`),
    );
    expect(records).toEqual([]);
    expect(await active(client, token)).toBe(true);
  });

  it("answers 200 for another client's token and leaves it alone (a client revokes only its own)", async () => {
    const issued = await tokensFor(client);
    const other = await createClient(app, tenant.adminToken, tenant.tenantId);
    const foreignTenant = (await oauthTenant(app)).client;
    for (const who of [other, foreignTenant]) {
      for (const token of [issued.access_token, issued.refresh_token]) {
        expect(await app.request('revoke', tokenRequest(who, { token }))).toMatchObject({ status: 200, body: undefined });
      }
    }
    expect(await active(client, issued.access_token)).toBe(true);
    expect((await refresh(client, issued.refresh_token)).status).toBe(200);
  });

  it('answers 200 for unknown or malformed tokens (RFC 7009 2.2)', async () => {
    for (const token of ['nonsense', `${'g'.repeat(22)}.0.${'s'.repeat(43)}`, 'a.b.c']) {
      expect(await app.request('revoke', tokenRequest(client, { token }))).toMatchObject({ status: 200, body: undefined });
    }
  });

  it.each<[string, () => Parameters<typeof app.request>[1], number, Record<string, unknown>]>([
    ['no client authentication', () => form({ token: 'x' }), 401, { error: 'invalid_client', error_description: 'Invalid client' }],
    [
      'a wrong secret',
      () => form({ token: 'x', client_id: client.clientId, client_secret: 'y'.repeat(43) }),
      401,
      { error: 'invalid_client', error_description: 'Invalid client' },
    ],
    [
      'an unknown client',
      () => form({ token: 'x', client_id: 'nobody', client_secret: 'y'.repeat(43) }),
      401,
      { error: 'invalid_client', error_description: 'Invalid client' },
    ],
    ['no token', () => tokenRequest(client, {}), 400, { error: 'invalid_request', error_description: 'Missing token' }],
  ])('refuses %s in RFC format', async (_, request, status, body) => {
    expect(await app.request('revoke', request())).toEqual({
      status,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
      body,
    });
  });

  it('refuses a JSON request (RFC 7009 is form-encoded) in the envelope', async () => {
    const response = await app.request('revoke', {
      body: { token: 'x', client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(response).toEqual({ status: 415, headers: expect.any(Object), body: failure('Unsupported content type') });
  });
});
