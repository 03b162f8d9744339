import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../lib/crypto/token-hash';
import { completeFederation, FederationRefused, mappedRole } from '../../lib/federation/complete';
import type { Connection, FederatedClaims } from '../../lib/federation/connection';
import type { Reply } from '../../lib/http/reply';
import type { FederationRequest } from '../../lib/store/federation';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { createClient, redeemCode, type TestClient } from '../helpers/oauth';

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

  const newConnection = async (tenant: string, change: Partial<Connection> = {}): Promise<Connection> => {
    const now = new Date().toISOString();
    const created: Connection = {
      id: deps.random.id(),
      tenantId: tenant,
      type: 'saml',
      name: 'Corporate IdP',
      domains: [domain],
      roleMapping: { 'shop-admins': 'ADMIN', finance: 'FINANCE', staff: 'ANALYST' },
      defaultRole: 'ANALYST',
      jitProvisioning: true,
      ssoRequired: false,
      enabled: true,
      createdAt: now,
      updatedAt: now,
      createdBy: 'admin',
      idpEntityId: 'https://idp.example.test',
      ssoUrl: 'https://idp.example.test/sso',
      signingCertificates: ['PEM'],
      ...change,
    } as Connection;
    await deps.store.connections.create(created);
    return created;
  };

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    origin = deps.config.issuer;
    tenantId = uniqueTenant('fed-core');
    domain = `${tenantId}.example`;
    adminToken = (await registerAdmin(app, tenantId)).token;
    client = await createClient(app, adminToken, tenantId, { scope: 'openid orders:read' });
    await deps.store.domains.create({ tenantId, domain, status: 'pending', token: 't', createdAt: 'now' });
    expect(await deps.store.domains.verify({ tenantId, domain }, 'now')).toBe('verified');
    connection = await newConnection(tenantId);
  });

  /** The event of a request of the browser with the jar's cookies. */
  const eventOf = (jar: CookieJar): APIGatewayProxyEventV2 =>
    ({
      headers: { ...jar.header(), 'user-agent': 'test-browser' },
      cookies: [...jar.cookies].map(([name, value]) => `${name}=${value}`),
      requestContext: { http: { sourceIp: '203.0.113.7', userAgent: 'test-browser', method: 'POST', path: '/' } },
    }) as unknown as APIGatewayProxyEventV2;

  /** What beginFederation leaves behind: a pending request, and its cookie in the jar. */
  const setOff = async (jar: CookieJar, toConnection = connection): Promise<FederationRequest> => {
    const cookie = jar.cookies.get('__Host-interaction') ?? '';
    const interactionId = cookie.split('.')[1] ?? '';
    const secret = deps.random.token(32);
    const now = Math.floor(deps.clock.now() / 1000);
    const pending: FederationRequest = {
      key: deps.random.token(32),
      tenantId: toConnection.tenantId,
      connectionId: toConnection.id,
      interactionId,
      browserHash: hashToken(secret),
      createdAt: now,
      expiresAt: now + 600,
    };
    await deps.store.federationRequests.create(pending);
    jar.cookies.set('__Host-federation', secret);
    return pending;
  };

  const asResponse = (reply: Reply): Response =>
    ({ status: reply.statusCode, headers: reply.headers ?? {}, body: reply.html ?? reply.json, cookies: reply.cookies }) as Response;

  /** A whole federated sign-in of `claims`: the hosted page, the IdP's answer, consent; the code's tokens or the page refused. */
  const federatedSignIn = async (claims: FederatedClaims, options: { jar?: CookieJar; to?: Connection } = {}) => {
    const jar = options.jar ?? new CookieJar();
    const started = await browserAuthorize(app, jar, client, { scope: 'openid orders:read' });
    const pending = await setOff(jar, options.to);
    const answered = await completeFederation(deps, eventOf(jar), { key: pending.key }, async () => claims).then(
      asResponse,
      (error: { statusCode: number; message: string }) => ({ status: error.statusCode, body: error.message }) as unknown as Response,
    );
    if (answered.status !== 200 && answered.status !== 303) return { refused: answered, jar, pending };
    jar.take(answered);
    // Consent once per client; after that the code comes at once.
    const consented =
      answered.status === 200 ? await postForm(app, jar, 'hostedConsent', { csrf: csrfOf(answered), decision: 'allow' }, origin) : answered;
    expect(consented.status).toBe(303);
    const code = new URL(consented.headers.Location ?? '').searchParams.get('code') ?? '';
    const tokens = await redeemCode(app, client, { code, verifier: started.verifier });
    expect(tokens.status).toBe(200);
    const body = tokens.body as { access_token: string; id_token: string };
    return { tokens: body, jar, pending, idToken: decodeJwt(body.id_token), accessToken: decodeJwt(body.access_token) };
  };

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
    const signed = await federatedSignIn({ subject: 'okta|frank', email: email('frank'), roles: ['finance', 'staff'], mfa: true });
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
    await federatedSignIn({ subject: 'okta|gina', email: email('gina'), roles: ['staff'], mfa: false });
    const [first] = await deps.store.users.findByEmail(tenantId, email('gina'));
    expect(first?.role).toBe('ANALYST');
    const again = await federatedSignIn({ subject: 'okta|gina', email: email('gina'), roles: ['finance'], mfa: false });
    expect(again.idToken?.amr).toEqual(['fed']);
    const users = await deps.store.users.findByEmail(tenantId, email('gina'));
    expect(users.map((user) => [user.id, user.role])).toEqual([[first?.id, 'FINANCE']]);
    // No value of the mapping: the default role.
    await federatedSignIn({ subject: 'okta|gina', email: email('gina'), roles: ['unknown-group'], mfa: false });
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
    const signed = await federatedSignIn({ subject: 'okta|hank', email: email('Hank'), roles: ['staff'], mfa: false });
    expect(signed.idToken?.sub).toBe(hank.id);
    expect((await deps.store.users.findById(tenantId, hank.id))?.role).toBe('ANALYST');
    expect(await deps.store.federatedIdentities.find(tenantId, connection.id, 'okta|hank')).toEqual({ userId: hank.id });
    expect(mappedRole({ roleMapping: { a: 'FINANCE', b: 'ADMIN' }, defaultRole: 'ANALYST' }, ['a', 'b'])).toBe('ADMIN');
    expect(mappedRole({ defaultRole: 'ANALYST' }, ['a'])).toBeUndefined();
  });

  it('refuses an email outside the tenant’s verified domains, and a connection’s tenant never signs in another’s user', async () => {
    const outside = await federatedSignIn({ subject: 'okta|ivan', email: 'ivan@gmail.example', roles: [], mfa: false });
    expect(outside.refused).toMatchObject({ status: 403, body: 'This account is not allowed for this organization' });
    // A domain verified by another tenant, even if listed on this connection.
    const other = uniqueTenant('fed-core');
    const theirs = `${other}.example`;
    await deps.store.domains.create({ tenantId: other, domain: theirs, status: 'pending', token: 't', createdAt: 'now' });
    await deps.store.domains.verify({ tenantId: other, domain: theirs }, 'now');
    const greedy = await newConnection(tenantId, { domains: [domain, theirs] });
    const stolen = await federatedSignIn({ subject: 'okta|judy', email: `judy@${theirs}`, roles: [], mfa: false }, { to: greedy });
    expect(stolen.refused?.status).toBe(403);
    expect(await deps.store.users.findByEmail(tenantId, `judy@${theirs}`)).toEqual([]);
    expect(await failures('federation_domain_not_allowed')).toHaveLength(2);
    await deps.store.connections.delete(greedy);
  });

  it('without JIT provisioning, an unknown identity has no account', async () => {
    const closed = await newConnection(tenantId, { jitProvisioning: false });
    const signed = await federatedSignIn({ subject: 'okta|kim', email: email('kim'), roles: [], mfa: false }, { to: closed });
    expect(signed.refused).toMatchObject({ status: 403, body: 'No account for this user' });
    expect(await deps.store.users.findByEmail(tenantId, email('kim'))).toEqual([]);
    expect(await failures('federation_no_account')).toEqual([expect.objectContaining({ connectionId: closed.id })]);
    await deps.store.connections.delete(closed);
  });

  it('answers a pending request once, to the browser that set off, and never through a disabled connection', async () => {
    const claims = { subject: 'okta|leo', email: email('leo'), roles: [], mfa: false };
    const signed = await federatedSignIn(claims);
    expect(signed.tokens).toBeDefined();
    const replay = await completeFederation(deps, eventOf(signed.jar), { key: signed.pending.key }, async () => claims).catch(
      (error: { statusCode: number }) => error.statusCode,
    );
    expect(replay).toBe(400);

    const elsewhere = new CookieJar();
    await browserAuthorize(app, elsewhere, client);
    const pending = await setOff(elsewhere);
    elsewhere.cookies.set('__Host-federation', 'another-browsers-secret');
    await expect(completeFederation(deps, eventOf(elsewhere), { key: pending.key }, async () => claims)).rejects.toMatchObject({
      statusCode: 400,
    });
    expect(await failures('federation_wrong_browser')).toHaveLength(1);

    const protocol = new CookieJar();
    await browserAuthorize(app, protocol, client);
    const checked = await setOff(protocol);
    await expect(
      completeFederation(deps, eventOf(protocol), { key: checked.key }, async () => {
        throw new FederationRefused('invalid_response', 'signature');
      }),
    ).rejects.toMatchObject({ statusCode: 400, message: 'Sign-in failed' });
    expect(await failures('federation_invalid_response')).toHaveLength(1);
  });

  it('ends the sessions of a connection once it is disabled, and refuses new sign-ins through it', async () => {
    const other = await newConnection(tenantId);
    const signed = await federatedSignIn({ subject: 'okta|mia', email: email('mia'), roles: [], mfa: false }, { to: other });
    expect(signed.jar.cookies.get('__Host-session')).toBeTruthy();
    // Single sign-on while the connection is enabled: the code at once (consent remembered).
    const before = await browserAuthorize(app, signed.jar, client, { scope: 'openid orders:read' });
    expect(before.response.status).toBe(302);
    await deps.store.connections.update(other, { enabled: false, updatedAt: new Date().toISOString() });
    // The browser session is over: the next authorization asks who is signing in again.
    const after = await browserAuthorize(app, signed.jar, client, { scope: 'openid orders:read' });
    expect(after.response.status).toBe(200);
    expect(String(after.response.body)).toContain('Username or email');
    const refused = await federatedSignIn({ subject: 'okta|mia', email: email('mia'), roles: [], mfa: false }, { to: other });
    expect(refused.refused?.status).toBe(400);
    expect(await failures('federation_connection_disabled')).toHaveLength(1);
  });
});
