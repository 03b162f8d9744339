import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OidcConnection } from '../../lib/federation/connection';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { userWithVerifiedEmail, verifiedDomain } from '../helpers/federation';
import { browserAuthorize, CookieJar, continueLocation, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { createClient, redeemCode, type TestClient } from '../helpers/oauth';
import { signInAt, startOidcIdp, storedOidcConnection, type TestIdp, type TestIdpOptions } from '../helpers/oidc-idp';

/**
 * GET /sso/oidc/callback (docs/api.md 14.4) through the functions, against oidc-provider
 * as the organization's IdP: the hosted sign-in's home-realm discovery, /sso/begin, the
 * IdP's sign-in, the callback, consent and the code. Every refusal is the error page,
 * leaves no session and no user behind, and is in the tenant's audit trail.
 */

describe('GET /sso/oidc/callback', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let domain: string;
  let client: TestClient;
  let idp: TestIdp;
  let connection: OidcConnection;
  const idps: TestIdp[] = [];
  const origin = () => deps.config.issuer;
  const email = (name: string) => `${name}@${domain}`;

  const startIdp = async (options: Partial<TestIdpOptions> = {}) => {
    const started = await startOidcIdp({ redirectUri: `${deps.config.issuer}/sso/oidc/callback`, ...options });
    idps.push(started);
    return started;
  };

  const connect = (server: TestIdp) => storedOidcConnection(deps, tenantId, server);

  /**
   * The browser up to the IdP: the app's authorization request, then either home-realm
   * discovery of `typed` (an email) or /sso/begin of a given connection; the IdP's URL.
   */
  async function setOff(jar: CookieJar, route: { typed: string } | { to: OidcConnection }) {
    const started = await browserAuthorize(app, jar, client, { scope: 'openid orders:read' });
    let query: Record<string, string> = { connection: 'to' in route ? route.to.id : '' };
    if ('typed' in route) {
      const discovered = await postForm(app, jar, 'hostedSignIn', { csrf: started.csrf, username: route.typed }, origin());
      expect(discovered.status).toBe(200);
      query = Object.fromEntries(new URL(continueLocation(discovered) ?? '').searchParams);
    }
    const begun = jar.take(await app.request('ssoBegin', { method: 'GET', headers: jar.header(), query }));
    return { begun, verifier: started.verifier };
  }

  /** Our callback as the browser brings it back. */
  const callback = (jar: CookieJar, url: URL, on: App = app) =>
    on.request('ssoOidcCallback', { method: 'GET', headers: jar.header(), query: Object.fromEntries(url.searchParams) });

  /** A whole sign-in of the IdP's account `login`: the tokens the app gets, or the page that refused. */
  async function federatedSignIn(login: string, route: { typed: string } | { to: OidcConnection }, tamper?: (url: URL) => void) {
    const jar = new CookieJar();
    const { begun, verifier } = await setOff(jar, route);
    expect(begun.status).toBe(302);
    const toIdp = new URL(begun.headers.Location ?? '');
    tamper?.(toIdp);
    const back = await signInAt(toIdp, login);
    const answered = jar.take(await callback(jar, back));
    if (answered.status !== 200 && answered.status !== 303) return { refused: answered, jar, back };
    const consented =
      answered.status === 200
        ? await postForm(app, jar, 'hostedConsent', { csrf: csrfOf(answered), decision: 'allow' }, origin())
        : answered;
    expect(consented.status).toBe(303);
    const code = new URL(consented.headers.Location ?? '').searchParams.get('code') ?? '';
    const tokens = await redeemCode(app, client, { code, verifier });
    expect(tokens.status).toBe(200);
    const body = tokens.body as { access_token: string; id_token: string };
    return { jar, toIdp, back, idToken: decodeJwt(body.id_token), accessToken: decodeJwt(body.access_token) };
  }

  const failures = async (reason: string) =>
    (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 200, type: 'login_failed' })).events
      .filter((event) => event.details.reason === reason)
      .map((event) => event.details);

  /** The error page, and nothing left behind: no session cookie, no user of the address. */
  async function expectRefused(refused: Response | undefined, status: number, message: string, address?: string) {
    expect(refused?.status).toBe(status);
    expect(refused?.headers['Content-Type']).toMatch(/^text\/html/);
    expect(String(refused?.body)).toContain(message);
    expect((refused?.cookies ?? []).filter((cookie) => cookie.startsWith('__Host-session='))).toEqual([]);
    if (address) expect(await deps.store.users.findByEmail(tenantId, address)).toEqual([]);
  }

  beforeAll(async () => {
    deps = await testDeps();
    deps.clock.set(Date.now());
    app = testApp(deps);
    tenantId = uniqueTenant('fed-oidc');
    domain = `${tenantId}.example`;
    const admin = await registerAdmin(app, tenantId);
    client = await createClient(app, admin.token, tenantId, { scope: 'openid orders:read' });
    await verifiedDomain(deps, tenantId, domain);
    idp = await startIdp();
    connection = await connect(idp);
  });

  afterAll(async () => {
    await Promise.all(idps.map((started) => started.close()));
  });

  it('provisions a user just in time from the email typed at the hosted sign-in, with the mapped role, amr and idp', async () => {
    idp.accounts.set('frank', { email: email('frank'), email_verified: true, groups: ['finance', 'staff'], amr: ['pwd', 'otp'] });
    const signed = await federatedSignIn('frank', { typed: email('frank') });
    expect(signed.idToken).toMatchObject({ amr: ['fed', 'mfa'], idp: connection.id });
    expect(signed.accessToken).toMatchObject({ idp: connection.id });
    const [user] = await deps.store.users.findByEmail(tenantId, email('frank'));
    expect(user).toMatchObject({ role: 'FINANCE', emailVerified: true, username: email('frank') });
    expect(signed.idToken?.sub).toBe(user?.id);
    expect(await deps.store.federatedIdentities.find(tenantId, connection.id, 'frank')).toEqual({ userId: user?.id });
    // What was typed went to the IdP as the login hint.
    expect(signed.toIdp?.searchParams.get('login_hint')).toBe(email('frank'));
  });

  it('re-maps the role from the IdP’s groups at the next sign-in', async () => {
    idp.accounts.set('gina', { email: email('gina'), groups: ['staff'] });
    const first = await federatedSignIn('gina', { to: connection });
    expect(first.idToken?.amr).toEqual(['fed']);
    const [before] = await deps.store.users.findByEmail(tenantId, email('gina'));
    expect(before?.role).toBe('ANALYST');
    idp.accounts.set('gina', { email: email('gina'), groups: 'shop-admins' });
    await federatedSignIn('gina', { to: connection });
    const after = await deps.store.users.findByEmail(tenantId, email('gina'));
    expect(after.map((user) => [user.id, user.role])).toEqual([[before?.id, 'ADMIN']]);
  });

  it('links the first sign-in to the tenant’s user with the same verified email', async () => {
    const hank = await userWithVerifiedEmail(deps, tenantId, 'hank', email('hank'));
    idp.accounts.set('hank-at-idp', { email: email('hank'), email_verified: true, groups: ['staff'] });
    const signed = await federatedSignIn('hank-at-idp', { typed: email('hank') });
    expect(signed.idToken?.sub).toBe(hank.id);
    expect(await deps.store.federatedIdentities.find(tenantId, connection.id, 'hank-at-idp')).toEqual({ userId: hank.id });
    expect((await deps.store.users.findByEmail(tenantId, email('hank'))).map((user) => user.id)).toEqual([hank.id]);
  });

  it('refuses an email outside the tenant’s verified domains, and one the IdP says is unverified', async () => {
    idp.accounts.set('ivan', { email: 'ivan@elsewhere.example', email_verified: true });
    const outside = await federatedSignIn('ivan', { to: connection });
    await expectRefused(outside.refused, 403, 'This account is not allowed for this organization', 'ivan@elsewhere.example');
    expect(await failures('federation_domain_not_allowed')).toEqual([expect.objectContaining({ connectionId: connection.id })]);

    idp.accounts.set('judy', { email: email('judy'), email_verified: false });
    const unverified = await federatedSignIn('judy', { to: connection });
    await expectRefused(unverified.refused, 400, 'Sign-in failed', email('judy'));
    expect(await failures('federation_email_not_verified')).toHaveLength(1);
  });

  it('refuses an answer of another state, a replayed callback, and an ID token of another nonce', async () => {
    idp.accounts.set('kim', { email: email('kim') });
    // Another state: no pending sign-in of that key (and so no tenant to audit: the log has it).
    const jar = new CookieJar();
    const { begun } = await setOff(jar, { to: connection });
    const back = await signInAt(new URL(begun.headers.Location ?? ''), 'kim');
    back.searchParams.set('state', 'a-state-of-nobody');
    await expectRefused(await callback(jar, back), 400, 'Sign-in failed', email('kim'));
    expect(deps.logs).toContainEqual(expect.objectContaining({ event: 'federated_sign_in_refused', reason: 'expired' }));

    const signed = await federatedSignIn('kim', { to: connection });
    const [kim] = await deps.store.users.findByEmail(tenantId, email('kim'));
    const replayed = await callback(signed.jar, signed.back);
    await expectRefused(replayed, 400, 'Sign-in failed');
    expect(await deps.store.users.findByEmail(tenantId, email('kim'))).toEqual([kim]);

    idp.accounts.set('leo', { email: email('leo') });
    const forged = await federatedSignIn('leo', { to: connection }, (url) => url.searchParams.set('nonce', 'an-attackers-nonce'));
    await expectRefused(forged.refused, 400, 'Sign-in failed', email('leo'));
    expect(await failures('federation_invalid_response')).toEqual([expect.objectContaining({ connectionId: connection.id })]);
  });

  it('signs in once when the same answer arrives twice at once (a double-clicked link, a replay in flight)', async () => {
    idp.accounts.set('olive', { email: email('olive') });
    const jar = new CookieJar();
    const { begun } = await setOff(jar, { to: connection });
    const back = await signInAt(new URL(begun.headers.Location ?? ''), 'olive');
    const answers = await Promise.all([callback(jar, back), callback(jar, back), callback(jar, back)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400]);
    expect(await deps.store.users.findByEmail(tenantId, email('olive'))).toHaveLength(1);
  });

  it('refuses an ID token of another issuer, and one signed by a key the IdP does not publish', async () => {
    for (const options of [{ foreignIssuer: true }, { signingKey: 'foreign' as const }]) {
      const rogue = await startIdp(options);
      rogue.accounts.set('mia', { email: email('mia'), email_verified: true });
      const rogueConnection = await connect(rogue);
      const signed = await federatedSignIn('mia', { to: rogueConnection });
      await expectRefused(signed.refused, 400, 'Sign-in failed', email('mia'));
      expect(await failures('federation_invalid_response')).toContainEqual(expect.objectContaining({ connectionId: rogueConnection.id }));
    }
  });

  it('ends on the error page, in time, when the IdP is dead at the start or silent at the callback', async () => {
    const dead = await startIdp();
    const deadConnection = await connect(dead);
    await dead.close();
    const jar = new CookieJar();
    const { begun } = await setOff(jar, { to: deadConnection });
    await expectRefused(begun, 502, 'did not answer');

    const slow = await startIdp();
    slow.accounts.set('nina', { email: email('nina') });
    const slowConnection = await connect(slow);
    const patience: TestDeps & { idpDeadlineMs: number } = { ...deps, idpDeadlineMs: 300 };
    const impatient = testApp(patience);
    const slowJar = new CookieJar();
    const setOffSlow = await setOff(slowJar, { to: slowConnection });
    const back = await signInAt(new URL(setOffSlow.begun.headers.Location ?? ''), 'nina');
    slow.stalled = true;
    const started = Date.now();
    await expectRefused(await callback(slowJar, back, impatient), 502, 'did not answer', email('nina'));
    expect(Date.now() - started).toBeLessThan(3_000);
    const unreachable = await failures('federation_idp_unreachable');
    expect(unreachable.map((details) => details.connectionId).sort()).toEqual([deadConnection.id, slowConnection.id].sort());
  });
});
