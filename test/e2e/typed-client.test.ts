import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createIdentityClient, type ErrorCode, type IdentityClient } from '../../clients/typescript';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { type ApiServer, startApiServer } from '../helpers/http-server';
import { authenticator, newTotpSecret } from '../helpers/mfa';
import { mountServerlessRoutes } from '../helpers/routes';

/**
 * The typed client of clients/typescript (generated from docs/openapi.json) against the
 * real handlers over HTTP: what a front end written with it sees, typed, including the
 * `code` of a failure and the MFA login steps of clients/typescript/examples/spa.ts.
 */
describe('the typed client (clients/typescript)', () => {
  let server: ApiServer;
  let deps: TestDeps;
  let token: string | undefined;
  let api: IdentityClient;
  const tenantId = uniqueTenant('typed');
  const password = 'a long unusual passphrase';

  beforeAll(async () => {
    server = await startApiServer();
    deps = await testDeps({ ISSUER: server.url });
    deps.clock.set(Date.now());
    mountServerlessRoutes(server, deps);
    api = createIdentityClient({ baseUrl: server.url, token: () => token });
    const registered = await api.POST('/auth/register', { body: { username: 'alice', password, role: 'ADMIN', tenantId } });
    expect(registered.response.status).toBe(201);
  });

  afterAll(() => server?.close());

  it('logs in, and reads me with the bearer token it keeps, all typed', async () => {
    const { data, error, response } = await api.POST('/auth/login', { body: { username: 'alice', password, tenantId } });
    expect([response.status, error]).toEqual([200, undefined]);
    expectTypeOf(data!.data.expiresIn).toEqualTypeOf<number>();
    expect(data).toEqual({
      success: true,
      data: {
        token: expect.any(String),
        refreshToken: expect.any(String),
        expiresIn: 900,
        user: { id: expect.any(String), username: 'alice', role: 'ADMIN', tenantId, shopId: expect.any(String) },
        // The device token of the login lockout (docs/api.md 10.1), typed as optional: register's payload may lack it.
        deviceToken: expect.stringMatching(/^d1\./),
      },
    });
    token = data!.data.token;

    const mine = await api.GET('/auth/me');
    expect(mine.response.status).toBe(200);
    expect(mine.data?.data.user).toMatchObject({ userId: data!.data.user.id, username: 'alice', tenantId, role: 'ADMIN', amr: ['pwd'] });

    const refreshed = await api.POST('/auth/refresh', { body: { refreshToken: data!.data.refreshToken } });
    expect(refreshed.response.status).toBe(200);
    token = refreshed.data!.data.token;
    const out = await api.POST('/auth/logout');
    expect([out.response.status, out.data]).toEqual([200, { success: true, data: { message: 'Logged out' } }]);
    const after = await api.GET('/auth/me');
    expect([after.response.status, after.error]).toEqual([401, failure('Unauthorized', 'UNAUTHORIZED')]);
    token = undefined;
  });

  it('answers a failure with a typed code a UI can switch on', async () => {
    const { data, error, response } = await api.POST('/auth/login', {
      body: { username: 'alice', password: 'not the password', tenantId },
    });
    expect([response.status, data]).toEqual([401, undefined]);
    expectTypeOf(error!.code).toEqualTypeOf<ErrorCode>();
    expect(error).toEqual(failure('Invalid credentials', 'INVALID_CREDENTIALS'));

    const invalid = await api.POST('/auth/login', { body: { username: 'alice', password: '', tenantId: '' } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toMatchObject({ success: false, code: 'VALIDATION_FAILED', fields: expect.any(Array) });
    expect(invalid.error?.fields?.map((field) => field.path).sort()).toEqual(['password', 'tenantId']);
  });

  it('takes the MFA login steps: 401 MFA_REQUIRED with X-MFA-Methods, then login again with the code', async () => {
    const first = await api.POST('/auth/login', { body: { username: 'alice', password, tenantId } });
    token = first.data!.data.token;
    const secret = newTotpSecret();
    const enabled = await api.POST('/auth/mfa/enable', { body: { method: 'TOTP', secret } });
    expect(enabled.data?.data).toMatchObject({ method: 'TOTP', status: 'pending' });
    const code = authenticator(deps, secret);
    const verified = await api.POST('/auth/mfa/verify', { body: { method: 'TOTP', code: code() } });
    expect(verified.data).toEqual({ success: true, data: { message: 'MFA verified successfully' } });
    deps.clock.advance(30);
    token = undefined;

    const asked = await api.POST('/auth/login', { body: { username: 'alice', password, tenantId } });
    expect([asked.response.status, asked.response.headers.get('x-mfa-methods'), asked.error]).toEqual([
      401,
      'TOTP',
      failure('MFA code required', 'MFA_REQUIRED'),
    ]);
    const answered = await api.POST('/auth/login', { body: { username: 'alice', password, tenantId, mfaCode: code(), mfaMethod: 'TOTP' } });
    expect(answered.response.status).toBe(200);
    token = answered.data!.data.token;
    const mine = await api.GET('/auth/me');
    expect(mine.data?.data.user.amr).toEqual(['pwd', 'otp']);
  });
});
