import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { authenticationMethods, userClaims } from '../../lib/oidc/claims';
import { openIdConfiguration } from '../../lib/oidc/discovery';
import { accessTokenHash, signIdToken } from '../../lib/oidc/id-token';
import { checkNonce } from '../../lib/oidc/nonce';
import { bearerToken } from '../../lib/oidc/userinfo';
import { generateKeySet } from '../../lib/tokens/signing-keys';
import type { User } from '../../lib/users/user';

const user: User = {
  id: '5b1f0c1e-8d4e-4f7a-9a51-0c8d2a7e6b11',
  tenantId: 'acme',
  shopId: 'shop-1',
  username: 'olivia',
  role: 'MANAGER',
  email: 'olivia@example.com',
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  status: 'active',
  createdAt: '2026-11-23T10:00:00.000Z',
};

/** docs/api.md 11.1-11.3: the claim rules, one row per rule. */
describe('the claims of a scope (docs/api.md 11.1)', () => {
  it.each<[string, string[], Record<string, unknown>]>([
    ['openid alone: sub', ['openid'], { sub: user.id }],
    ['profile', ['openid', 'profile'], { sub: user.id, preferred_username: 'olivia', tenantId: 'acme', shopId: 'shop-1', role: 'MANAGER' }],
    ['email', ['openid', 'email'], { sub: user.id, email: 'olivia@example.com', email_verified: false }],
    [
      'profile and email',
      ['openid', 'email', 'profile', 'orders:read'],
      {
        sub: user.id,
        preferred_username: 'olivia',
        tenantId: 'acme',
        shopId: 'shop-1',
        role: 'MANAGER',
        email: 'olivia@example.com',
        email_verified: false,
      },
    ],
  ])('%s', (_, scope, claims) => {
    expect(userClaims(user, scope)).toEqual(claims);
  });

  it('leaves email out for a user without an address, and says verified only when the record does', () => {
    const { email: _none, ...withoutEmail } = user;
    expect(userClaims(withoutEmail, ['openid', 'email'])).toEqual({ sub: user.id });
    const verified = { ...user, emailVerified: true };
    expect(userClaims(verified, ['openid', 'email'])).toMatchObject({ email_verified: true });
    expect(userClaims({ ...user, emailVerified: false }, ['openid', 'email'])).toMatchObject({ email_verified: false });
  });

  it.each([
    [['pwd'], ['pwd']],
    [
      ['pwd', 'otp'],
      ['pwd', 'otp', 'mfa'],
    ],
    [['pwd', 'pwd'], ['pwd']],
    [[], []],
  ])('amr %j becomes %j (RFC 8176: mfa for more than one factor)', (amr, expected) => {
    expect(authenticationMethods(amr)).toEqual(expected);
  });
});

describe('at_hash and the ID token (docs/api.md 11.1)', () => {
  it('is the base64url of the left 128 bits of SHA-256 of the access token', () => {
    const token = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    expect(accessTokenHash(token)).toBe(createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url'));
    // OIDC Core's worked example (3.1.3.6, A.3).
    expect(accessTokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });

  it('carries nonce only when there is one, and signs with the asked algorithm', async () => {
    const keys = await generateKeySet('k', 'r');
    const context = { iss: 'https://id.example.com', aud: 'rp', authTime: 100, amr: ['pwd'], sid: 's', accessToken: 'at', iat: 200 };
    const without = decodeJwt(signIdToken(keys, 'ES256', { sub: 'u' }, context));
    expect(without).toEqual({
      iss: context.iss,
      sub: 'u',
      aud: 'rp',
      exp: 3800,
      iat: 200,
      auth_time: 100,
      amr: ['pwd'],
      sid: 's',
      at_hash: accessTokenHash('at'),
    });
    const rs = signIdToken(keys, 'RS256', { sub: 'u' }, { ...context, nonce: 'n' });
    expect([decodeProtectedHeader(rs), decodeJwt(rs).nonce]).toEqual([{ alg: 'RS256', kid: 'r', typ: 'JWT' }, 'n']);
  });
});

describe('nonce and bearer parsing (docs/api.md 11.1, 11.2)', () => {
  it.each([undefined, 'n', ' spaced nonce ', '~'.repeat(512), 'a"b\\c<d>'])('takes %j', (nonce) => {
    expect(checkNonce(nonce)).toBe(nonce);
  });

  it.each(['', 'a\u0000', 'a\nb', 'é', 'x'.repeat(513), '\u007f'])('refuses %j with Invalid nonce', (nonce) => {
    expect(() => checkNonce(nonce)).toThrow('Invalid nonce');
  });

  it.each<[string | undefined, string | undefined]>([
    ['Bearer abc.def-ghi_jkl', 'abc.def-ghi_jkl'],
    ['bearer abc', 'abc'],
    ['Bearer abc==', 'abc=='],
    ['Bearer', undefined],
    ['Bearer a b', undefined],
    ['Basic abc', undefined],
    ['Bearer abc,def', undefined],
    [undefined, undefined],
  ])('reads %j as %j (RFC 6750 2.1)', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

describe('the discovery document (docs/api.md 11.3)', () => {
  it('names every endpoint under the issuer, end_session_endpoint included', () => {
    const metadata = openIdConfiguration('https://id.example.com');
    expect(metadata).toMatchObject({
      issuer: 'https://id.example.com',
      authorization_endpoint: 'https://id.example.com/oauth2/authorize',
      token_endpoint: 'https://id.example.com/oauth2/token',
      userinfo_endpoint: 'https://id.example.com/oauth2/userinfo',
      end_session_endpoint: 'https://id.example.com/oauth2/logout',
      jwks_uri: 'https://id.example.com/.well-known/jwks.json',
      revocation_endpoint: 'https://id.example.com/oauth2/revoke',
      introspection_endpoint: 'https://id.example.com/oauth2/introspect',
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'],
      device_authorization_endpoint: 'https://id.example.com/oauth2/device_authorization',
    });
  });
});
