import type { KeyObject } from 'node:crypto';
import { base64url, decodeJwt, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeySet } from '../../lib/tokens/signing-keys';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

describe('session authorizer', () => {
  let deps: TestDeps;
  let app: App;
  let token: string;
  let claims: Record<string, unknown>;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    token = (await registerAdmin(app, uniqueTenant())).token;
    claims = decodeJwt(token);
  });

  const sign = async (payload: Record<string, unknown>, options: { kid?: string; key?: KeyObject; typ?: string } = {}) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? deps.keySet.kid, typ: options.typ ?? 'JWT' })
      .sign(options.key ?? deps.keySet.signingKey);

  it('hands the verified identity to the function', async () => {
    const identity = await app.identityOf(token);
    expect(identity).toEqual({
      userId: claims.sub,
      username: 'admin',
      role: 'ADMIN',
      tenantId: claims.tenantId,
      shopId: 'default',
      sessionId: claims.sid,
      amr: ['pwd'],
      authTime: claims.auth_time,
    });
  });

  it('checks the header format: a token must be sent as Bearer', async () => {
    const event = (await import('../helpers/http')).apiEvent({ headers: { authorization: `Basic ${token}` } });
    expect(await app.authorize(event as never)).toEqual({ isAuthorized: true, context: {} });
  });

  const attacks: Array<[string, () => Promise<string>]> = [
    ['alg none', async () => `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${token.split('.')[1]}.`],
    [
      'HS256 signed with the public key',
      async () => {
        const secret = new TextEncoder().encode(JSON.stringify(deps.keySet.jwks.keys[0]));
        return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: deps.keySet.kid }).sign(secret);
      },
    ],
    ['an unknown kid', async () => sign(claims, { kid: 'someone-else' })],
    ['a key we never published', async () => sign(claims, { key: (await generateKeySet()).signingKey })],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = token.split('.');
        return `${header}.${base64url.encode(JSON.stringify({ ...claims, role: 'ADMIN', tenantId: 'other' }))}.${signature}`;
      },
    ],
    ['an expired token', async () => sign({ ...claims, exp: Math.floor(deps.clock.now() / 1000) - 1 })],
    ['a token not yet valid', async () => sign({ ...claims, nbf: Math.floor(deps.clock.now() / 1000) + 600 })],
    ['a wrong issuer', async () => sign({ ...claims, iss: 'https://evil.example' })],
    ['a wrong audience', async () => sign({ ...claims, aud: 'some-oauth-client' })],
    ['a token without session', async () => sign({ ...claims, sid: undefined })],
    [
      'an OAuth access token',
      async () =>
        sign({
          iss: claims.iss,
          aud: 'client-1',
          sub: claims.sub,
          client_id: 'client-1',
          scope: 'read',
          tenantId: claims.tenantId,
          iat: claims.iat,
          exp: claims.exp,
        }),
    ],
    ['a session that does not exist', async () => sign({ ...claims, sid: 'no-such-session' })],
    ['a session token typed as an OAuth access token (at+jwt)', async () => sign(claims, { typ: 'at+jwt' })],
    ['garbage', async () => 'a.b.c'],
  ];

  it('accepts the same claims signed by this test as the service signs them (so each attack fails for its own reason)', async () => {
    expect(await app.identityOf(await sign(claims))).toMatchObject({ userId: claims.sub, sessionId: claims.sid });
  });

  it.each(attacks)('refuses %s: no identity, and the function answers 401', async (_, forge) => {
    const forged = await forge();
    expect(await app.identityOf(forged)).toBeNull();
    expect(await app.request('me', { token: forged })).toMatchObject({ status: 401, body: failure('Unauthorized') });
  });

  it('refuses the token of a revoked session, though its signature was verified before (the session is read every time)', async () => {
    const own = (await registerAdmin(app, uniqueTenant())).token;
    expect(await app.identityOf(own)).not.toBeNull();
    await app.request('logout', { token: own });
    expect(await app.identityOf(own)).toBeNull();
  });

  it('does not take a read torn by a password change for a revoked session, and refuses the others it revoked', async () => {
    const tenantId = uniqueTenant();
    const own = await registerAdmin(app, tenantId, 'torn', 'correct horse battery');
    const other = (await app.request('login', { body: { username: 'torn', password: 'correct horse battery', tenantId } })).body.data.token;
    const { sub, sid } = decodeJwt(own.token) as { sub: string; sid: string };
    const before = await deps.store.sessions.findWithOwner(tenantId, sid, sub);
    const changed = await app.request('changePassword', {
      token: own.token,
      body: { currentPassword: 'correct horse battery', newPassword: 'another fine passphrase' },
    });
    expect(changed.status).toBe(200);

    // The everyday read sees the user in its new generation but the caller's session as it
    // was before the transaction moved it along (what BatchGetItem may answer mid-transaction).
    let torn = 0;
    const tearing = {
      ...deps,
      store: {
        ...deps.store,
        sessions: {
          ...deps.store.sessions,
          findWithOwner: async (...args: Parameters<typeof deps.store.sessions.findWithOwner>) => {
            const read = await deps.store.sessions.findWithOwner(...args);
            if (args[3]?.isolated || args[1] !== sid) return read;
            torn += 1;
            return { ...read, session: before.session };
          },
        },
      },
    };
    const tearingApp = testApp(tearing);
    expect(await tearingApp.request('me', { token: own.token })).toMatchObject({ status: 200 });
    expect(torn).toBe(1);
    expect(await tearingApp.request('me', { token: other })).toMatchObject({ status: 401, body: failure('Unauthorized') });
  });

  it('refuses a token after 15 minutes', async () => {
    const local = await testDeps();
    const localApp = testApp(local);
    const fresh = (await registerAdmin(localApp, uniqueTenant())).token;
    local.clock.advance(899);
    expect(await localApp.identityOf(fresh)).not.toBeNull();
    local.clock.advance(1);
    expect(await localApp.identityOf(fresh)).toBeNull();
  });

  it('accepts tokens signed with any published key, so keys rotate without logging anyone out', async () => {
    const { keySetFromDocument, generateSigningKey } = await import('../../lib/tokens/signing-keys');
    const { cachedKeyProvider } = await import('../../lib/tokens/signing-keys');
    const oldKey = await generateSigningKey('old');
    const newKey = await generateSigningKey('new');
    const before = await testDeps();
    before.keys = cachedKeyProvider(() => keySetFromDocument({ activeKid: 'old', keys: [oldKey] }));
    const issued = (await registerAdmin(testApp(before), uniqueTenant())).token;
    const after = await testDeps();
    after.keys = cachedKeyProvider(() => keySetFromDocument({ activeKid: 'new', keys: [newKey, oldKey] }));
    // The authorizer verifies with the public keys: both are published.
    after.publicKeys = after.keys;
    expect(await testApp(after).identityOf(issued)).not.toBeNull();
  });
});
