import { beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { createClient, grantTokens, tokenRequest } from '../helpers/oauth';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

describe('POST /auth/password/change (docs/api.md 8.2)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
  });

  async function newUser() {
    const tenantId = uniqueTenant();
    const { token, refreshToken, user } = await registerAdmin(app, tenantId, 'alice', PASSWORD);
    return { tenantId, token, refreshToken, userId: user.id };
  }
  const login = (tenantId: string, password: string) => app.request('login', { body: { username: 'alice', password, tenantId } });

  it('answers 200, ends every other session and OAuth grant, and keeps the caller’s session', async () => {
    const { tenantId, token, refreshToken } = await newUser();
    const other = await login(tenantId, PASSWORD);
    const client = await createClient(app, token, tenantId);
    const { access_token: accessToken, refresh_token: oauthRefreshToken } = await grantTokens(app, token, client);

    const response = await app.request('changePassword', { token, body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } });
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: { success: true, data: { message: 'Password changed' } },
    });

    expect(await app.request('me', { token: other.body.data.token })).toEqual({
      status: 401,
      headers: expect.any(Object),
      body: failure('Unauthorized'),
    });
    expect((await app.request('refreshToken', { body: { refreshToken: other.body.data.refreshToken } })).body).toEqual(
      failure('Invalid refresh token'),
    );
    const oauthRefresh = await app.request(
      'oauth2Token',
      tokenRequest(client, { grant_type: 'refresh_token', refresh_token: oauthRefreshToken }),
    );
    expect(oauthRefresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const introspected = await app.request('introspect', tokenRequest(client, { token: accessToken }));
    expect(introspected.body).toEqual({ active: false });

    expect((await app.request('me', { token })).status).toBe(200);
    expect((await app.request('refreshToken', { body: { refreshToken } })).status).toBe(200);
    expect((await login(tenantId, PASSWORD)).body).toEqual(failure('Invalid credentials'));
    expect((await login(tenantId, NEW_PASSWORD)).status).toBe(200);
    expect(deps.logText()).not.toContain(NEW_PASSWORD);
  });

  it('answers 400 Invalid credentials for a wrong current password, counted by the login lockout, and changes nothing', async () => {
    const { tenantId, token } = await newUser();
    const other = await login(tenantId, PASSWORD);
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await app.request('changePassword', {
        token,
        body: { currentPassword: 'not the password', newPassword: NEW_PASSWORD },
      });
      expect(wrong).toEqual({ status: 400, headers: expect.any(Object), body: failure('Invalid credentials') });
    }
    const locked = await app.request('changePassword', { token, body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } });
    expect(locked).toEqual({
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': expect.stringMatching(/^\d+$/) }),
      body: failure('Too many failed attempts'),
    });
    expect((await app.request('me', { token: other.body.data.token })).status).toBe(200);
  });

  it('answers 400 Password is too common for a common new password, and changes nothing', async () => {
    const { tenantId, token } = await newUser();
    const response = await app.request('changePassword', { token, body: { currentPassword: PASSWORD, newPassword: 'qwerty123' } });
    expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure('Password is too common') });
    expect((await login(tenantId, PASSWORD)).status).toBe(200);
  });

  it.each([
    [{ newPassword: NEW_PASSWORD }, 'currentPassword: Invalid input: expected string, received undefined'],
    [{ currentPassword: PASSWORD }, 'newPassword: Invalid input: expected string, received undefined'],
    [{ currentPassword: PASSWORD, newPassword: '12345' }, 'newPassword: Too small: expected string to have >=6 characters'],
    [{ currentPassword: PASSWORD, newPassword: 'x'.repeat(129) }, 'newPassword: Too big: expected string to have <=128 characters'],
    [
      { currentPassword: 'x'.repeat(1025), newPassword: NEW_PASSWORD },
      'currentPassword: Too big: expected string to have <=1024 characters',
    ],
  ])('answers 400 for %j', async (body, error) => {
    const { token } = await newUser();
    const response = await app.request('changePassword', { token, body });
    expect(response).toEqual({ status: 400, headers: expect.any(Object), body: failure(error) });
  });

  it.each([[{ currentPassword: PASSWORD, newPassword: NEW_PASSWORD }], [{}], ['not json']])(
    'answers 401 Unauthorized without a session, whatever the body (%j)',
    async (body) => {
      const response = await app.request('changePassword', { body });
      expect(response).toEqual({ status: 401, headers: expect.any(Object), body: failure('Unauthorized') });
    },
  );

  it('two concurrent changes from two sessions: the user ends with one of the new passwords, and no other session lives', async () => {
    const { tenantId, token } = await newUser();
    const second = (await login(tenantId, PASSWORD)).body.data.token as string;
    const [a, b] = await Promise.all([
      app.request('changePassword', { token, body: { currentPassword: PASSWORD, newPassword: 'first new passphrase' } }),
      app.request('changePassword', { token: second, body: { currentPassword: PASSWORD, newPassword: 'second new passphrase' } }),
    ]);
    const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
    expect(winner.body).toEqual({ success: true, data: { message: 'Password changed' } });
    // The loser met the winner's change: its current password is no longer current, or its session ended.
    expect([failure('Invalid credentials'), failure('Unauthorized')]).toContainEqual(loser.body);
    const logins = await Promise.all([login(tenantId, 'first new passphrase'), login(tenantId, 'second new passphrase')]);
    expect(logins.filter((r) => r.status === 200)).toHaveLength(1);
    const alive = await Promise.all([app.request('me', { token }), app.request('me', { token: second })]);
    expect(alive.filter((r) => r.status === 200)).toHaveLength(1);
  });
});
