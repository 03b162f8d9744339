import { beforeAll, describe, expect, it } from 'vitest';
import { FederationRefused, mappedRole } from '../../lib/federation/complete';
import type { Connection, FederatedClaims } from '../../lib/federation/connection';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { answerOf, federatedSignIn, setOff, storedConnection, verifiedDomain } from '../helpers/federation';
import { browserAuthorize, CookieJar, postForm } from '../helpers/hosted';
import { createClient, type TestClient, tokenRequest } from '../helpers/oauth';

/*
 * The core of a federated sign-in (docs/api.md 14.3) with the protocol left out: the IdP's
 * answer is what `verify` returns here; the OIDC and SAML suites run the real protocols.
 */

describe('federated sign-in: discovery, linking, provisioning, role mapping (docs/api.md 14.3)', () => {
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let client: TestClient;
  let connection: Connection;
  let domain: string;
  let origin: string;

  const newConnection = (tenant: string, change: Partial<Connection> = {}) =>
    storedConnection(deps, tenant, { domains: [domain], ...change });

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = deps.config.issuer;
    tenantId = uniqueTenant('fed-core');
    domain = `${tenantId}.example`;
    adminToken = (await registerAdmin(app, tenantId)).token;
    client = await createClient(app, adminToken, tenantId, { scope: 'openid orders:read' });
    await verifiedDomain(deps, tenantId, domain);
    connection = await newConnection(tenantId);
  });

  const setOffFor = (jar: CookieJar, to = connection) => setOff(deps, jar, to);
  const signInAs = (claims: FederatedClaims, options: { jar?: CookieJar; to?: Connection } = {}) =>
    federatedSignIn(deps, app, client, options.to ?? connection, claims, options.jar);

  const email = (name: string) => `${name}@${domain}`;
  const auditOf = async (type: 'login_failed' | 'login_succeeded') =>
    (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 100, type })).events;
  const failures = async (reason: string) =>
    (await auditOf('login_failed')).filter((event) => event.details.reason === reason).map((event) => event.details);

  it('asks for the username or email first once the tenant has a connection, and sends an email of its domain to /sso/begin', async () => {
    const jar = new CookieJar();
    const { response, csrf } = await browserAuthorize(app, jar, client);
    expect(response.status).toBe(200);
    expect(String(response.body)).toContain('Username or email');
    expect(String(response.body)).not.toContain('name="password"');
    const toIdp = await postForm(app, jar, 'hostedSignIn', { csrf, username: email('Dora') }, origin);
    expect(toIdp.status).toBe(303);
    const location = new URL(toIdp.headers.Location ?? '');
    expect(location.pathname).toBe('/sso/begin');
    expect(location.searchParams.get('connection')).toBe(connection.id);
    // A username (or an address of no connection) is asked for its password next.
    const next = await postForm(app, jar, 'hostedSignIn', { csrf, username: 'admin' }, origin);
    expect(next.status).toBe(200);
    expect(String(next.body)).toContain('name="password"');
    const outsider = await postForm(app, jar, 'hostedSignIn', { csrf, username: 'someone@elsewhere.example' }, origin);
    expect(String(outsider.body)).toContain('name="password"');
  });

  it('goes straight to the IdP with a login_hint of a connection’s domain', async () => {
    const jar = new CookieJar();
    const { response } = await browserAuthorize(app, jar, client, { login_hint: email('erin') });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.Location ?? '').searchParams.get('login_hint')).toBe(email('erin'));
    expect(jar.cookies.get('__Host-interaction')).toBeTruthy();
  });

  it('provisions a new user just in time with the mapped role, amr fed (+mfa) and idp in the tokens', async () => {
    const signed = await signInAs({ subject: 'okta|frank', email: email('frank'), roles: ['finance', 'staff'], mfa: true });
    expect(signed.idToken).toMatchObject({ amr: ['fed', 'mfa'], idp: connection.id });
    expect(signed.accessToken).toMatchObject({ idp: connection.id });
    const [user] = await deps.store.users.findByEmail(tenantId, email('frank'));
    expect(user).toMatchObject({ role: 'FINANCE', emailVerified: true, username: email('frank') });
    expect(user?.passwordHash).toBeUndefined();
    const events = await auditOf('login_succeeded');
    expect(events.find((event) => event.targetUserId === user?.id)?.details).toMatchObject({
      amr: ['fed', 'mfa'],
      connectionId: connection.id,
    });
  });

  it('re-applies the IdP’s role at every sign-in, and signs the same identity into the same account', async () => {
    await signInAs({ subject: 'okta|gina', email: email('gina'), roles: ['staff'], mfa: false });
    const [first] = await deps.store.users.findByEmail(tenantId, email('gina'));
    expect(first?.role).toBe('ANALYST');
    const again = await signInAs({ subject: 'okta|gina', email: email('gina'), roles: ['finance'], mfa: false });
    expect(again.idToken?.amr).toEqual(['fed']);
    const users = await deps.store.users.findByEmail(tenantId, email('gina'));
    expect(users.map((user) => [user.id, user.role])).toEqual([[first?.id, 'FINANCE']]);
    // No value of the mapping: the default role.
    await signInAs({ subject: 'okta|gina', email: email('gina'), roles: ['unknown-group'], mfa: false });
    expect((await deps.store.users.findById(tenantId, first?.id ?? ''))?.role).toBe('ANALYST');
  });

  it('links the first sign-in to the tenant’s user with the same verified email, and re-maps its role', async () => {
    const now = new Date().toISOString();
    const hank = {
      id: deps.random.id(),
      tenantId,
      shopId: 'default',
      username: 'hank',
      role: 'OPERATOR' as const,
      status: 'active' as const,
      email: email('hank'),
      emailVerified: true,
      createdAt: now,
      updatedAt: now,
    };
    expect(await deps.store.users.create(hank, { createTenant: false })).toBe('created');
    const signed = await signInAs({ subject: 'okta|hank', email: email('Hank'), roles: ['staff'], mfa: false });
    expect(signed.idToken?.sub).toBe(hank.id);
    expect((await deps.store.users.findById(tenantId, hank.id))?.role).toBe('ANALYST');
    expect(await deps.store.federatedIdentities.find(tenantId, connection.id, 'okta|hank')).toEqual({ userId: hank.id });
    expect(mappedRole({ roleMapping: { a: 'FINANCE', b: 'ADMIN' }, defaultRole: 'ANALYST' }, ['a', 'b'])).toBe('ADMIN');
    expect(mappedRole({ defaultRole: 'ANALYST' }, ['a'])).toBeUndefined();
  });

  it('refuses an email outside the tenant’s verified domains, and a connection’s tenant never signs in another’s user', async () => {
    const outside = await signInAs({ subject: 'okta|ivan', email: 'ivan@gmail.example', roles: [], mfa: false });
    expect(outside.refused?.status).toBe(403);
    expect(outside.refused?.body).toContain('This account is not allowed for this organization');
    // A domain verified by another tenant, even if listed on this connection.
    const other = uniqueTenant('fed-core');
    const theirs = `${other}.example`;
    await deps.store.domains.create({ tenantId: other, domain: theirs, status: 'pending', token: 't', createdAt: 'now' });
    await deps.store.domains.verify({ tenantId: other, domain: theirs }, 'now');
    const greedy = await newConnection(tenantId, { domains: [domain, theirs] });
    const stolen = await signInAs({ subject: 'okta|judy', email: `judy@${theirs}`, roles: [], mfa: false }, { to: greedy });
    expect(stolen.refused?.status).toBe(403);
    expect(await deps.store.users.findByEmail(tenantId, `judy@${theirs}`)).toEqual([]);
    expect(await failures('federation_domain_not_allowed')).toHaveLength(2);
    await deps.store.connections.delete(greedy);
  });

  it('without JIT provisioning, an unknown identity has no account', async () => {
    const closed = await newConnection(tenantId, { jitProvisioning: false });
    const signed = await signInAs({ subject: 'okta|kim', email: email('kim'), roles: [], mfa: false }, { to: closed });
    expect(signed.refused?.status).toBe(403);
    expect(signed.refused?.body).toContain('No account for this user');
    expect(await deps.store.users.findByEmail(tenantId, email('kim'))).toEqual([]);
    expect(await failures('federation_no_account')).toEqual([expect.objectContaining({ connectionId: closed.id })]);
    await deps.store.connections.delete(closed);
  });

  it('answers a pending request once, to the browser that set off, and never through a disabled connection', async () => {
    const claims = { subject: 'okta|leo', email: email('leo'), roles: [], mfa: false };
    const signed = await signInAs(claims);
    expect(signed.tokens).toBeDefined();
    const replay = await answerOf(deps, signed.jar, signed.pending.key, claims);
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('Sign-in failed');

    const elsewhere = new CookieJar();
    await browserAuthorize(app, elsewhere, client);
    const pending = await setOffFor(elsewhere);
    elsewhere.cookies.set('__Host-federation', 'another-browsers-secret');
    expect((await answerOf(deps, elsewhere, pending.key, claims)).status).toBe(400);
    expect(await failures('federation_wrong_browser')).toHaveLength(1);

    const protocol = new CookieJar();
    await browserAuthorize(app, protocol, client);
    const checked = await setOffFor(protocol);
    const refused = await answerOf(deps, protocol, checked.key, async () => {
      throw new FederationRefused('invalid_response', 'signature');
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('Sign-in failed');
    // What the IdP sent is never on the page: the detail goes to the log.
    expect(refused.body).not.toContain('signature');
    expect(await failures('federation_invalid_response')).toHaveLength(1);
  });

  it('ends the sessions of a connection once it is disabled, and refuses new sign-ins through it', async () => {
    const other = await newConnection(tenantId);
    const signed = await signInAs({ subject: 'okta|mia', email: email('mia'), roles: [], mfa: false }, { to: other });
    expect(signed.jar.cookies.get('__Host-session')).toBeTruthy();
    // Single sign-on while the connection is enabled: the code at once (consent remembered).
    const before = await browserAuthorize(app, signed.jar, client, { scope: 'openid orders:read' });
    expect(before.response.status).toBe(302);
    const tokens = signed.tokens as NonNullable<typeof signed.tokens>;
    const userInfo = () => app.request('userInfo', { method: 'GET', headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await userInfo()).status).toBe(200);
    await deps.store.connections.update(other, { enabled: false, updatedAt: new Date().toISOString() });
    // What a partner app holds from the session ends with it: userinfo, introspection, refresh.
    expect((await userInfo()).status).toBe(401);
    const introspected = await app.request('introspect', tokenRequest(client, { token: tokens.access_token }));
    expect(introspected.body).toMatchObject({ active: false });
    const refreshed = await app.request(
      'oauth2Token',
      tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    );
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The browser session is over: the next authorization asks who is signing in again.
    const after = await browserAuthorize(app, signed.jar, client, { scope: 'openid orders:read' });
    expect(after.response.status).toBe(200);
    expect(String(after.response.body)).toContain('Username or email');
    const refused = await signInAs({ subject: 'okta|mia', email: email('mia'), roles: [], mfa: false }, { to: other });
    expect(refused.refused?.status).toBe(400);
    expect(await failures('federation_connection_disabled')).toHaveLength(1);
  });

  it('ends the sessions of a deleted connection too, and a deleted user’s identity starts afresh', async () => {
    const other = await newConnection(tenantId);
    const claims = { subject: 'okta|nina', email: email('nina'), roles: [], mfa: false };
    const signed = await signInAs(claims, { to: other });
    const userId = String(signed.idToken?.sub);
    // The user is deleted: its link goes with it, and the same identity is provisioned anew.
    const deleted = await app.request('adminDeleteUser', { token: adminToken, pathParameters: { userId } });
    expect(deleted.status).toBe(200);
    expect(await deps.store.federatedIdentities.find(tenantId, other.id, claims.subject)).toBeUndefined();
    const anew = await signInAs(claims, { to: other });
    expect(anew.idToken?.sub).not.toBe(userId);
    expect((await browserAuthorize(app, anew.jar, client, { scope: 'openid orders:read' })).response.status).toBe(302);
    expect(await deps.store.connections.delete(other)).toBe(true);
    const after = await browserAuthorize(app, anew.jar, client, { scope: 'openid orders:read' });
    expect(after.response.status).toBe(200);
  });

  it('is an ordinary session: an ADMIN’s sign-out of the user ends it', async () => {
    const signed = await signInAs({ subject: 'okta|olga', email: email('olga'), roles: [], mfa: false });
    const userId = String(signed.idToken?.sub);
    expect((await browserAuthorize(app, signed.jar, client, { scope: 'openid orders:read' })).response.status).toBe(302);
    const out = await app.request('adminSignOutUser', { token: adminToken, pathParameters: { userId } });
    expect(out.status).toBe(200);
    expect((await browserAuthorize(app, signed.jar, client, { scope: 'openid orders:read' })).response.status).toBe(200);
  });
});
