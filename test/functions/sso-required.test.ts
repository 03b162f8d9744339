import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ssoConnectionFor } from '../../lib/federation/sso-required';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { failure } from '../helpers/failures';
import { connectionOf, oidcConnection, verifiedDomain } from '../helpers/federation-admin';
import { browserAuthorize, CookieJar, continueLocation, postForm } from '../helpers/hosted';
import { activateTotp, newTotpSecret } from '../helpers/mfa';
import { createClient } from '../helpers/oauth';

const PASSWORD = 'sso required passphrase';
const ssoRequired = { status: 403, headers: expect.anything(), body: failure('Sign in with your organization') };
const invalidCredentials = { status: 401, headers: expect.anything(), body: failure('Invalid credentials') };

describe('POST /auth/login with a connection that requires SSO (docs/api.md 14.1)', () => {
  let deps: TestDeps;
  let app: App;
  let dns: TestDnsServer;
  let tenantId: string;
  let token: string;
  /** Verified for the tenant, listed by its ssoRequired connection. */
  let domain: string;
  let connectionId: string;

  const login = (username: string, password = PASSWORD) => app.request('login', { body: { username, password, tenantId } });
  const register = async (username: string, email?: string) => {
    const registered = await app.request('register', {
      token,
      body: { username, password: PASSWORD, role: 'OPERATOR', tenantId, ...(email ? { email } : {}) },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    return registered.body.data.user.id as string;
  };
  const loginEvents = async () =>
    (await app.request('adminListAudit', { token, query: { limit: '100' } })).body.data.events.filter(
      (event: { type: string }) => event.type === 'login_failed',
    );

  beforeAll(async () => {
    dns = await startDnsServer();
    deps = nearRealTime(await testDeps({ DNS_SERVERS: dns.address }));
    app = testApp(deps);
    tenantId = uniqueTenant('sso');
    token = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
    domain = `${tenantId}.example`;
    await verifiedDomain(app, dns, token, domain);
    connectionId = await connectionOf(app, token, oidcConnection([domain], { ssoRequired: true }));
  });
  afterAll(() => dns.close());

  it('refuses a username at the domain before any password work, even an unknown one or with a wrong password, and audits it', async () => {
    const username = `ada@${domain.toUpperCase()}`;
    const hashes = { verify: 0 };
    const hasher = deps.hasher;
    const counting = testApp({
      ...deps,
      hasher: {
        ...hasher,
        verify: (...args) => {
          hashes.verify++;
          return hasher.verify(...args);
        },
        verifyDummy: (password) => {
          hashes.verify++;
          return hasher.verifyDummy(password);
        },
      },
    });
    expect(await counting.request('login', { body: { username, password: 'anything at all', tenantId } })).toEqual(ssoRequired);
    expect(hashes.verify).toBe(0);
    expect(await loginEvents()).toContainEqual(
      expect.objectContaining({ actor: { type: 'user', id: null }, details: { username, reason: 'sso_required' } }),
    );
  });

  it('refuses the right password of a user whose stored email is at the domain, but answers a wrong one as any other', async () => {
    const userId = await register(`grace-${tenantId}`, `grace@${domain}`);
    expect(await login(`grace-${tenantId}`, 'not the password')).toEqual(invalidCredentials);
    expect(await login(`grace-${tenantId}`)).toEqual(ssoRequired);
    expect(await loginEvents()).toContainEqual(
      expect.objectContaining({
        actor: { type: 'user', id: userId },
        targetUserId: userId,
        details: { username: `grace-${tenantId}`, reason: 'sso_required' },
      }),
    );
  });

  it('refuses before the second factor: no code is asked for or sent', async () => {
    await register(`mfa-${tenantId}`, `mfa@${domain}`);
    // The user turns on TOTP in a session of before the connection required SSO.
    await app.request('adminUpdateConnection', { token, pathParameters: { id: connectionId }, body: { ssoRequired: false } });
    const session = await login(`mfa-${tenantId}`);
    await activateTotp(app, deps, session.body.data.token, newTotpSecret());
    await app.request('adminUpdateConnection', { token, pathParameters: { id: connectionId }, body: { ssoRequired: true } });
    expect(await login(`mfa-${tenantId}`)).toEqual(ssoRequired);
  });

  it('sends a user whose stored email is at the domain from the hosted sign-in’s password to the IdP (docs/api.md 11.7)', async () => {
    await register(`hosted-${tenantId}`, `hosted@${domain}`);
    const client = await createClient(app, token, tenantId);
    const jar = new CookieJar();
    const { csrf } = await browserAuthorize(app, jar, client);
    const origin = deps.config.issuer;
    const username = `hosted-${tenantId}`;
    const wrong = await postForm(app, jar, 'hostedSignIn', { csrf, username, password: 'not the password' }, origin);
    expect(wrong.status).toBe(401);
    const sent = await postForm(app, jar, 'hostedSignIn', { csrf, username, password: PASSWORD }, origin);
    // On to the IdP by a page, not a redirect: the sign-in page's form-action would block the IdP.
    expect(sent.status).toBe(200);
    const location = new URL(continueLocation(sent) ?? '');
    expect([location.pathname, location.searchParams.get('connection'), location.searchParams.get('login_hint')]).toEqual([
      '/sso/begin',
      connectionId,
      `hosted@${domain}`,
    ]);
    expect(jar.cookies.has('__Host-session')).toBe(false);
  });

  it('lets the password work for other domains, a disabled connection, one without ssoRequired, and a domain no longer verified', async () => {
    await register('linus', 'linus@elsewhere.example');
    expect((await login('linus')).status).toBe(200);
    const userAtDomain = `ken-${tenantId}`;
    await register(userAtDomain, `ken@${domain}`);
    const patch = (body: Record<string, unknown>) =>
      app.request('adminUpdateConnection', { token, pathParameters: { id: connectionId }, body });
    await patch({ enabled: false });
    expect((await login(userAtDomain)).status).toBe(200);
    await patch({ enabled: true, ssoRequired: false });
    expect((await login(userAtDomain)).status).toBe(200);
    await patch({ ssoRequired: true });
    expect(await login(userAtDomain)).toEqual(ssoRequired);
    // Another tenant's connection and claim say nothing about this tenant.
    expect(await ssoConnectionFor(deps, uniqueTenant('other'), `ken@${domain}`)).toBeUndefined();
    expect(await ssoConnectionFor(deps, tenantId, 'no-at-sign')).toBeUndefined();
    expect(await app.request('adminDeleteDomain', { token, pathParameters: { domain } })).toMatchObject({ status: 200 });
    try {
      expect((await login(userAtDomain)).status).toBe(200);
    } finally {
      await verifiedDomain(app, dns, token, domain);
    }
  });
});
