import { createPublicKey, type KeyObject, sign as signBytes } from 'node:crypto';
import fc from 'fast-check';
import { base64url, type CryptoKey, decodeJwt, exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../lib/tokens/access-token';
import { type App, type RouteName, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { authorizationCode, createClient, tokenRequest } from '../helpers/oauth';

/**
 * Token attacks against every route behind the session authorizer (not only
 * `me`, as test/functions/authorizer.test.ts does): forged, altered, expired and
 * misdirected tokens get no identity, so the function refuses (401, or 403 where the
 * route asks for a role first), and the attempt changes nothing: the real session
 * the forgery started from still works. Then 1,000 random one-character changes of
 * a valid token, and header tricks (embedded `jwk`, `jku`, `crit`, other algorithms).
 */
const enc = (value: unknown) => base64url.encode(JSON.stringify(value));

describe('token attacks on every route behind the authorizer', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let token: string;
  let claims: Record<string, unknown>;
  let header: Record<string, unknown>;
  let oauthAccessToken: string;
  let revokedToken: string;
  let otherUser: { token: string; userId: string };

  beforeAll(async () => {
    deps = await testDeps();
    // DynamoDB Local deletes items whose TTL has passed in real time: keep the clock near it.
    nearRealTime(deps);
    app = testApp(deps);
    tenantId = uniqueTenant('tokens');
    const admin = await registerAdmin(app, tenantId);
    token = admin.token;
    claims = decodeJwt(token);
    header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));
    const client = await createClient(app, token, tenantId);
    const { code, verifier } = await authorizationCode(app, token, client);
    oauthAccessToken = (
      await app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
      )
    ).body.access_token;
    revokedToken = (await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } })).body.data
      .token;
    expect((await app.request('logout', { token: revokedToken })).status).toBe(200);
    const other = await registerStaff(app, token, { username: 'other', password: 'correct horse battery', role: 'ANALYST', tenantId });
    otherUser = { token: other.token, userId: other.user.id };
  });

  const now = () => Math.floor(deps.clock.now() / 1000);
  const sign = (
    payload: Record<string, unknown>,
    protectedHeader: Record<string, unknown> = { alg: 'ES256', kid: deps.keySet.kid, typ: 'JWT' },
    key: CryptoKey | KeyObject | Uint8Array = deps.keySet.signingKey,
  ) => new SignJWT(payload).setProtectedHeader(protectedHeader as { alg: string }).sign(key);
  /** Signs any header with our key, as jose would refuse to (unknown `crit`, `b64`). */
  const signRaw = (protectedHeader: Record<string, unknown>, payload: string) => {
    const input = `${enc(protectedHeader)}.${payload}`;
    const signature = signBytes('sha256', Buffer.from(input), { key: deps.keySet.signingKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  };
  const publicPem = () =>
    exportSPKI(deps.keySet.publicKeyFor as never).catch(() =>
      createPublicKey({ key: deps.keySet.jwks.keys[0] as never, format: 'jwk' })
        .export({ type: 'spki', format: 'pem' })
        .toString(),
    );

  const attacks: Array<[string, () => Promise<string>]> = [
    ['alg none', async () => `${enc({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.`],
    ['alg None, with the real signature', async () => `${enc({ ...header, alg: 'None' })}.${token.split('.')[1]}.${token.split('.')[2]}`],
    ['alg NONE', async () => `${enc({ alg: 'NONE' })}.${token.split('.')[1]}.`],
    [
      'HS256 signed with the public key as PEM',
      async () => sign(claims, { alg: 'HS256', kid: deps.keySet.kid }, new TextEncoder().encode(String(await publicPem()))),
    ],
    [
      'HS256 signed with the public JWK',
      async () => sign(claims, { alg: 'HS256', kid: deps.keySet.kid }, new TextEncoder().encode(JSON.stringify(deps.keySet.jwks.keys[0]))),
    ],
    [
      'HS256 signed with the x coordinate',
      async () =>
        sign(claims, { alg: 'HS256', kid: deps.keySet.kid }, base64url.decode(String((deps.keySet.jwks.keys[0] as { x: string }).x))),
    ],
    ['an unknown kid', async () => sign(claims, { alg: 'ES256', kid: 'unknown' })],
    ['no kid, signed with an attacker key', async () => sign(claims, { alg: 'ES256' }, (await generateKeyPair('ES256')).privateKey)],
    ['a kid with path traversal', async () => sign(claims, { alg: 'ES256', kid: '../../../../dev/null' })],
    [
      'an attacker key embedded as jwk',
      async () => {
        const { privateKey, publicKey } = await generateKeyPair('ES256');
        return sign(claims, { alg: 'ES256', jwk: await exportJWK(publicKey) }, privateKey);
      },
    ],
    [
      'an attacker key with our kid and a jku',
      async () => {
        const { privateKey } = await generateKeyPair('ES256');
        return sign(claims, { alg: 'ES256', kid: deps.keySet.kid, jku: 'https://evil.example/jwks.json' }, privateKey);
      },
    ],
    [
      'ES384 with an attacker key',
      async () => sign(claims, { alg: 'ES384', kid: deps.keySet.kid }, (await generateKeyPair('ES384')).privateKey),
    ],
    [
      'an unknown crit header (signed with our key)',
      async () => signRaw({ alg: 'ES256', kid: deps.keySet.kid, crit: ['x-evil'], 'x-evil': 1 }, enc(claims)),
    ],
    [
      'an unencoded payload, b64 false (signed with our key)',
      async () => signRaw({ alg: 'ES256', kid: deps.keySet.kid, b64: false, crit: ['b64'] }, enc(claims)),
    ],
    [
      'a tampered payload (role)',
      async () => `${token.split('.')[0]}.${enc({ ...claims, role: 'ADMIN', username: 'root' })}.${token.split('.')[2]}`,
    ],
    [
      'a tampered payload (sub of another user)',
      async () => `${token.split('.')[0]}.${enc({ ...claims, sub: otherUser.userId })}.${token.split('.')[2]}`,
    ],
    ['a tampered header', async () => `${enc({ ...header, typ: 'at+jwt' })}.${token.split('.')[1]}.${token.split('.')[2]}`],
    ['the signature of another token', async () => `${token.split('.').slice(0, 2).join('.')}.${otherUser.token.split('.')[2]}`],
    ['no signature', async () => `${token.split('.').slice(0, 2).join('.')}.`],
    ['expired', async () => sign({ ...claims, iat: now() - 3600, exp: now() - 1 })],
    ['not yet valid (nbf)', async () => sign({ ...claims, nbf: now() + 600 })],
    ['without exp', async () => sign({ ...claims, exp: undefined })],
    ['a wrong iss', async () => sign({ ...claims, iss: 'https://evil.example' })],
    ['a wrong aud', async () => sign({ ...claims, aud: 'another-service' })],
    ['an aud list that adds ours to another', async () => sign({ ...claims, aud: ['another-service'] })],
    ['a role outside the list', async () => sign({ ...claims, role: 'SUPERADMIN' })],
    ['a revoked session (logout)', async () => revokedToken],
    ['a session that does not exist', async () => sign({ ...claims, sid: 'no-such-session' })],
    ['a session of another tenant', async () => sign({ ...claims, tenantId: uniqueTenant() })],
    ['an OAuth access token', async () => oauthAccessToken],
    ['an OAuth access token re-labelled with our audience', async () => sign({ ...decodeJwt(oauthAccessToken), aud: claims.aud })],
    [
      'a JWE-shaped token',
      async () => `${enc({ alg: 'dir', enc: 'A256GCM' })}..${base64url.encode('iv')}.${base64url.encode('ct')}.${base64url.encode('tag')}`,
    ],
    ['garbage', async () => 'a.b.c'],
  ];

  /** What each route answers without identity (register: as anonymous, into an existing tenant). */
  const routes: Array<[RouteName, () => Record<string, unknown>, number, string]> = [
    ['me', () => ({}), 401, 'Unauthorized'],
    ['logout', () => ({}), 401, 'Unauthorized'],
    ['enableMFA', () => ({ body: { method: 'SMS', secret: '+15550001234' } }), 401, 'Unauthorized'],
    ['verifyMFA', () => ({ body: { method: 'TOTP', code: '123456' } }), 401, 'Unauthorized'],
    [
      'oauth2Authorize',
      () => ({ query: { response_type: 'code', client_id: 'x', redirect_uri: 'https://app.example.com/callback' } }),
      401,
      'Unauthorized',
    ],
    [
      'createOAuth2Client',
      () => ({
        body: {
          client_id: 'forged',
          client_secret: 's'.repeat(40),
          redirect_uri: 'https://app.example.com/cb',
          grant_types: 'authorization_code',
          scope: 'a',
          tenant_id: tenantId,
        },
      }),
      403,
      'Permission denied',
    ],
    [
      'register',
      () => ({ body: { username: 'forged-admin', password: 'a strong passphrase', role: 'ADMIN', tenantId } }),
      403,
      'Permission denied',
    ],
  ];

  it.each(attacks)('refuses %s on every route, and the real session still works', async (_, forge) => {
    const forged = await forge();
    expect(await app.identityOf(forged)).toBeNull();
    for (const [route, spec, status, error] of routes) {
      const response = await app.request(route, { ...spec(), token: forged });
      expect(response, route).toEqual({ status, headers: expect.any(Object), body: failure(error) });
    }
    expect(await app.identityOf(token)).not.toBeNull();
  });

  it("refuses a token signed with our own key for another user on the signer's session (sub bound to the session)", async () => {
    // Defence in depth: only a holder of the signing key could make this token.
    const forged = await signAccessToken(
      deps.keySet,
      { issuer: deps.config.issuer, audience: deps.config.accessTokenAudience, ttlSeconds: 900 },
      {
        userId: otherUser.userId,
        username: 'other',
        role: 'ADMIN',
        tenantId,
        shopId: 'default',
        sessionId: String(claims.sid),
        amr: ['pwd'],
        authTime: now(),
      },
      'jti-forged',
      now(),
    );
    expect(await app.identityOf(forged.token)).toBeNull();
  });

  it('refuses 1,000 random one-character changes of a valid token', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...alphabet), async (position, replacement) => {
        const changed = token.slice(0, position) + replacement + token.slice(position + 1);
        // A change that decodes to the same bytes (the spare bits of base64url's last character) is the same token.
        const same =
          changed
            .split('.')
            .map((part) => Buffer.from(part, 'base64url').toString('hex'))
            .join('.') ===
          token
            .split('.')
            .map((part) => Buffer.from(part, 'base64url').toString('hex'))
            .join('.');
        const identity = await app.identityOf(changed);
        if (same && changed.split('.').length === 3) return;
        expect(identity).toBeNull();
        refused++;
      }),
      { numRuns: 1000 },
    );
    expect(refused).toBeGreaterThan(900);
  });

  it('refuses the token in any other form of the Authorization header', async () => {
    for (const value of [
      `bearer ${token}`,
      `Bearer  ${token}`,
      `Bearer ${token} ${token}`,
      `Bearer ${token},Bearer ${otherUser.token}`,
      `Basic ${token}`,
      token,
      `Bearer ${token}.`,
      `Bearer "${token}"`,
    ]) {
      const response = await app.request('me', { headers: { authorization: value } });
      expect(response.status === 401 || response.body.data?.user.userId === claims.sub, value).toBe(true);
      // Whatever is accepted is the token itself, never a mix of two.
      if (response.status === 200) expect(response.body.data.user.userId).toBe(claims.sub);
    }
  });
});
