import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { backchannelLogoutUriOf } from '../../lib/oauth/registration';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { newSecret } from '../helpers/oauth';

/** docs/api.md 17.3: a client's back-channel logout URI, at registration (4.8), by PATCH (9.11), in its views (9.9, 9.10), in discovery. */
describe('back-channel logout clients', () => {
  let app: App;
  let tenantId: string;
  let adminToken: string;

  beforeAll(async () => {
    app = testApp(await testDeps());
    tenantId = uniqueTenant('bcl');
    adminToken = (await registerAdmin(app, tenantId)).token;
  });

  const register = (extra: Record<string, unknown>, clientId = `client-${randomBytes(6).toString('hex')}`) =>
    app.request('createOAuth2Client', {
      token: adminToken,
      body: {
        client_id: clientId,
        client_secret: newSecret(),
        redirect_uri: 'https://app.example.com/callback',
        grant_types: 'authorization_code refresh_token',
        scope: 'openid',
        tenant_id: tenantId,
        ...extra,
      },
    });
  const read = (clientId: string) => app.request('readOAuth2Client', { token: adminToken, pathParameters: { clientId } });
  const patch = (clientId: string, body: Record<string, unknown>) =>
    app.request('updateOAuth2Client', { token: adminToken, pathParameters: { clientId }, body });

  it('registers a URI with a query and the sid requirement, and answers them in every view', async () => {
    const uri = 'https://app.example.com/backchannel-logout?tenant=acme';
    const created = await register({ backchannel_logout_uri: uri, backchannel_logout_session_required: true });
    expect(created.status).toBe(201);
    const { client_id: clientId } = created.body.data.client;
    expect(created.body.data.client).toMatchObject({ backchannel_logout_uri: uri, backchannel_logout_session_required: true });
    const [one, list] = await Promise.all([read(clientId), app.request('listOAuth2Clients', { token: adminToken })]);
    expect(one.body.data.client).toMatchObject({ backchannel_logout_uri: uri, backchannel_logout_session_required: true });
    const listed = list.body.data.clients.find((client: { client_id: string }) => client.client_id === clientId);
    expect(listed).toMatchObject({ backchannel_logout_uri: uri, backchannel_logout_session_required: true });
  });

  it('registers without a URI by default: neither member is answered (sid not required)', async () => {
    const created = await register({});
    expect(created.status).toBe(201);
    expect(created.body.data.client).not.toHaveProperty('backchannel_logout_uri');
    expect(created.body.data.client).not.toHaveProperty('backchannel_logout_session_required');
  });

  it.each([
    ['a fragment', 'https://app.example.com/logout#here'],
    ['a relative URI', '/logout'],
    ['another scheme', 'ftp://app.example.com/logout'],
    ['user information', 'https://user:pass@app.example.com/logout'],
    ['plain http to a host that is not loopback', 'http://app.example.com/logout'],
    ['two URIs', 'https://a.example.com/logout https://b.example.com/logout'],
    ['a control character', 'https://app.example.com/log\nout'],
    ['the empty string', ''],
  ])('refuses %s at registration with 400 Invalid backchannel_logout_uri, and registers nothing', async (_, uri) => {
    const clientId = `client-${randomBytes(6).toString('hex')}`;
    const answer = await register({ backchannel_logout_uri: uri }, clientId);
    const expected =
      uri === ''
        ? failure('backchannel_logout_uri: Too small: expected string to have >=1 characters')
        : failure('Invalid backchannel_logout_uri');
    expect([answer.status, answer.body]).toEqual([400, expected]);
    expect((await read(clientId)).status).toBe(404);
  });

  it('checks redirect_uri first, as docs/api.md 4.8 orders the rules', async () => {
    const answer = await register({ redirect_uri: 'https://app.example.com/cb#x', backchannel_logout_uri: 'https://app.example.com/l#x' });
    expect([answer.status, answer.body]).toEqual([400, failure('Invalid redirect_uri')]);
  });

  it.each([
    ['http://127.0.0.1:4000/logout', true],
    ['https://localhost/logout', true],
    ['http://[::1]/logout', true],
    ['https://rp.example.com/logout', false],
  ])('takes %s against DynamoDB Local; in a deployed stage only if it is not a loopback host', (uri, loopback) => {
    expect(backchannelLogoutUriOf({ loopbackIdentityProviders: true }, uri)).toBe(uri);
    const deployed = () => backchannelLogoutUriOf({ loopbackIdentityProviders: false }, uri);
    if (loopback) expect(deployed).toThrow('Invalid backchannel_logout_uri');
    else expect(deployed()).toBe(uri);
  });

  it('sets, changes and removes the URI by PATCH; a bad one changes nothing', async () => {
    const clientId = (await register({})).body.data.client.client_id;
    const set = await patch(clientId, { backchannel_logout_uri: 'http://localhost:8080/bcl', backchannel_logout_session_required: true });
    expect(set.status).toBe(200);
    expect(set.body.data.client).toMatchObject({
      backchannel_logout_uri: 'http://localhost:8080/bcl',
      backchannel_logout_session_required: true,
    });

    const refused = await patch(clientId, { backchannel_logout_uri: 'https://app.example.com/bcl#f', client_name: 'Renamed' });
    expect([refused.status, refused.body]).toEqual([400, failure('Invalid backchannel_logout_uri')]);
    expect((await read(clientId)).body.data.client).toMatchObject({
      backchannel_logout_uri: 'http://localhost:8080/bcl',
      client_name: null,
    });

    const removed = await patch(clientId, { backchannel_logout_uri: '', backchannel_logout_session_required: false });
    expect(removed.status).toBe(200);
    expect(removed.body.data.client).not.toHaveProperty('backchannel_logout_uri');
    expect(removed.body.data.client).not.toHaveProperty('backchannel_logout_session_required');
    expect((await read(clientId)).body.data.client).not.toHaveProperty('backchannel_logout_uri');
  });

  it('advertises back-channel logout with sid in discovery', async () => {
    const answer = await app.request('openIdConfiguration');
    expect(answer.body).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  });
});
