import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeHandler as makeMe, response as meAnswer } from '../../functions/me';
import { UpdateCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { signAccessToken } from '../../lib/tokens/access-token';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { call } from '../helpers/http';
import { localDynamo } from '../helpers/local-dynamo';
import { activateTotp } from '../helpers/mfa';

const PASSWORD = 'correct horse battery';

describe('sessions', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    tenantId = uniqueTenant();
    await registerAdmin(app, tenantId, 'root', PASSWORD);
  });

  async function login(username = 'root') {
    const response = await app.request('login', { body: { username, password: PASSWORD, tenantId } });
    expect(response.status).toBe(200);
    return response.body.data as { token: string; refreshToken: string; user: { id: string } };
  }

  describe('POST /auth/refresh', () => {
    it('rotates: a new pair for the same session, with the stored user', async () => {
      const first = await login();
      deps.clock.advance(60);
      const response = await app.request('refreshToken', { body: { refreshToken: first.refreshToken } });
      expect(response.status).toBe(200);
      expect(response.headers['Cache-Control']).toBe('no-store');
      expect(response.body).toEqual({
        success: true,
        data: {
          token: expect.any(String),
          refreshToken: expect.any(String),
          expiresIn: 900,
          user: { id: first.user.id, username: 'root', role: 'ADMIN', tenantId, shopId: 'default' },
        },
      });
      const next = response.body.data;
      expect(next.refreshToken).not.toBe(first.refreshToken);
      expect(decodeJwt(next.token).sid).toBe(decodeJwt(first.token).sid);
      expect(decodeJwt(next.token).amr).toEqual(['pwd']);
      // The successor works, and so on down the chain.
      const third = await app.request('refreshToken', { body: { refreshToken: next.refreshToken } });
      expect(third.status).toBe(200);
    });

    it('treats a retired token presented again as reuse: 401 and the whole session is revoked', async () => {
      const first = await login();
      const second = (await app.request('refreshToken', { body: { refreshToken: first.refreshToken } })).body.data;
      expect(await app.identityOf(second.token)).not.toBeNull();

      const reuse = await app.request('refreshToken', { body: { refreshToken: first.refreshToken } });
      expect(reuse).toMatchObject({ status: 401, body: failure('Invalid refresh token') });
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'refresh_token_reuse_detected', tenantId, userId: first.user.id }));

      // Everything of the session stops working from the next request on.
      expect(await app.identityOf(second.token)).toBeNull();
      expect(await app.identityOf(first.token)).toBeNull();
      expect((await app.request('refreshToken', { body: { refreshToken: second.refreshToken } })).status).toBe(401);
      expect((await app.request('me', { token: second.token })).status).toBe(401);
    });

    it('lets exactly one of two concurrent refreshes with the same token win', async () => {
      const { refreshToken } = await login();
      const answers = await Promise.all([1, 2, 3].map(() => app.request('refreshToken', { body: { refreshToken } })));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 401 && r.body.error === 'Invalid refresh token')).toHaveLength(2);
    });

    it('shows a role change at the next refresh', async () => {
      const tenant = uniqueTenant();
      const admin = await registerAdmin(app, tenant, 'boss', PASSWORD);
      const created = {
        body: {
          data: await registerStaff(app, admin.token, { username: 'worker', password: PASSWORD, role: 'OPERATOR', tenantId: tenant }),
        },
      };
      const { doc, table } = localDynamo({ tableName: deps.config.tableName });
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.user(tenant, created.body.data.user.id),
          UpdateExpression: 'SET #role = :role',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':role': 'MANAGER' },
        }),
      );
      const response = await app.request('refreshToken', { body: { refreshToken: created.body.data.refreshToken } });
      expect(response.body.data.user.role).toBe('MANAGER');
      expect(decodeJwt(response.body.data.token).role).toBe('MANAGER');
    });

    it('ends sessions 30 days after login at the latest', async () => {
      const local = await testDeps();
      const localApp = testApp(local);
      let { refreshToken } = (await localApp.request('login', { body: { username: 'root', password: PASSWORD, tenantId } })).body.data;
      for (let day = 0; day < 29; day++) {
        local.clock.advance(24 * 3600);
        const response = await localApp.request('refreshToken', { body: { refreshToken } });
        expect(response.status).toBe(200);
        refreshToken = response.body.data.refreshToken;
      }
      local.clock.advance(24 * 3600);
      const expired = await localApp.request('refreshToken', { body: { refreshToken } });
      expect(expired).toMatchObject({ status: 401, body: failure('Invalid refresh token') });
    });

    it.each([
      ['garbage', 'not-a-token'],
      ['a well-formed token of no session', 'dGVuYW50.c2Vzc2lvbg.0.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['a forged secret for a real session', 'forged'],
    ])('answers 401 Invalid refresh token for %s', async (_, token) => {
      let refreshToken = token;
      if (token === 'forged') {
        const real = (await login()).refreshToken.split('.');
        real[3] = 'A'.repeat(43);
        refreshToken = real.join('.');
      }
      const response = await app.request('refreshToken', { body: { refreshToken } });
      expect(response).toMatchObject({ status: 401, body: failure('Invalid refresh token') });
    });

    it('does not revoke a session when someone presents a forged token for it', async () => {
      const { token, refreshToken } = await login();
      const forged = refreshToken.split('.');
      forged[3] = 'B'.repeat(43);
      await app.request('refreshToken', { body: { refreshToken: forged.join('.') } });
      expect(await app.identityOf(token)).not.toBeNull();
      expect((await app.request('refreshToken', { body: { refreshToken } })).status).toBe(200);
    });

    it('answers 400 for a missing refresh token', async () => {
      const response = await app.request('refreshToken', { body: {} });
      expect(response).toMatchObject({
        status: 400,
        body: failure('refreshToken: Invalid input: expected string, received undefined'),
      });
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the caller session: its access and refresh tokens stop working at once', async () => {
      const { token, refreshToken } = await login();
      const response = await app.request('logout', { token });
      expect(response).toMatchObject({ status: 200, body: { success: true, data: { message: 'Logged out' } } });
      expect((await app.request('me', { token })).status).toBe(401);
      expect((await app.request('refreshToken', { body: { refreshToken } })).status).toBe(401);
      expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'logout', tenantId }));
    });

    it('leaves the other sessions of the user alone', async () => {
      const one = await login();
      const two = await login();
      await app.request('logout', { token: one.token });
      expect((await app.request('me', { token: two.token })).status).toBe(200);
    });

    it('answers 401 without identity', async () => {
      expect(await app.request('logout', {})).toMatchObject({ status: 401, body: failure('Unauthorized') });
    });
  });

  describe('GET /auth/me', () => {
    it('answers the request context', async () => {
      const { token, user } = await login();
      const response = await app.request('me', { token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        data: {
          user: {
            userId: user.id,
            username: 'root',
            role: 'ADMIN',
            tenantId,
            shopId: 'default',
            sessionId: decodeJwt(token).sid,
            amr: ['pwd'],
            authTime: decodeJwt(token).auth_time,
          },
        },
      });
    });

    // docs/api.md 4.9: the documented answer (MeEnvelope) holds for every kind of session.
    it('answers what its response schema describes, for password, passkey and TOTP sessions', async () => {
      const { token: adminToken } = await login();
      const { token } = await registerStaff(app, adminToken, { username: 'mina', password: PASSWORD, role: 'ANALYST', tenantId });
      const passkeys = softwareAuthenticator({ backupEligible: true });
      const creation = (await app.request('passkeyRegistrationOptions', { token, body: {} })).body.data.options;
      const registered = await app.request('passkeyRegistration', { token, body: { credential: passkeys.create(creation).response } });
      expect(registered.status).toBe(201);
      const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: 'mina' } })).body.data.options;
      const passkey = await app.request('passkeyAuthentication', { body: { tenantId, credential: passkeys.get(request) } });
      expect(passkey.status).toBe(200);
      const amrs: unknown[] = [];
      const ask = async (session: string) => {
        const answer = await app.request('me', { token: session });
        expect(answer.status).toBe(200);
        expect(meAnswer.safeParse(answer.body.data).error).toBeUndefined();
        amrs.push(answer.body.data.user.amr);
      };
      await ask(token);
      await ask(passkey.body.data.token);
      // Activating the first method ends the other sessions (docs/api.md 4.5): the passkey's is asked first.
      const { code } = await activateTotp(app, deps, token);
      const totp = await app.request('login', { body: { username: 'mina', password: PASSWORD, tenantId, mfaCode: code() } });
      expect(totp.status).toBe(200);
      await ask(totp.body.data.token);
      expect(amrs).toEqual([['pwd'], ['swk', 'user'], ['pwd', 'otp']]);
    });

    // `sms` is an RFC 8176 method no session of ours records (lib/caller.ts), so no access token of ours carries it.
    it('answers 401 for a token signed with our key whose amr names a method no session carries', async () => {
      const { token } = await login();
      const claims = decodeJwt(token);
      const settings = { issuer: deps.config.issuer, audience: deps.config.accessTokenAudience, ttlSeconds: 900 };
      const identity = {
        userId: String(claims.sub),
        username: 'root',
        role: 'ADMIN' as const,
        tenantId,
        shopId: 'default',
        sessionId: String(claims.sid),
        amr: ['pwd' as const],
        authTime: Number(claims.auth_time),
      };
      const signed = async (amr: string[]) =>
        (await signAccessToken(deps.keySet, settings, { ...identity, amr: amr as typeof identity.amr }, 'me-amr', Number(claims.iat)))
          .token;
      expect((await app.request('me', { token: await signed(['pwd']) })).status).toBe(200);
      expect(await app.request('me', { token: await signed(['pwd', 'sms']) })).toMatchObject({
        status: 401,
        body: failure('Unauthorized'),
      });
    });

    it('answers 401 Unauthorized without a token', async () => {
      expect(await app.request('me')).toMatchObject({ status: 401, body: failure('Unauthorized') });
    });

    it('answers 503 when the authorizer could not reach the session store', async () => {
      const response = await call(makeMe(deps), { method: 'GET', authorizerContext: { authError: 'unavailable' } });
      expect(response).toMatchObject({ status: 503, body: failure('Service unavailable') });
    });
  });

  describe('GET /.well-known/jwks.json', () => {
    it('publishes the public keys only, cacheable', async () => {
      const response = await app.request('jwks');
      expect(response.status).toBe(200);
      expect(response.headers['Cache-Control']).toBe('public, max-age=300');
      expect(response.body).toEqual({
        keys: [
          { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: 'test-key-1', alg: 'ES256', use: 'sig' },
          // docs/api.md 11.4: the RS256 key of ID tokens, its public part only.
          { kty: 'RSA', n: expect.stringMatching(/^[A-Za-z0-9_-]{342}$/), e: 'AQAB', kid: 'test-rsa-1', alg: 'RS256', use: 'sig' },
        ],
      });
    });
  });
});

describe('tenant isolation of sessions', () => {
  it('refuses a refresh token whose tenant part was changed to another tenant', async () => {
    const deps = await testDeps();
    const app = testApp(deps);
    const [a, b] = [uniqueTenant(), uniqueTenant()];
    const first = await registerAdmin(app, a, 'same', PASSWORD);
    await registerAdmin(app, b, 'same', PASSWORD);
    const parts = first.refreshToken.split('.');
    parts[0] = Buffer.from(b).toString('base64url');
    const response = await app.request('refreshToken', { body: { refreshToken: parts.join('.') } });
    expect(response).toMatchObject({ status: 401, body: failure('Invalid refresh token') });
    // And the untouched token still works in its own tenant.
    expect((await app.request('refreshToken', { body: { refreshToken: first.refreshToken } })).body.data.user.tenantId).toBe(a);
  });
});
