import { createHash, randomBytes } from 'node:crypto';
import { Secret } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import * as adminApi from '../../lib/admin/api-schemas';
import * as envelope from '../../lib/http/envelope-schemas';
import { timeStep, totpCode } from '../../lib/mfa/totp';
import * as oauthApi from '../../lib/oauth/api-schemas';
import * as clients from '../../lib/oauth/client-api-schemas';
import * as sessionsApi from '../../lib/sessions/api-schemas';
import * as account from '../../lib/users/account-schemas';
import { testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';

/** The answer schemas, each next to its domain (lib/sessions, lib/oauth) or in the envelope's (lib/http). */
const api = { ...envelope, ...oauthApi, ...sessionsApi };

/** The issues of `body` against a documented schema: none when the document describes the answer. */
function issues(schema: z.ZodMiniType, body: unknown) {
  const parsed = schema.safeParse(body);
  return parsed.success ? [] : parsed.error.issues;
}

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

/**
 * Real answers of every route against the schemas docs/openapi.json is generated from
 * (lib/sessions/api-schemas.ts and lib/oauth/api-schemas.ts): strict objects, so a field the document does not name fails.
 */
describe('the documented answer schemas', () => {
  let deps: TestDeps;
  let app: ReturnType<typeof testApp>;
  const tenantId = uniqueTenant('docs');
  const password = 'a long unusual passphrase';
  let admin: { token: string; refreshToken: string };
  const client = {
    id: `docs-${randomBytes(6).toString('hex')}`,
    secret: randomBytes(32).toString('base64url'),
    redirectUri: 'https://app.example.com/cb',
  };

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    const registered = await app.request('register', { body: { username: 'admin', password, role: 'ADMIN', tenantId } });
    expect(registered.status).toBe(201);
    expect(issues(api.success(api.authPayload), registered.body)).toEqual([]);
    admin = registered.body.data;
  });

  it('login, refreshToken, me and logout answer the auth payload, the context and the message', async () => {
    const login = await app.request('login', { body: { username: 'admin', password, tenantId } });
    expect(login.status).toBe(200);
    expect(issues(api.success(api.authPayload), login.body)).toEqual([]);

    const refreshed = await app.request('refreshToken', { body: { refreshToken: login.body.data.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(issues(api.success(api.authPayload), refreshed.body)).toEqual([]);

    const reauthenticated = await app.request('reauthenticate', { token: refreshed.body.data.token, body: { password } });
    expect(reauthenticated.status).toBe(200);
    expect(issues(api.success(account.reauthenticated), reauthenticated.body)).toEqual([]);

    // On a user of its own: the change ends the admin's other sessions, which the tests below use.
    const other = await app.request('register', { body: { username: 'admin', password, role: 'ADMIN', tenantId: uniqueTenant('docs') } });
    const changed = await app.request('changePassword', {
      token: other.body.data.token,
      body: { currentPassword: password, newPassword: password },
    });
    expect(changed.status).toBe(200);
    expect(issues(api.success(api.message('Password changed')), changed.body)).toEqual([]);

    const me = await app.request('me', { token: refreshed.body.data.token });
    expect(me.status).toBe(200);
    expect(issues(api.success(api.me), me.body)).toEqual([]);

    const logout = await app.request('logout', { token: refreshed.body.data.token });
    expect(logout.status).toBe(200);
    expect(issues(api.success(api.message('Logged out')), logout.body)).toEqual([]);

    const failed = await app.request('login', { body: { username: 'admin', password: 'wrong', tenantId } });
    expect(failed.status).toBe(401);
    expect(issues(api.failure, failed.body)).toEqual([]);
  });

  it('enableMFA and verifyMFA answer the enrollment and the message', async () => {
    const other = await app.request('register', {
      token: admin.token,
      body: { username: 'mfa-user', password, role: 'OPERATOR', tenantId },
    });
    expect(other.status).toBe(201);
    const session = await app.request('login', { body: { username: 'mfa-user', password, tenantId } });
    const secret = new Secret({ size: 20 }).base32;
    const enabled = await app.request('enableMFA', { token: session.body.data.token, body: { method: 'TOTP', secret } });
    expect(enabled.status).toBe(200);
    expect(issues(api.success(api.mfaEnabled), enabled.body)).toEqual([]);

    const code = totpCode(secret, timeStep(deps.clock.now()));
    const verified = await app.request('verifyMFA', { token: session.body.data.token, body: { method: 'TOTP', code } });
    expect(verified.status).toBe(200);
    expect(issues(api.success(api.message('MFA verified successfully')), verified.body)).toEqual([]);
  });

  it('listMFA, generateRecoveryCodes and disableMFA answer the mfa object, the codes and the message', async () => {
    await app.request('register', { token: admin.token, body: { username: 'lifecycle-user', password, role: 'OPERATOR', tenantId } });
    const first = await app.request('login', { body: { username: 'lifecycle-user', password, tenantId } });
    const secret = new Secret({ size: 20 }).base32;
    await app.request('enableMFA', { token: first.body.data.token, body: { method: 'TOTP', secret } });
    const step = timeStep(deps.clock.now());
    await app.request('verifyMFA', { token: first.body.data.token, body: { method: 'TOTP', code: totpCode(secret, step) } });
    const login = await app.request('login', {
      body: { username: 'lifecycle-user', password, tenantId, mfaCode: totpCode(secret, step + 1) },
    });
    const token = login.body.data.token as string;
    await app.request('enableMFA', { token, body: { method: 'EMAIL', secret: 'lifecycle@example.com' } });

    const generated = await app.request('generateRecoveryCodes', { token });
    expect(generated.status).toBe(200);
    expect(issues(api.success(account.recoveryCodes), generated.body)).toEqual([]);
    const listed = await app.request('listMFA', { token });
    expect(listed.body.data.mfa.methods).toHaveLength(2);
    expect(issues(api.success(account.mfaList), listed.body)).toEqual([]);
    const disabled = await app.request('disableMFA', { token, body: { method: 'TOTP' } });
    expect(disabled.status).toBe(200);
    expect(issues(api.success(api.message('MFA disabled')), disabled.body)).toEqual([]);
  });

  it('the OAuth routes answer the client, the token payload, introspection and RFC errors', async () => {
    const created = await app.request('createOAuth2Client', {
      token: admin.token,
      body: {
        client_id: client.id,
        client_secret: client.secret,
        redirect_uri: client.redirectUri,
        grant_types: 'authorization_code refresh_token client_credentials',
        scope: 'orders:read',
        tenant_id: tenantId,
      },
    });
    expect(created.status).toBe(201);
    expect(issues(api.success(api.clientCreated), created.body)).toEqual([]);

    const verifier = randomBytes(32).toString('base64url');
    const authorized = await app.request('oauth2Authorize', {
      token: admin.token,
      query: {
        response_type: 'code',
        client_id: client.id,
        redirect_uri: client.redirectUri,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      },
    });
    expect(authorized.status).toBe(302);
    expect(authorized.body).toBeUndefined();
    const code = new URL(authorized.headers.Location ?? '').searchParams.get('code') ?? '';

    const credentials = { client_id: client.id, client_secret: client.secret };
    const redeemed = await app.request('oauth2Token', {
      body: { ...credentials, grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier },
    });
    expect(redeemed.status).toBe(200);
    expect(issues(api.success(api.oauthTokenPayload), redeemed.body)).toEqual([]);

    const refreshed = await app.request(
      'oauth2Token',
      form({ ...credentials, grant_type: 'refresh_token', refresh_token: redeemed.body.data.refresh_token }),
    );
    expect(refreshed.status).toBe(200);
    expect(issues(api.oauthTokenPayload, refreshed.body)).toEqual([]);

    for (const token of [refreshed.body.access_token, refreshed.body.refresh_token, 'not-a-token']) {
      const introspected = await app.request('introspect', form({ ...credentials, token }));
      expect(introspected.status).toBe(200);
      expect(issues(api.introspection, introspected.body)).toEqual([]);
    }

    const revoked = await app.request('revoke', form({ ...credentials, token: refreshed.body.refresh_token }));
    expect(revoked).toMatchObject({ status: 200, body: undefined });

    const reused = await app.request(
      'oauth2Token',
      form({ ...credentials, grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }),
    );
    expect(reused.status).toBe(400);
    expect(issues(api.oauthError, reused.body)).toEqual([]);
  });

  it('the OAuth client lifecycle answers the client list, the client and the message', async () => {
    const own = { id: `docs-life-${randomBytes(6).toString('hex')}`, secret: randomBytes(32).toString('base64url') };
    const created = await app.request('createOAuth2Client', {
      token: admin.token,
      body: {
        client_id: own.id,
        client_secret: own.secret,
        redirect_uri: client.redirectUri,
        grant_types: 'client_credentials',
        scope: 'orders:read',
        tenant_id: tenantId,
      },
    });
    expect(created.status).toBe(201);
    const pathParameters = { clientId: own.id };
    const answers = [
      [await app.request('listOAuth2Clients', { token: admin.token }), clients.clientList],
      [await app.request('readOAuth2Client', { token: admin.token, pathParameters }), clients.oneClient],
      [
        await app.request('updateOAuth2Client', {
          token: admin.token,
          pathParameters,
          body: { client_name: 'Docs', post_logout_redirect_uris: client.redirectUri },
        }),
        clients.oneClient,
      ],
      [
        await app.request('rotateOAuth2ClientSecret', {
          token: admin.token,
          pathParameters,
          body: { client_secret: randomBytes(32).toString('base64url') },
        }),
        clients.oneClient,
      ],
      [await app.request('deleteOAuth2Client', { token: admin.token, pathParameters }), api.message('OAuth2 client deleted')],
    ] as const;
    for (const [answer, schema] of answers) {
      expect(answer.status).toBe(200);
      expect(issues(api.success(schema), answer.body)).toEqual([]);
    }
    const missing = await app.request('readOAuth2Client', { token: admin.token, pathParameters });
    expect(missing.status).toBe(404);
    expect(issues(api.failure, missing.body)).toEqual([]);
  });

  it('jwks and metadata answer their documents', async () => {
    const jwks = await app.request('jwks');
    expect(jwks.status).toBe(200);
    expect(issues(api.jwks, jwks.body)).toEqual([]);

    const metadata = await app.request('metadata', {});
    expect(metadata.status).toBe(200);
    expect(issues(api.authorizationServer, metadata.body)).toEqual([]);
  });

  it('the shops and the audit trail answer their documents', async () => {
    const created = await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'docs-shop', name: 'Docs' } });
    expect(created.status).toBe(201);
    expect(issues(api.success(adminApi.oneShop), created.body)).toEqual([]);
    const listed = await app.request('adminListShops', { token: admin.token });
    expect(listed.status).toBe(200);
    expect(issues(api.success(adminApi.shopList), listed.body)).toEqual([]);
    const audit = await app.request('adminListAudit', { token: admin.token, query: { limit: '100' } });
    expect(audit.body.data.events.length).toBeGreaterThan(0);
    expect(issues(api.success(adminApi.auditPage), audit.body)).toEqual([]);
  });
});
