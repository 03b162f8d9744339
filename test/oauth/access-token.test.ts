import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signOAuthAccessToken, verifyOAuthAccessToken } from '../../lib/oauth/access-token';
import { generateKeySet } from '../../lib/tokens/signing-keys';

const claims = {
  iss: 'https://id.example.com',
  client_id: 'client-1',
  sub: 'client-1',
  scope: 'orders:read',
  tenantId: 'tenant-1',
  iat: 1_800_000_000,
  jti: 'jti-1',
};

describe('OAuth access tokens (node:crypto ES256)', () => {
  it('are JWS that jose verifies against the published JWKS, with the JOSE signature form (r || s, 64 bytes)', async () => {
    const keys = await generateKeySet('k1');
    const token = signOAuthAccessToken(keys, claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' });
    expect(Buffer.from(token.split('.')[2] ?? '', 'base64url')).toHaveLength(64);
    const { payload } = await jwtVerify(token, createLocalJWKSet(keys.jwks), {
      algorithms: ['ES256'],
      typ: 'at+jwt',
      currentDate: new Date(claims.iat * 1000),
    });
    expect(payload).toEqual({ ...claims, aud: 'client-1', exp: claims.iat + 3600 });
  });

  it('carry grant_id only for tokens of a grant, and verify either way', async () => {
    const keys = await generateKeySet('k1');
    const stateless = await verifyOAuthAccessToken(keys, claims.iss, signOAuthAccessToken(keys, claims), claims.iat);
    expect(stateless).toEqual({ ...claims, aud: 'client-1', exp: claims.iat + 3600 });
    expect(stateless).not.toHaveProperty('grant_id');
    const ofGrant = await verifyOAuthAccessToken(
      keys,
      claims.iss,
      signOAuthAccessToken(keys, { ...claims, grant_id: 'grant-1' }),
      claims.iat,
    );
    expect(ofGrant?.grant_id).toBe('grant-1');
  });

  it('are refused by another key set, and after they expire', async () => {
    const keys = await generateKeySet('k1');
    const token = signOAuthAccessToken(keys, claims);
    expect(await verifyOAuthAccessToken(await generateKeySet('k1'), claims.iss, token, claims.iat)).toBeUndefined();
    expect(await verifyOAuthAccessToken(keys, claims.iss, token, claims.iat + 3600)).toBeUndefined();
    expect(await verifyOAuthAccessToken(keys, 'https://other.example.com', token, claims.iat)).toBeUndefined();
  });
});
