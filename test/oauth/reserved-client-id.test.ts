import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import { registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { newSecret } from '../helpers/oauth';

/**
 * Session access tokens carry `aud` = the service's audience. A client
 * registered under that id would get OAuth access tokens with the same `aud`, and a
 * resource server that checks `aud` but not `typ` would take every session token for
 * one of that client's tokens. The audience is reserved: no client may take it.
 */
describe('POST /oauth2/clients: the session audience is reserved', () => {
  it.each([
    ['the default audience', false, 'identity-service'],
    ['a configured audience', true, 'aud-configured'],
  ])('answers 400 Reserved client_id for %s, and stores nothing', async (_, configure, audience) => {
    // A fresh audience per test where it can be: client ids are global, and the table is shared.
    const env: Record<string, string> = configure ? { ACCESS_TOKEN_AUDIENCE: `${audience}-${cryptoRandom.token(6)}` } : {};
    const deps = nearRealTime(await testDeps(env));
    const app = testApp(deps);
    const tenantId = uniqueTenant('reserved');
    const admin = await registerAdmin(app, tenantId);
    const clientId = deps.config.accessTokenAudience;
    expect(clientId.startsWith(audience)).toBe(true);

    const response = await app.request('createOAuth2Client', {
      token: admin.token,
      body: {
        client_id: clientId,
        client_secret: newSecret(),
        redirect_uri: 'https://shop.example.com/cb',
        grant_types: 'client_credentials',
        scope: 'orders:read',
        tenant_id: tenantId,
      },
    });
    expect(response).toEqual({
      status: 400,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: failure('Reserved client_id'),
    });
    expect(await deps.store.oauthClients.find(clientId)).toBeUndefined();
  });

  it('still answers the earlier rules first (the contract order), and other ids are free', async () => {
    const deps = nearRealTime(await testDeps());
    const app = testApp(deps);
    const tenantId = uniqueTenant('reserved');
    const admin = await registerAdmin(app, tenantId);
    const body = {
      client_secret: newSecret(),
      redirect_uri: 'https://shop.example.com/cb',
      grant_types: 'client_credentials',
      scope: 'orders:read',
      tenant_id: tenantId,
    };
    const tooShort = await app.request('createOAuth2Client', {
      token: admin.token,
      body: { ...body, client_id: deps.config.accessTokenAudience, client_secret: 'short' },
    });
    expect(tooShort.body).toEqual(failure('Client secret too short'));
    const near = await app.request('createOAuth2Client', {
      token: admin.token,
      body: { ...body, client_id: `${deps.config.accessTokenAudience}-app-${cryptoRandom.token(6)}` },
    });
    expect(near.status).toBe(201);
  });
});
