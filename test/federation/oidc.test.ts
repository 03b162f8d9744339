import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { federationEndpoints, type OidcConnection } from '../../lib/federation/connection';
import {
  assertsMultiFactor,
  forgetDiscoveredIssuers,
  type OidcDeps,
  oidcAuthorizationUrl,
  type PendingOidcRequest,
  verifyOidcCallback,
} from '../../lib/federation/oidc';
import { FederationRefused } from '../../lib/federation/refusal';
import { type TestDeps, testDeps } from '../helpers/deps';
import { signInAt, startOidcIdp, storedOidcConnection, type TestIdp } from '../helpers/oidc-idp';

/**
 * The OIDC upstream's protocol checks (docs/api.md 14.4) against oidc-provider as the
 * merchant's IdP, over real HTTP: what goes to the IdP, what comes back, and every way an
 * answer is refused, each with the reason the audit trail records.
 */

const ISSUER = 'https://id.example.com';
const redirectUri = federationEndpoints(ISSUER, 'any').redirectUri;

let deps: TestDeps;
const idps: TestIdp[] = [];

async function idp(options: Parameters<typeof startOidcIdp>[0] extends infer O ? Partial<O> : never = {}) {
  const started = await startOidcIdp({ redirectUri, ...options });
  idps.push(started);
  started.accounts.set('alice', { email: 'alice@shop.example', email_verified: true, groups: ['shop-admins', 'staff'] });
  return started;
}

const connectionTo = (server: Pick<TestIdp, 'issuer' | 'clientId' | 'clientSecret'>, change: Partial<OidcConnection> = {}) =>
  storedOidcConnection(deps, 'tenant-oidc', server, { domains: ['shop.example'], ...change });

const pendingRequest = (): Required<PendingOidcRequest> => ({
  key: randomBytes(32).toString('base64url'),
  codeVerifier: randomBytes(32).toString('base64url'),
  nonce: randomBytes(16).toString('base64url'),
});

/** The authorization URL, the IdP's sign-in as `login`, and the callback it sends the browser to. */
async function callbackFrom(connection: OidcConnection, pending: PendingOidcRequest, login = 'alice', tamper?: (url: URL) => void) {
  const url = new URL(await oidcAuthorizationUrl(deps, connection, pending));
  tamper?.(url);
  return signInAt(url, login);
}

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FederationRefused);
  return (error as FederationRefused).reason;
}

beforeAll(async () => {
  deps = await testDeps({ ISSUER });
});

afterAll(async () => {
  await Promise.all(idps.map((started) => started.close()));
});

describe('oidcAuthorizationUrl', () => {
  it('sends the code flow with PKCE S256, state, nonce, the scopes, our redirect URI and the login hint', async () => {
    const server = await idp();
    const connection = await connectionTo(server, { scopes: ['email', 'groups'] });
    const pending = pendingRequest();
    const url = new URL(await oidcAuthorizationUrl(deps, connection, pending, 'alice@shop.example'));
    expect(`${url.origin}${url.pathname}`).toBe(`${server.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: server.clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid email groups',
      state: pending.key,
      nonce: pending.nonce,
      code_challenge: createHash('sha256').update(pending.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      login_hint: 'alice@shop.example',
    });
  });

  it('fetches the discovery document once per issuer', async () => {
    const server = await idp();
    const connection = await connectionTo(server);
    await oidcAuthorizationUrl(deps, connection, pendingRequest());
    await oidcAuthorizationUrl(deps, await connectionTo(server), pendingRequest());
    expect(server.requests.filter((path) => path === '/.well-known/openid-configuration')).toHaveLength(1);
  });

  it('refuses with idp_unreachable when the IdP is dead or answers nothing in time', async () => {
    const dead = await idp();
    const connection = await connectionTo(dead);
    await dead.close();
    expect(await refusalOf(oidcAuthorizationUrl(deps, connection, pendingRequest()))).toBe('idp_unreachable');

    const stalled = await idp();
    stalled.stalled = true;
    const started = Date.now();
    const quick: OidcDeps = { ...deps, idpDeadlineMs: 300 };
    expect(await refusalOf(oidcAuthorizationUrl(quick, await connectionTo(stalled), pendingRequest()))).toBe('idp_unreachable');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses a plain http IdP off loopback, and any http IdP outside DynamoDB Local', async () => {
    const server = await idp();
    const remote = await connectionTo(server, { issuer: 'http://idp.example.com' });
    expect(await refusalOf(oidcAuthorizationUrl(deps, remote, pendingRequest()))).toBe('invalid_response');
    forgetDiscoveredIssuers();
    const deployed: OidcDeps = { ...deps, config: { ...deps.config, loopbackIdentityProviders: false } };
    expect(await refusalOf(oidcAuthorizationUrl(deployed, await connectionTo(server), pendingRequest()))).toBe('invalid_response');
  });
});

describe('verifyOidcCallback', () => {
  let server: TestIdp;
  let connection: OidcConnection;

  beforeAll(async () => {
    server = await idp();
    connection = await connectionTo(server);
  });

  it('reads the subject, the email, the role claim and the factors from the signed ID token', async () => {
    server.accounts.set('bob', { email: 'bob@shop.example', email_verified: true, groups: 'shop-admins', amr: ['pwd', 'otp'] });
    const pending = pendingRequest();
    const callback = await callbackFrom(connection, pending, 'bob');
    expect(callback.searchParams.get('iss')).toBe(server.issuer);
    expect(await verifyOidcCallback(deps, connection, pending, callback)).toEqual({
      subject: 'bob',
      email: 'bob@shop.example',
      roles: ['shop-admins'],
      mfa: true,
    });
  });

  it('reads role values of an array, and no multi-factor from a password alone', async () => {
    server.accounts.set('carol', { email: 'carol@shop.example', groups: ['staff', 'shop-admins'], amr: ['pwd'] });
    const pending = pendingRequest();
    expect(await verifyOidcCallback(deps, connection, pending, await callbackFrom(connection, pending, 'carol'))).toEqual({
      subject: 'carol',
      email: 'carol@shop.example',
      roles: ['staff', 'shop-admins'],
      mfa: false,
    });
  });

  it('takes a multi-factor acr', async () => {
    server.accounts.set('dave', { email: 'dave@shop.example', acr: 'http://schemas.openid.net/pape/policies/2007/06/multi-factor' });
    const pending = pendingRequest();
    const claims = await verifyOidcCallback(deps, connection, pending, await callbackFrom(connection, pending, 'dave'));
    expect(claims.mfa).toBe(true);
  });

  it('reads the email from userinfo when the ID token has none', async () => {
    const strict = await idp({ claimsInIdToken: false });
    const strictConnection = await connectionTo(strict);
    const pending = pendingRequest();
    const claims = await verifyOidcCallback(deps, strictConnection, pending, await callbackFrom(strictConnection, pending));
    expect(claims).toEqual({ subject: 'alice', email: 'alice@shop.example', roles: ['shop-admins', 'staff'], mfa: false });
    expect(strict.requests).toContain('/me');
  });

  it.each([
    ['email_not_verified', 'an email the IdP says is unverified', { email: 'eve@shop.example', email_verified: false }],
    ['email_not_verified', 'the same said as a string', { email: 'eve@shop.example', email_verified: 'false' }],
  ])('refuses with %s: %s', async (reason, _what, account) => {
    const login = `eve-${randomBytes(3).toString('hex')}`;
    server.accounts.set(login, account);
    const pending = pendingRequest();
    expect(await refusalOf(verifyOidcCallback(deps, connection, pending, await callbackFrom(connection, pending, login)))).toBe(reason);
  });

  it('refuses with invalid_response an answer of another state, another nonce, or a code already redeemed', async () => {
    const pending = pendingRequest();
    const callback = await callbackFrom(connection, pending);
    expect(await refusalOf(verifyOidcCallback(deps, connection, { ...pending, key: 'another-state' }, callback))).toBe('invalid_response');

    const forged = pendingRequest();
    const tampered = await callbackFrom(connection, forged, 'alice', (url) => url.searchParams.set('nonce', 'an-attackers-nonce'));
    expect(await refusalOf(verifyOidcCallback(deps, connection, forged, tampered))).toBe('invalid_response');

    const once = pendingRequest();
    const first = await callbackFrom(connection, once);
    await verifyOidcCallback(deps, connection, once, first);
    expect(await refusalOf(verifyOidcCallback(deps, connection, once, first))).toBe('invalid_response');
  });

  it('refuses with invalid_response a PKCE verifier that is not the challenge’s', async () => {
    const pending = pendingRequest();
    const callback = await callbackFrom(connection, pending);
    const other = { ...pending, codeVerifier: randomBytes(32).toString('base64url') };
    expect(await refusalOf(verifyOidcCallback(deps, connection, other, callback))).toBe('invalid_response');
  });

  it('refuses with invalid_response an ID token signed by a key the IdP does not publish', async () => {
    const rogue = await idp({ signingKey: 'foreign' });
    const rogueConnection = await connectionTo(rogue);
    const pending = pendingRequest();
    expect(await refusalOf(verifyOidcCallback(deps, rogueConnection, pending, await callbackFrom(rogueConnection, pending)))).toBe(
      'invalid_response',
    );
  });

  it('refuses with invalid_response an answer and ID token of another issuer', async () => {
    const mixUp = await idp({ foreignIssuer: true });
    const mixUpConnection = await connectionTo(mixUp);
    const pending = pendingRequest();
    const callback = await callbackFrom(mixUpConnection, pending);
    expect(callback.searchParams.get('iss')).toBe(`${mixUp.issuer}/another-issuer`);
    expect(await refusalOf(verifyOidcCallback(deps, mixUpConnection, pending, callback))).toBe('invalid_response');
    // Without the RFC 9207 parameter, the ID token's own iss is refused.
    const again = pendingRequest();
    const second = await callbackFrom(mixUpConnection, again);
    second.searchParams.delete('iss');
    expect(await refusalOf(verifyOidcCallback(deps, mixUpConnection, again, second))).toBe('invalid_response');
  });

  it('fetches the JWKS once for the issuer’s many sign-ins', async () => {
    const pending = pendingRequest();
    await verifyOidcCallback(deps, connection, pending, await callbackFrom(connection, pending));
    expect(server.requests.filter((path) => path === '/jwks')).toHaveLength(1);
    expect(server.requests.filter((path) => path === '/token').length).toBeGreaterThan(3);
  });

  it('refuses with idp_denied an error answer of the IdP', async () => {
    const pending = pendingRequest();
    const callback = new URL(redirectUri);
    callback.search = new URLSearchParams({ error: 'access_denied', state: pending.key, iss: server.issuer }).toString();
    expect(await refusalOf(verifyOidcCallback(deps, connection, pending, callback))).toBe('idp_denied');
  });

  it('refuses with idp_unreachable, within the deadline, when the token endpoint answers nothing', async () => {
    const slow = await idp();
    const slowConnection = await connectionTo(slow);
    const pending = pendingRequest();
    const callback = await callbackFrom(slowConnection, pending);
    slow.stalled = true;
    const started = Date.now();
    expect(await refusalOf(verifyOidcCallback({ ...deps, idpDeadlineMs: 300 }, slowConnection, pending, callback))).toBe('idp_unreachable');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('assertsMultiFactor', () => {
  it.each([
    [['mfa'], undefined, true],
    [['pwd', 'mfa'], undefined, true],
    [['pwd', 'otp'], undefined, true],
    [['pwd', 'hwk'], undefined, true],
    [['hwk', 'fpt'], undefined, true],
    [['pwd'], undefined, false],
    [['otp'], undefined, false],
    [['pwd', 'pin'], undefined, false],
    ['mfa', undefined, true],
    [undefined, 'http://schemas.openid.net/pape/policies/2007/06/multi-factor', true],
    [undefined, 'urn:okta:loa:2fa:any', true],
    [undefined, 'urn:example:loa:1', false],
    [[42, 'pwd'], 7, false],
  ])('amr %j, acr %j: %s', (amr, acr, expected) => {
    expect(assertsMultiFactor(amr, acr)).toBe(expected);
  });
});
