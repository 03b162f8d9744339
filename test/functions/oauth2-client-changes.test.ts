import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import {
  authorizationCode,
  createClient,
  grantTokens,
  type OAuthTenant,
  oauthTenant,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth';

/**
 * What was issued to a client follows the client's registration as it is now: a deleted
 * client's tokens are dead everywhere (docs/api.md 9.12), and a narrowed scope narrows
 * every token issued or described after the change (docs/api.md 9.11).
 */
describe('tokens of a deleted or narrowed client', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;
  /** May introspect every access token of the tenant (docs/api.md 4.14). */
  let resourceServer: TestClient;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app);
    resourceServer = { ...tenant.client, clientId: `${tenant.client.clientId}-rs` };
    const registered = await app.request('createOAuth2Client', {
      token: tenant.adminToken,
      body: {
        client_id: resourceServer.clientId,
        client_secret: resourceServer.clientSecret,
        redirect_uri: resourceServer.redirectUri,
        grant_types: 'client_credentials',
        scope: 'orders:read',
        tenant_id: tenant.tenantId,
        introspect_any: true,
      },
    });
    expect(registered.status).toBe(201);
  });

  const introspect = (who: TestClient, token: string) => app.request('introspect', tokenRequest(who, { token }));
  const userInfo = (token: string) => app.request('userInfo', { headers: { authorization: `Bearer ${token}` } });
  const clientOf = (scope: string) => createClient(app, tenant.adminToken, tenant.tenantId, { scope });
  const narrow = async (client: TestClient, scope: string) => {
    const changed = await app.request('updateOAuth2Client', {
      token: tenant.adminToken,
      pathParameters: { clientId: client.clientId },
      body: { scope },
    });
    expect(changed.status).toBe(200);
  };

  describe('a deleted client (docs/api.md 9.12)', () => {
    it('its access tokens are inactive to a resource server and refused at userinfo', async () => {
      const client = await clientOf('openid profile orders:read');
      const tokens = await grantTokens(app, tenant.adminToken, client);
      const clientToken = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'client_credentials', scope: 'orders:read' }),
      );
      expect([(await introspect(resourceServer, tokens.access_token)).body.active, (await userInfo(tokens.access_token)).status]).toEqual([
        true,
        200,
      ]);
      expect((await introspect(resourceServer, clientToken.body.access_token)).body.active).toBe(true);

      const deleted = await app.request('deleteOAuth2Client', { token: tenant.adminToken, pathParameters: { clientId: client.clientId } });
      expect(deleted.status).toBe(200);

      expect((await introspect(resourceServer, tokens.access_token)).body).toEqual({ active: false });
      expect((await introspect(resourceServer, clientToken.body.access_token)).body).toEqual({ active: false });
      const answer = await userInfo(tokens.access_token);
      expect([answer.status, answer.headers['WWW-Authenticate'], answer.body]).toEqual([
        401,
        'Bearer error="invalid_token"',
        failure('Invalid token'),
      ]);
    });
  });

  describe('a narrowed client (docs/api.md 9.11)', () => {
    it('a refresh issues only the scope the client still has, and its ID token only those claims', async () => {
      const client = await clientOf('openid profile orders:read');
      const tokens = await grantTokens(app, tenant.adminToken, client);
      expect(tokens.scope).toBe('openid profile orders:read');
      await narrow(client, 'openid orders:read');

      const refreshed = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
      );
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.scope).toBe('openid orders:read');
      expect(decodeJwt(refreshed.body.access_token).scope).toBe('openid orders:read');
      expect(decodeJwt(refreshed.body.id_token)).not.toHaveProperty('preferred_username');

      // Asking for a scope the client lost: 400 invalid_scope, and the refresh token stays usable.
      const asked = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'profile' }),
      );
      expect([asked.status, asked.body.error]).toEqual([400, 'invalid_scope']);
      const again = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'orders:read' }),
      );
      expect([again.status, again.body.scope]).toEqual([200, 'orders:read']);
    });

    it('introspection describes only the remaining scope, and userinfo releases only its claims', async () => {
      const client = await clientOf('openid profile orders:read');
      const tokens = await grantTokens(app, tenant.adminToken, client);
      expect((await userInfo(tokens.access_token)).body).toHaveProperty('preferred_username', 'admin');
      await narrow(client, 'openid orders:read');

      expect((await introspect(client, tokens.access_token)).body).toMatchObject({ active: true, scope: 'openid orders:read' });
      expect((await introspect(resourceServer, tokens.access_token)).body).toMatchObject({ active: true, scope: 'openid orders:read' });
      expect((await introspect(client, tokens.refresh_token)).body).toMatchObject({ active: true, scope: 'openid orders:read' });
      expect(await userInfo(tokens.access_token)).toMatchObject({ status: 200, body: { sub: tenant.adminId } });
      expect((await userInfo(tokens.access_token)).body).not.toHaveProperty('preferred_username');

      // Without openid: userinfo is no longer for this token (OIDC Core 5.3).
      await narrow(client, 'orders:read');
      const answer = await userInfo(tokens.access_token);
      expect([answer.status, answer.body]).toEqual([403, failure('Insufficient scope')]);
    });

    it('nothing left in common: the grant answers invalid_grant and its tokens are inactive', async () => {
      const client = await clientOf('orders:read');
      const tokens = await grantTokens(app, tenant.adminToken, client);
      await narrow(client, 'orders:write');
      expect((await introspect(client, tokens.access_token)).body).toEqual({ active: false });
      expect((await introspect(resourceServer, tokens.access_token)).body).toEqual({ active: false });
      expect((await introspect(client, tokens.refresh_token)).body).toEqual({ active: false });
      const refreshed = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
      );
      expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
      // The grant ended with the refusal: a retry is refused too, and not taken for a stolen token.
      const retried = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
      );
      expect([retried.status, retried.body.error]).toEqual([400, 'invalid_grant']);
      expect(deps.logs).not.toContainEqual(
        expect.objectContaining({ event: 'oauth_refresh_token_reuse_detected', clientId: client.clientId }),
      );
    });

    it('a code issued before the narrowing is redeemed for the remaining scope only', async () => {
      const client = await clientOf('openid profile orders:read');
      const { code, verifier } = await authorizationCode(app, tenant.adminToken, client);
      await narrow(client, 'orders:read');
      const redeemed = await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
      );
      expect([redeemed.status, redeemed.body.scope, redeemed.body.id_token]).toEqual([200, 'orders:read', undefined]);
    });
  });
});
