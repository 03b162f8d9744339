import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signOAuthAccessToken } from '../../lib/oauth/access-token';
import { cachedKeyProvider } from '../../lib/tokens/signing-keys';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { faultPlan, faultyStores } from '../helpers/faulty-stores';
import { authorizationCode, createClient, type OAuthTenant, oauthTenant, tokenRequest } from '../helpers/oauth';
import { containsSecret } from '../helpers/secret-search';

const OIDC_SCOPE = 'openid profile email orders:read';

/** docs/api.md 11: OpenID Connect across tenants, and what never leaves the service. */
describe('OpenID Connect across tenants', () => {
  let deps: TestDeps;
  let app: App;
  let a: OAuthTenant;
  let b: OAuthTenant;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    a = await oauthTenant(app, { scope: OIDC_SCOPE });
    b = await oauthTenant(app, { scope: OIDC_SCOPE });
  });

  const redeem = (tenant: OAuthTenant, code: string, verifier: string) =>
    app.request(
      'oauth2Token',
      tokenRequest(tenant.client, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: tenant.client.redirectUri,
        code_verifier: verifier,
      }),
    );

  it("refuses A's session at B's client: 400 Invalid client, no code", async () => {
    const answer = await app.request('oauth2Authorize', {
      token: a.adminToken,
      query: {
        response_type: 'code',
        client_id: b.client.clientId,
        redirect_uri: b.client.redirectUri,
        scope: 'openid',
        nonce: 'n',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      },
    });
    expect([answer.status, answer.body, answer.headers.Location]).toEqual([400, failure('Invalid client'), undefined]);
  });

  it("refuses A's openid code at B's client even with the same redirect URI and verifier: invalid_grant, no ID token", async () => {
    const { code, verifier } = await authorizationCode(app, a.adminToken, a.client, { scope: 'openid', nonce: 'n' });
    const answer = await redeem(b, code, verifier);
    expect([answer.status, answer.body]).toEqual([400, { error: 'invalid_grant', error_description: 'Invalid grant' }]);
    // The code is still A's to redeem: B's attempt spent nothing.
    expect((await redeem(a, code, verifier)).body).toMatchObject({ id_token: expect.any(String) });
  });

  it("answers userinfo for the token's own tenant only: a token naming B with A's grant and user is invalid_token", async () => {
    const { code, verifier } = await authorizationCode(app, a.adminToken, a.client, { scope: 'openid profile' });
    const tokens = (await redeem(a, code, verifier)).body;
    const claims = decodeJwt(tokens.access_token);
    // Signed with the service's own key (only a test holds it): everything A's but the tenant.
    const forged = signOAuthAccessToken(deps.keySet, {
      iss: deps.config.issuer,
      aud: String(claims.aud),
      client_id: a.client.clientId,
      sub: a.adminId,
      scope: 'openid profile',
      tenantId: b.tenantId,
      grant_id: String(claims.grant_id),
      iat: Number(claims.iat),
      jti: 'forged',
    });
    const refused = await app.request('userInfo', { headers: { authorization: `Bearer ${forged}` } });
    expect([refused.status, refused.body]).toEqual([401, failure('Invalid token')]);
    const own = await app.request('userInfo', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(own.body).toMatchObject({ sub: a.adminId, tenantId: a.tenantId });
    // An ID token is no access token: userinfo refuses it.
    const withIdToken = await app.request('userInfo', { headers: { authorization: `Bearer ${tokens.id_token}` } });
    expect([withIdToken.status, withIdToken.body]).toEqual([401, failure('Invalid token')]);
    // Nor does the session authorizer take one.
    expect((await app.request('me', { token: tokens.id_token })).status).toBe(401);
  });
});

describe('OpenID Connect secrets', () => {
  let deps: TestDeps;
  let app: App;
  let tenant: OAuthTenant;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
    tenant = await oauthTenant(app, { scope: OIDC_SCOPE });
  });

  it('logs no code, token or ID token of a whole OIDC flow, and no key material anywhere', async () => {
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, tenant.client, { scope: 'openid email', nonce: 'nonce-x' });
    const tokens = (
      await app.request(
        'oauth2Token',
        tokenRequest(tenant.client, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: tenant.client.redirectUri,
          code_verifier: verifier,
        }),
      )
    ).body;
    const refreshed = (
      await app.request('oauth2Token', tokenRequest(tenant.client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }))
    ).body;
    const info = await app.request('userInfo', { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    const discovery = await app.request('openIdConfiguration');
    const jwks = await app.request('jwks');
    const logs = deps.logText();
    for (const secret of [code, tokens.access_token, tokens.id_token, tokens.refresh_token, refreshed.id_token, refreshed.access_token]) {
      expect(containsSecret(logs, secret)).toBe(false);
    }
    const privateParts = [deps.keySet.signingKey, deps.keySet.rs256?.signingKey].flatMap((key) => {
      const jwk = key?.export({ format: 'jwk' }) ?? {};
      return [jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi].filter((part): part is string => typeof part === 'string');
    });
    expect(privateParts.length).toBe(7);
    const answers = JSON.stringify([tokens, refreshed, info.body, discovery.body, jwks.body]);
    for (const part of privateParts) {
      expect(containsSecret(logs, part)).toBe(false);
      expect(containsSecret(answers, part)).toBe(false);
    }
    for (const key of jwks.body.keys)
      expect(Object.keys(key).filter((name) => !['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'].includes(name))).toEqual([]);
    // userinfo answers claims, never the stored record: this ADMIN has no address, so `sub` alone.
    expect(info.body).toEqual({ sub: tenant.adminId });
  });
});

describe('OpenID Connect under a database fault', () => {
  it('reads the user for the ID token before the code is spent: a fault there leaves the code to a retry', async () => {
    const deps = nearRealTime(await testDeps());
    const plan = faultPlan();
    const app = testApp(deps);
    const tenant = await oauthTenant(app, { scope: OIDC_SCOPE });
    const faulty = testApp({ ...deps, store: faultyStores(deps.store, deps.mfaDelivery, plan).stores });
    const redeem = async () => {
      const { code, verifier } = await authorizationCode(app, tenant.adminToken, tenant.client, { scope: 'openid profile', nonce: 'n' });
      const request = tokenRequest(tenant.client, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: tenant.client.redirectUri,
        code_verifier: verifier,
      });
      return { request, send: () => faulty.request('oauth2Token', request) };
    };
    // A first redemption counts the calls: the user's read for the claims comes before the redemption's write.
    plan.reset();
    expect((await (await redeem()).send()).status).toBe(200);
    const userRead = plan.calls.lastIndexOf('users.findById') + 1;
    expect(userRead).toBeGreaterThan(0);
    expect(userRead).toBeLessThan(plan.calls.indexOf('authorizationCodes.redeem') + 1);

    const { send } = await redeem();
    plan.arm(userRead, 'before');
    const failed = await send();
    plan.disarm();
    expect([failed.status, failed.body]).toEqual([503, failure('Service unavailable')]);
    const retried = await send();
    expect([retried.status, decodeJwt(retried.body.id_token).nonce]).toEqual([200, 'n']);
  });

  it('refuses an RS256 client while the keys hold no RS256 key before the code is spent (500, logged)', async () => {
    const deps = nearRealTime(await testDeps());
    const app = testApp(deps);
    const tenant = await oauthTenant(app, { scope: OIDC_SCOPE });
    const client = await createClient(app, tenant.adminToken, tenant.tenantId, { scope: 'openid', idTokenAlg: 'RS256' });
    const esOnly = testApp({ ...deps, keys: cachedKeyProvider(async () => ({ ...deps.keySet, rs256: undefined })) });
    const { code, verifier } = await authorizationCode(app, tenant.adminToken, client, { scope: 'openid' });
    const request = tokenRequest(client, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    });
    const refused = await esOnly.request('oauth2Token', request);
    expect([refused.status, refused.body]).toEqual([500, failure('Internal server error')]);
    expect(deps.logText()).toContain('No active RS256 signing key');
    // The operator adds the key; the same code still works.
    const redeemed = await app.request('oauth2Token', request);
    expect([redeemed.status, decodeJwt(redeemed.body.id_token).aud]).toEqual([200, client.clientId]);
  });
});
