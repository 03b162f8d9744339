import { describe, expect, it } from 'vitest';
import { makeHandler as makeTokenHandler } from '../../functions/oauth2-token';
import { ConfigError, readConfig } from '../../lib/config';
import type { Deps } from '../../lib/deps';
import { AppError, OAuthError, ValidationError } from '../../lib/errors';
import { withQuery } from '../../lib/oauth/authorization';
import { isAllowedRedirectUri, parseGrantTypes, parseRedirectUris } from '../../lib/oauth/client';
import { presentedClient } from '../../lib/oauth/client-auth';
import { requireClientSecretPepper } from '../../lib/oauth/client-secret';
import { oauthErrors, rfcErrorFormat } from '../../lib/oauth/errors';
import { formatGrantRefreshToken, parseGrantRefreshToken } from '../../lib/oauth/grant';
import { s256, verifyPkce } from '../../lib/oauth/pkce';
import { isWithinScope, parseScope } from '../../lib/oauth/scope';
import { apiEvent } from '../helpers/http';
import { LAMBDA_SETTINGS } from '../helpers/lambda-env';
import { basic } from '../helpers/oauth';

describe('PKCE S256 (RFC 7636)', () => {
  // RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('computes the RFC 7636 Appendix B challenge', () => {
    expect(s256(verifier)).toBe(challenge);
  });
  it.each([
    ['the right verifier', verifier, true],
    ['another verifier', 'x'.repeat(43), false],
    ['no verifier', undefined, false],
    ['a verifier shorter than 43 characters', verifier.slice(0, 42), false],
    ['a verifier longer than 128 characters', 'a'.repeat(129), false],
    ['a verifier with characters outside unreserved', `${verifier.slice(0, 42)}+`, false],
    ['the challenge itself (plain)', challenge, false],
  ])('%s: %s', (_, presented, expected) => {
    expect(verifyPkce(presented, challenge)).toBe(expected);
  });
});

describe('scope', () => {
  it.each([
    ['a b', ['a', 'b']],
    ['  a  b a ', ['a', 'b']],
    ['orders:read https://api.example.com/x', ['orders:read', 'https://api.example.com/x']],
    ['', []],
    ['a "b"', undefined],
    ['a\\b', undefined],
    ['a\tb', undefined],
    ['é', undefined],
  ])('parses %j', (value, expected) => {
    expect(parseScope(value)).toEqual(expected);
  });
  it('checks that a request stays within what is allowed', () => {
    expect(isWithinScope(['a'], ['a', 'b'])).toBe(true);
    expect(isWithinScope(['a', 'c'], ['a', 'b'])).toBe(false);
  });
});

describe('client registration rules', () => {
  it.each([
    ['https://app.example.com/cb', true],
    ['https://app.example.com:8443/cb?x=1', true],
    ['http://localhost/cb', true],
    ['http://localhost:3000/cb', true],
    ['http://127.0.0.1:9/cb', true],
    ['http://[::1]:9/cb', true],
    ['http://app.example.com/cb', false],
    ['http://127.0.0.2/cb', false],
    ['http://localhost.example.com/cb', false],
    ['https://app.example.com/cb#x', false],
    ['https://app.example.com/cb#', false],
    ['https://u@app.example.com/cb', false],
    ['https://app.example.com/c\tb', false],
    ['/cb', false],
    ['https:app.example.com', false],
    ['https://', false],
    ['myapp://cb', false],
    ['data:text/html,x', false],
    [`https://app.example.com/${'x'.repeat(2000)}`, false],
  ])('redirect URI %s allowed: %s', (uri, allowed) => {
    expect(isAllowedRedirectUri(uri)).toBe(allowed);
  });
  it('splits redirect URIs on spaces, once each, at most 10', () => {
    expect(parseRedirectUris('https://a.example/cb  https://a.example/cb https://b.example/cb')).toEqual([
      'https://a.example/cb',
      'https://b.example/cb',
    ]);
    expect(parseRedirectUris(Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`).join(' '))).toBeUndefined();
  });
  it.each([
    ['authorization_code', ['authorization_code']],
    ['authorization_code,refresh_token', ['authorization_code', 'refresh_token']],
    ['authorization_code, refresh_token client_credentials', ['authorization_code', 'refresh_token', 'client_credentials']],
    ['client_credentials client_credentials', ['client_credentials']],
    ['password', undefined],
    ['Authorization_Code', undefined],
    [',', undefined],
  ])('grant types %j', (value, expected) => {
    expect(parseGrantTypes(value)).toEqual(expected);
  });
});

describe('client credentials of a request (RFC 6749 2.3.1)', () => {
  it('reads HTTP Basic, form-decoding both parts', () => {
    expect(presentedClient({ authorization: basic('my app:1', 'p@ss+word%') }, {}, 'form')).toEqual({
      method: 'client_secret_basic',
      clientId: 'my app:1',
      clientSecret: 'p@ss+word%',
    });
  });
  it('accepts a body client_id equal to the Basic one', () => {
    expect(presentedClient({ authorization: basic('a', 'b') }, { client_id: 'a' }, 'form')).toEqual({
      method: 'client_secret_basic',
      clientId: 'a',
      clientSecret: 'b',
    });
  });
  it.each([
    ['a body secret too', { authorization: basic('a', 'b') }, { client_secret: 'b' }],
    ['another body client_id', { authorization: basic('a', 'b') }, { client_id: 'c' }],
    ['no colon', { authorization: `Basic ${Buffer.from('ab').toString('base64')}` }, {}],
    ['an empty client id', { authorization: `Basic ${Buffer.from(':b').toString('base64')}` }, {}],
    ['not base64', { authorization: 'Basic ***' }, {}],
    ['a broken percent-escape', { authorization: `Basic ${Buffer.from('%zz:b').toString('base64')}` }, {}],
  ])('marks Basic with %s invalid', (_, headers, body) => {
    expect(presentedClient(headers, body, 'form')).toMatchObject({ method: 'client_secret_basic', invalid: true });
  });
  it('reads the body otherwise, ignoring other schemes', () => {
    expect(presentedClient({ authorization: 'Bearer x' }, { client_id: 'a', client_secret: 'b' }, 'form')).toEqual({
      method: 'client_secret_post',
      clientId: 'a',
      clientSecret: 'b',
    });
    expect(presentedClient({}, { client_id: 'a' }, 'form')).toEqual({ method: 'none', clientId: 'a' });
  });
  it('refuses a JSON body without credentials as the seed does', () => {
    expect(() => presentedClient({}, { client_id: 'a' }, 'json')).toThrow(
      new ValidationError('client_secret: Invalid input: expected string, received undefined', {
        fields: [{ path: 'client_secret', message: 'Invalid input: expected string, received undefined' }],
      }),
    );
  });
});

describe('refresh tokens of grants', () => {
  it('round-trips and refuses anything else, JWTs included', () => {
    const token = formatGrantRefreshToken({ grantId: 'g'.repeat(22), generation: 3, secret: 's'.repeat(43) });
    expect(parseGrantRefreshToken(token)).toEqual({ grantId: 'g'.repeat(22), generation: 3, secret: 's'.repeat(43) });
    for (const bad of [
      '',
      'a.b.c',
      `${'g'.repeat(22)}.01.${'s'.repeat(43)}`,
      `${'g'.repeat(22)}.-1.${'s'.repeat(43)}`,
      'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl',
    ]) {
      expect(parseGrantRefreshToken(bad)).toBeUndefined();
    }
  });
});

describe('redirect with parameters', () => {
  it.each([
    ['https://a.example/cb', 'https://a.example/cb?code=c&state=s'],
    ['https://a.example/cb?', 'https://a.example/cb?code=c&state=s'],
    ['https://a.example/cb?x=1&y', 'https://a.example/cb?x=1&y&code=c&state=s'],
    ['https://a.example/cb?x=a%2Bb+c', 'https://a.example/cb?x=a%2Bb+c&code=c&state=s'],
    ['https://a.example', 'https://a.example/?code=c&state=s'],
  ])('adds code and state to %s', (uri, expected) => {
    expect(withQuery(uri, { code: 'c', state: 's', absent: undefined })).toBe(expected);
  });
  it('encodes the values', () => {
    expect(withQuery('https://a.example/cb', { state: 'a&b=c d#é' })).toBe('https://a.example/cb?state=a%26b%3Dc+d%23%C3%A9');
  });
});

describe('RFC-format errors', () => {
  const formEvent = apiEvent({ headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' } });
  it('answers an OAuthError with its code and status, and no-store', () => {
    expect(rfcErrorFormat(oauthErrors.invalidClient(true), formEvent)).toEqual({
      statusCode: 401,
      headers: { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"', 'Cache-Control': 'no-store', Pragma: 'no-cache' },
      json: { error: 'invalid_client', error_description: 'Invalid client' },
    });
  });
  it('answers other request errors as invalid_request, keeping error_description within RFC 6749 characters', () => {
    expect(rfcErrorFormat(new ValidationError('x: Invalid option: expected one of "a"|"b" \\ é'), formEvent)?.json).toEqual({
      error: 'invalid_request',
      error_description: "x: Invalid option: expected one of 'a'|'b' ? ?",
    });
    expect(rfcErrorFormat(new AppError(503, 'Service unavailable'), formEvent)?.json).toMatchObject({ error: 'temporarily_unavailable' });
  });
  it('leaves JSON requests to the envelope', () => {
    expect(rfcErrorFormat(new OAuthError(400, 'Invalid grant', 'invalid_grant'), apiEvent())).toBeUndefined();
  });
});

describe('the client-secret pepper in the configuration', () => {
  it('comes from OAUTH_CLIENT_SECRET_PEPPER, else from a local file under .data/', () => {
    const pepper = 'p'.repeat(32);
    expect(readConfig({ OAUTH_CLIENT_SECRET_PEPPER: pepper }).oauthClientSecretPepper).toEqual({ source: 'env', value: pepper });
    expect(readConfig({}).oauthClientSecretPepper).toEqual({ source: 'file', path: '.data/oauth-client-secret-pepper' });
    expect(readConfig({ OAUTH_CLIENT_SECRET_PEPPER_FILE: '/tmp/p' }).oauthClientSecretPepper).toEqual({ source: 'file', path: '/tmp/p' });
  });
  it('is missing in AWS Lambda without OAUTH_CLIENT_SECRET_PEPPER, and the functions that hash client secrets refuse to start', () => {
    const aws = {
      AWS_LAMBDA_FUNCTION_NAME: 'identity-service-prod-oauth2Token',
      ...LAMBDA_SETTINGS,
      MFA_DELIVERY: 'aws',
      MFA_EMAIL_FROM: 'a@example.com',
      MFA_KEY_SOURCE: 'kms',
      KMS_KEY_ID: 'k',
    };
    const config = readConfig(aws);
    expect(config.oauthClientSecretPepper).toEqual({ source: 'missing' });
    const missing = new ConfigError(
      'Missing environment variable OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID (or OAUTH_CLIENT_SECRET_PEPPER): the pepper file is for local development only',
    );
    expect(() => requireClientSecretPepper(config)).toThrow(missing);
    expect(() => makeTokenHandler({ ...({} as Deps), config })).toThrow(missing);
    expect(readConfig({ ...aws, OAUTH_CLIENT_SECRET_PEPPER: 'p'.repeat(32) }).oauthClientSecretPepper.source).toBe('env');
    expect(readConfig({ ...aws, DYNAMODB_ENDPOINT: 'http://localhost:8000' }).oauthClientSecretPepper.source).toBe('file');
  });
  it('refuses a pepper under 32 characters', () => {
    expect(() => readConfig({ OAUTH_CLIENT_SECRET_PEPPER: 'short' })).toThrow(
      new ConfigError('Environment variable OAUTH_CLIENT_SECRET_PEPPER must be at least 32 characters'),
    );
  });
});
