import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { federationEndpoints, type SamlConnection } from '../../lib/federation/connection';
import { samlRequestId } from '../../lib/federation/saml-request';
import { signAccessToken } from '../../lib/tokens/access-token';
import { type ConsoleBrowser, consoleBrowser, mainText } from '../console/console-browser';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { nearRealTime } from '../helpers/clock';
import { openPage, postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { DEVICE_GRANT, deviceAuthorization, deviceCodes, openDevicePage, pollToken, postDeviceForm } from '../helpers/device';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { failure } from '../helpers/failures';
import { connectionOf, oidcConnection, samlConnection, verifiedDomain } from '../helpers/federation-admin';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { createTable, scanTable } from '../helpers/isolated-table';
import { activateTotp, newTotpSecret } from '../helpers/mfa';
import { authorizationCode, basic, createClient, form, newSecret, type TestClient, tokenRequest } from '../helpers/oauth';
import { verifiedEmail } from '../helpers/recovery';
import { makeSamlIdp, type SamlIdp } from '../helpers/saml-idp';
import { postSamlResponse, samlConnectionOf } from '../helpers/saml-sign-in';
import { scimClient, scimTokenOf } from '../helpers/scim';

/**
 * Cross-tenant attempts on every operation. An attacker who is ADMIN
 * of tenant A (with an OAuth client of A) aims every operation at tenant B: B's users,
 * sessions, MFA methods, clients, codes and tokens. Every attempt is refused (or, where
 * the operation has no tenant input, acts on A only), nothing of B changes (a scan of
 * B's records before and after), and every credential of B still works afterwards.
 */
const PASSWORD = 'victim passphrase 1';
const ATTACKER_PASSWORD = 'attacker passphrase 1';
const PHONE = '+15550001234';

describe('cross-tenant attempts on every operation', () => {
  const tableName = `cross-tenant-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  let deps: TestDeps;
  let app: App;
  const [a, b] = [uniqueTenant('attacker'), uniqueTenant('victim')];
  let attacker: Awaited<ReturnType<typeof registerAdmin>>;
  let victim: Awaited<ReturnType<typeof registerAdmin>>;
  let victimUser: { token: string; userId: string };
  let victimPasskey: { assertion: unknown };
  let attackerClient: TestClient;
  let victimClient: TestClient;
  let victimTokens: { access_token: string; refresh_token: string };
  let victimBoundToken: string;
  let victimCode: { code: string; verifier: string };
  let victimCcToken: string;
  let victimSmsCode: string;
  let victimEmailCode: string;
  let attackerResetCode: string;
  let victimInvitation: { id: string; token: string };
  let before: Array<Record<string, unknown>>;
  let attackerScim: ReturnType<typeof scimClient>;
  let victimScimToken: { id: string; token: string };
  let dns: TestDnsServer;
  /** B's connection, B's verified domain (its connection requires SSO) and B's pending one (docs/api.md 14). */
  let victimConnection: string;
  let victimWebhook: string;
  let victimDomain: string;
  let victimPendingDomain: string;
  let attackerIdp: SamlIdp;
  let attackerSaml: SamlConnection;
  /** B's device client and its pending device codes (docs/api.md 16.4); A's client has the grant too. */
  let victimDevice: TestClient;
  let victimDeviceCodes: Awaited<ReturnType<typeof deviceCodes>>;

  /**
   * Everything of tenant B but its failed-login counters and its audit trail, and its failed-reset counters (which count
   * and record attempts made against B, by design: the audit events are checked apart).
   */
  const victimRecords = async () =>
    (await scanTable(endpoint, tableName)).filter(
      (item) =>
        (String(item.pk).startsWith(`T#${b}#`) || item.tenantId === b) &&
        !/#(LOGIN|AUDIT|EVENTS)#/.test(String(item.pk)) &&
        !(String(item.pk).includes('#RESET#') && item.sk === 'ATTEMPTS'),
    );
  const victimEvents = async () => (await scanTable(endpoint, tableName)).filter((item) => String(item.pk).startsWith(`T#${b}#AUDIT#`));
  let eventsBefore: Set<unknown>;
  /** B's outbox items (docs/events.md): the events of each subject's last write, by subject. */
  const victimOutbox = async () =>
    new Map(
      (await scanTable(endpoint, tableName))
        .filter((item) => String(item.pk).startsWith(`T#${b}#EVENTS#`))
        .map((item) => [String(item.pk), { seq: Number(item.seq), events: item.events as Array<{ type: string }> }]),
    );
  let outboxBefore: Awaited<ReturnType<typeof victimOutbox>>;
  const introspect = async (who: TestClient, token: string) => (await app.request('introspect', tokenRequest(who, { token }))).body;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    dns = await startDnsServer();
    deps = await testDeps({ TABLE_NAME: tableName, DNS_SERVERS: dns.address });
    // DynamoDB Local deletes items whose TTL has passed in real time: keep the clock near it.
    nearRealTime(deps);
    app = testApp(deps);
    // The same username in both tenants, with different passwords.
    attacker = await registerAdmin(app, a, 'admin', ATTACKER_PASSWORD);
    victim = await registerAdmin(app, b, 'admin', PASSWORD);
    const registered = await registerStaff(app, victim.token, {
      username: 'victim-user',
      password: PASSWORD,
      role: 'OPERATOR',
      tenantId: b,
    });
    victimUser = { token: registered.token, userId: registered.user.id };
    expect((await app.request('enableMFA', { token: victimUser.token, body: { method: 'SMS', secret: PHONE } })).status).toBe(200);
    victimSmsCode = (await deps.outbox.latest(b, victimUser.userId, 'SMS'))?.code ?? '';
    attackerClient = await createClient(app, attacker.token, a, {
      grantTypes: `authorization_code refresh_token client_credentials ${DEVICE_GRANT}`,
    });
    victimClient = await createClient(app, victim.token, b);
    const issued = await authorizationCode(app, victim.token, victimClient);
    victimTokens = (
      await app.request(
        'oauth2Token',
        tokenRequest(victimClient, {
          grant_type: 'authorization_code',
          code: issued.code,
          redirect_uri: victimClient.redirectUri,
          code_verifier: issued.verifier,
        }),
      )
    ).body;
    expect(victimTokens.refresh_token).toEqual(expect.any(String));
    // A DPoP-bound token of B's (docs/api.md 16.3), as a thief would have it: without the key.
    const boundCode = await authorizationCode(app, victim.token, victimClient);
    const boundForm = tokenRequest(victimClient, {
      grant_type: 'authorization_code',
      code: boundCode.code,
      redirect_uri: victimClient.redirectUri,
      code_verifier: boundCode.verifier,
    });
    const proof = await dpopProof(await dpopKey(), { htu: `${deps.config.issuer}/oauth2/token`, iat: Math.floor(deps.clock.now() / 1000) });
    victimBoundToken = (await app.request('oauth2Token', { ...boundForm, headers: { ...boundForm.headers, dpop: proof } })).body
      .access_token;
    victimCode = await authorizationCode(app, victim.token, victimClient);
    victimCcToken = (await app.request('oauth2Token', tokenRequest(victimClient, { grant_type: 'client_credentials' }))).body.access_token;
    expect(
      (await app.request('adminCreateShop', { token: victim.token, body: { shopId: 'victim-shop', name: 'Victim shop' } })).status,
    ).toBe(201);
    // B's ADMIN has an email to verify; A's ADMIN a verified one and a reset code (docs/api.md 8.7, 8.8).
    expect((await app.request('emailSet', { token: victim.token, body: { email: 'victim@example.com' } })).status).toBe(200);
    victimEmailCode = (await deps.outbox.latest(b, victim.user.id, 'EMAIL', 'verify-email'))?.code ?? '';
    await verifiedEmail(app, deps, attacker.token, a, attacker.user.id, 'attacker@example.com');
    expect((await app.request('passwordForgot', { body: { username: 'admin', tenantId: a } })).status).toBe(202);
    attackerResetCode = (await deps.outbox.latest(a, attacker.user.id, 'EMAIL', 'reset'))?.code ?? '';
    // B's pending invitation and its link, and a shop of B's alone (docs/api.md 13.1).
    await app.request('adminCreateShop', { token: victim.token, body: { shopId: 'victim-store', name: 'Victim store' } });
    const invited = await app.request('adminCreateInvitation', {
      token: victim.token,
      body: { email: 'invitee@example.com', role: 'OPERATOR' },
    });
    const link = /\/invitations\/(\S+)/.exec((await deps.outbox.emails('invitee@example.com')).at(-1)?.text ?? '')?.[1] ?? '';
    victimInvitation = { id: invited.body.data.invitation.id, token: link };
    // SCIM (docs/api.md 13.3): A's token; B's token and a user B provisioned with it.
    attackerScim = scimClient(app, (await scimTokenOf(app, attacker.token)).token);
    victimScimToken = await scimTokenOf(app, victim.token);
    const provisioned = await scimClient(app, victimScimToken.token)('scimCreateUser', {
      body: { userName: 'victim-scim', externalId: 'victim-ext', emails: [{ value: 'victim-scim@example.com' }] },
    });
    expect(provisioned.status).toBe(201);
    // A webhook of B's (docs/api.md 17.2), to a loopback port nothing listens on.
    const webhook = await app.request('adminCreateWebhook', {
      token: victim.token,
      body: { url: 'http://127.0.0.1:9/victim', events: ['identity.user.created'] },
    });
    expect(webhook.status).toBe(201);
    victimWebhook = webhook.body.data.webhook.id;
    // Enterprise sign-in (docs/api.md 14): B's connection requiring SSO for B's verified domain, and a pending one.
    victimDomain = `${b}.example`;
    victimPendingDomain = `pending.${b}.example`;
    await verifiedDomain(app, dns, victim.token, victimDomain);
    expect((await app.request('adminAddDomain', { token: victim.token, body: { domain: victimPendingDomain } })).status).toBe(201);
    victimConnection = await connectionOf(app, victim.token, oidcConnection([victimDomain], { ssoRequired: true }));
    await connectionOf(app, victim.token, await samlConnection([victimDomain]));
    // SAML (docs/api.md 14.5): B's verified domain; A's own IdP, whose connection names B's domain.
    attackerIdp = await makeSamlIdp();
    const verifiedAt = new Date(deps.clock.now()).toISOString();
    await deps.store.domains.create({ tenantId: b, domain: `${b}.example`, status: 'pending', token: 'victim', createdAt: verifiedAt });
    expect(await deps.store.domains.verify({ tenantId: b, domain: `${b}.example` }, verifiedAt)).toBe('verified');
    attackerSaml = await samlConnectionOf(deps, a, `${a}.example`, {
      domains: [`${a}.example`, `${b}.example`],
      idpEntityId: attackerIdp.entityId,
      ssoUrl: 'https://attacker-idp.example.test/sso',
      signingCertificates: [attackerIdp.cert],
    });
    victimDevice = await createClient(app, victim.token, b, { grantTypes: DEVICE_GRANT });
    victimDeviceCodes = await deviceCodes(app, victimDevice);
    // A passkey of B's user, and its assertion of a challenge of B (docs/api.md 12).
    const keys = softwareAuthenticator();
    const creation = await app.request('passkeyRegistrationOptions', { token: victimUser.token, body: {} });
    const credential = keys.create(creation.body.data.options).response;
    expect((await app.request('passkeyRegistration', { token: victimUser.token, body: { credential } })).status).toBe(201);
    const request = await app.request('passkeyAuthenticationOptions', { body: { tenantId: b } });
    victimPasskey = { assertion: keys.get(request.body.data.options) };
    before = await victimRecords();
    eventsBefore = new Set((await victimEvents()).map((event) => event.id));
    outboxBefore = await victimOutbox();
  });

  afterAll(() => dns?.close());

  const refused = (status: number, error: string) => ({ status, headers: expect.any(Object), body: failure(error) });
  /** A public client of A's (docs/api.md 16.1), registered once. */
  let attackerPublic: Promise<TestClient> | undefined;
  const attackerPublicClient = () => {
    attackerPublic ??= (async () => {
      const clientId = `spa-${a}`;
      const created = await app.request('createOAuth2Client', {
        token: attacker.token,
        body: {
          client_id: clientId,
          token_endpoint_auth_method: 'none',
          redirect_uri: 'https://attacker.example.com/cb',
          grant_types: 'authorization_code refresh_token',
          scope: 'orders:read',
          tenant_id: a,
          allowed_origins: 'https://attacker.example.com',
        },
      });
      expect(created.status).toBe(201);
      return { clientId, clientSecret: '', redirectUri: 'https://attacker.example.com/cb', tenantId: a };
    })();
    return attackerPublic;
  };
  /** A browser signed in to tenant A through the hosted pages (docs/api.md 11.6). */
  const attackerBrowser = async () => {
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, attackerClient);
    const origin = new URL(deps.config.issuer).origin;
    await postForm(app, jar, 'hostedSignIn', { csrf: begun.csrf, username: 'admin', password: ATTACKER_PASSWORD }, origin);
    expect(jar.cookies.has('__Host-session')).toBe(true);
    return jar;
  };
  /** Another ADMIN of A in the tenant console (docs/api.md 15.3), signed in once: A's admin keeps its one session. */
  let attackerConsoleBrowser: Promise<ConsoleBrowser> | undefined;
  const attackerConsole = () =>
    (attackerConsoleBrowser ??= (async () => {
      await registerStaff(app, attacker.token, { username: 'console-admin', password: ATTACKER_PASSWORD, role: 'ADMIN', tenantId: a });
      return consoleBrowser(app, new URL(deps.config.issuer).origin, a, 'console-admin', ATTACKER_PASSWORD);
    })());
  /** A console form of A's aimed at B's user (staff) or B's invitation (invitations): the 404 page. */
  const consoleAttempts = (forms: Array<[string, string, Record<string, string>]>) =>
    forms.map(([section, action, fields]): [string, string, () => Promise<Response>, (r: Response) => void] => [
      'adminConsoleAction',
      `${section}/${action} on B's ${section === 'staff' ? 'user' : 'invitation'} from A's console`,
      async () => {
        const named = section === 'staff' ? { ...fields, userId: victimUser.userId } : { ...fields, id: victimInvitation.id };
        return (await attackerConsole()).post(section, action, named);
      },
      (r) => {
        expect(r.status).toBe(404);
        expect(mainText(r)).toMatch(/There is no such (page|invitation)\./);
      },
    ]);
  const rfcRefused = (status: number, error: string, description: string) => ({
    status,
    headers: expect.any(Object),
    body: { error, error_description: description },
  });
  const withTenant = (refreshToken: string, tenantId: string) =>
    [Buffer.from(tenantId).toString('base64url'), ...refreshToken.split('.').slice(1)].join('.');

  const attempts: Array<[string, string, () => Promise<Response>, (r: Response) => void]> = [
    [
      'ssoSamlAcs',
      "A's own IdP asserts an address of B's verified domain",
      async () => {
        const jar = new CookieJar();
        await browserAuthorize(app, jar, attackerClient);
        const sent = jar.take(
          await app.request('ssoBegin', { method: 'GET', headers: jar.header(), query: { connection: attackerSaml.id } }),
        );
        const relayState = new URL(sent.headers.Location ?? '').searchParams.get('RelayState') ?? '';
        const { acsUrl, spEntityId } = federationEndpoints(deps.config.issuer, attackerSaml.id);
        const SAMLResponse = attackerIdp.encodedResponse({
          acsUrl,
          spEntityId,
          inResponseTo: samlRequestId(relayState),
          nameId: 'victim-user',
          attributes: { email: [`victim-user@${b}.example`] },
          now: deps.clock.now(),
        });
        return postSamlResponse(app, jar, attackerSaml.id, { SAMLResponse, RelayState: relayState });
      },
      (r) => {
        expect(r.status).toBe(403);
        expect(String(r.body)).toContain('This account is not allowed for this organization');
      },
    ],
    // The tenant console (docs/api.md 15.3.1-15.3.3), signed in to A: B's user and invitation are not found.
    ...consoleAttempts([
      ['staff', 'role-shop', { role: 'ADMIN', shopId: 'default' }],
      ['staff', 'status', { status: 'disabled' }],
      ['staff', 'sign-out', {}],
      ['staff', 'reset-mfa', {}],
      ['staff', 'delete', {}],
      ['invitations', 'resend', {}],
      ['invitations', 'revoke', {}],
    ]),
    [
      'adminConsolePage',
      "B's user's page and B's user's audit events from A's console",
      async () => {
        const browser = await attackerConsole();
        const events = await browser.page('audit', { user: victimUser.userId });
        expect(events.status).toBe(200);
        expect(mainText(events)).toContain('No events match these filters.');
        expect(mainText(await browser.page('audit', { user: 'victim-user' }))).toContain('No user of this tenant has this username.');
        return browser.page('staff', { user: victimUser.userId });
      },
      (r) => expect(r.status).toBe(404),
    ],
    // First, while A's session is live (later attempts end it).
    [
      'passwordReset',
      "A's reset code for A's admin, used with tenant B on B's admin of the same username",
      () =>
        app.request('passwordReset', {
          body: { username: 'admin', tenantId: b, code: attackerResetCode, newPassword: ATTACKER_PASSWORD },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid reset code')),
    ],
    [
      'passwordForgot',
      "B's admin asked for through A: A's own account, nothing of B",
      () => app.request('passwordForgot', { body: { username: 'victim-user', tenantId: a } }),
      (r) => expect(r.status).toBe(202),
    ],
    [
      'emailVerify',
      "A verifies with B's code, naming B's tenant and user",
      () =>
        app.request('emailVerify', {
          token: attacker.token,
          body: { code: victimEmailCode, tenantId: b, userId: victim.user.id },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid verification code')),
    ],
    [
      'emailSet',
      "A sets an email naming B's tenant and user: acts on A only",
      async () => {
        // A's own address was set in beforeAll: past the 30-s resend interval.
        deps.clock.advance(31);
        const response = await app.request('emailSet', {
          token: attacker.token,
          body: { email: 'mole@example.com', tenantId: b, userId: victim.user.id },
        });
        expect((await deps.store.users.findById(a, attacker.user.id))?.email).toBe('mole@example.com');
        return response;
      },
      (r) => expect(r.status).toBe(200),
    ],
    [
      'login',
      "B's user and password through A",
      () => app.request('login', { body: { username: 'victim-user', password: PASSWORD, tenantId: a } }),
      (r) => expect(r).toEqual(refused(401, 'Invalid credentials')),
    ],
    [
      'login',
      "B's admin and A's password through B",
      () => app.request('login', { body: { username: 'admin', password: ATTACKER_PASSWORD, tenantId: b } }),
      (r) => expect(r).toEqual(refused(401, 'Invalid credentials')),
    ],
    [
      'refreshToken',
      "B's refresh token relabelled with tenant A",
      () => app.request('refreshToken', { body: { refreshToken: withTenant(victim.refreshToken, a) } }),
      (r) => expect(r).toEqual(refused(401, 'Invalid refresh token')),
    ],
    [
      'refreshToken',
      "A's refresh token relabelled with tenant B",
      () => app.request('refreshToken', { body: { refreshToken: withTenant(attacker.refreshToken, b) } }),
      (r) => expect(r).toEqual(refused(401, 'Invalid refresh token')),
    ],
    [
      'register',
      "A's ADMIN registers an ADMIN into B",
      () => app.request('register', { token: attacker.token, body: { username: 'mole', password: PASSWORD, role: 'ADMIN', tenantId: b } }),
      (r) => expect(r).toEqual(refused(403, 'Permission denied')),
    ],
    [
      'register',
      "A's ADMIN registers an OPERATOR into B",
      () =>
        app.request('register', { token: attacker.token, body: { username: 'mole', password: PASSWORD, role: 'OPERATOR', tenantId: b } }),
      (r) => expect(r).toEqual(refused(403, 'Permission denied')),
    ],
    [
      'register',
      'anonymous registration into B',
      () => app.request('register', { body: { username: 'mole', password: PASSWORD, role: 'ADMIN', tenantId: b } }),
      (r) => expect(r).toEqual(refused(403, 'Permission denied')),
    ],
    [
      'register',
      "B's username with a case/Unicode variant into B by A",
      () =>
        app.request('register', {
          token: attacker.token,
          body: { username: 'ＶＩＣＴＩＭ-user', password: PASSWORD, role: 'ADMIN', tenantId: b },
        }),
      (r) => expect(r).toEqual(refused(403, 'Permission denied')),
    ],
    [
      'me',
      "A asks with B's tenant in the query and headers",
      () => app.request('me', { token: attacker.token, query: { tenantId: b }, headers: { 'x-tenant-id': b } }),
      (r) => expect(r.body.data.user.tenantId).toBe(a),
    ],
    [
      'enableMFA',
      "A enrolls TOTP naming B's tenant and user",
      () =>
        app.request('enableMFA', {
          token: attacker.token,
          body: { method: 'TOTP', secret: newTotpSecret(), tenantId: b, userId: victimUser.userId },
        }),
      (r) => expect(r.status).toBe(200),
    ],
    [
      'enableMFA',
      "A enrolls SMS naming B's user (would replace B's pending SMS)",
      () =>
        app.request('enableMFA', {
          token: attacker.token,
          body: { method: 'SMS', secret: '+15550009999', tenantId: b, userId: victimUser.userId },
        }),
      (r) => expect(r.status).toBe(200),
    ],
    [
      'verifyMFA',
      "A verifies B's pending SMS code naming B's user",
      () =>
        app.request('verifyMFA', {
          token: attacker.token,
          body: { method: 'SMS', code: victimSmsCode, tenantId: b, userId: victimUser.userId },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid MFA code')),
    ],
    [
      'verifyMFA',
      "A verifies B's code for a method A lacks",
      () => app.request('verifyMFA', { token: attacker.token, body: { method: 'EMAIL', code: victimSmsCode, tenantId: b } }),
      (r) => expect(r).toEqual(refused(400, 'MFA method not enabled')),
    ],
    [
      'oauth2Authorize',
      "A's user asks a code of B's client",
      () =>
        app.request('oauth2Authorize', {
          token: attacker.token,
          query: {
            response_type: 'code',
            client_id: victimClient.clientId,
            redirect_uri: victimClient.redirectUri,
            code_challenge: 'a'.repeat(43),
            code_challenge_method: 'S256',
          },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid client')),
    ],
    [
      'oauth2Authorize',
      "B's user asks a code of A's client (to A's redirect URI)",
      () =>
        app.request('oauth2Authorize', {
          token: victim.token,
          query: {
            response_type: 'code',
            client_id: attackerClient.clientId,
            redirect_uri: attackerClient.redirectUri,
            code_challenge: 'a'.repeat(43),
            code_challenge_method: 'S256',
          },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid client')),
    ],
    [
      'oauth2Token',
      "A's public client presents B's refresh token with its client_id alone (docs/api.md 16.1)",
      async () =>
        app.request(
          'oauth2Token',
          form({
            grant_type: 'refresh_token',
            client_id: (await attackerPublicClient()).clientId,
            refresh_token: victimTokens.refresh_token,
          }),
        ),
      (r) => expect(r).toEqual(rfcRefused(400, 'invalid_grant', 'Invalid grant')),
    ],
    [
      'revoke',
      "A's public client revokes B's refresh token with its client_id alone: answered, nothing revoked",
      async () => app.request('revoke', form({ client_id: (await attackerPublicClient()).clientId, token: victimTokens.refresh_token })),
      (r) => expect(r.status).toBe(200),
    ],
    [
      'updateOAuth2Client',
      "A's ADMIN lists A's origin on B's client (docs/api.md 16.2)",
      () =>
        app.request('updateOAuth2Client', {
          token: attacker.token,
          pathParameters: { clientId: victimClient.clientId },
          body: { allowed_origins: 'https://attacker.example.com' },
        }),
      (r) => expect(r).toEqual(refused(404, 'Client not found')),
    ],
    [
      'updateOAuth2Client',
      "A's ADMIN points B's client's back-channel logout URI at A's server (docs/api.md 17.3)",
      () =>
        app.request('updateOAuth2Client', {
          token: attacker.token,
          pathParameters: { clientId: victimClient.clientId },
          body: { backchannel_logout_uri: 'https://attacker.example.com/bcl' },
        }),
      (r) => expect(r).toEqual(refused(404, 'Client not found')),
    ],
    [
      'oauth2Token',
      "A's client redeems B's code (form)",
      () =>
        app.request(
          'oauth2Token',
          tokenRequest(attackerClient, {
            grant_type: 'authorization_code',
            code: victimCode.code,
            redirect_uri: victimClient.redirectUri,
            code_verifier: victimCode.verifier,
          }),
        ),
      (r) => expect(r).toEqual(rfcRefused(400, 'invalid_grant', 'Invalid grant')),
    ],
    [
      'oauth2Token',
      "A's client redeems B's code (JSON, A's redirect URI)",
      () =>
        app.request('oauth2Token', {
          body: {
            client_id: attackerClient.clientId,
            client_secret: attackerClient.clientSecret,
            grant_type: 'authorization_code',
            code: victimCode.code,
            redirect_uri: attackerClient.redirectUri,
            code_verifier: victimCode.verifier,
          },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid grant')),
    ],
    [
      'oauth2Token',
      "A's client presents B's refresh token",
      () =>
        app.request(
          'oauth2Token',
          tokenRequest(attackerClient, { grant_type: 'refresh_token', refresh_token: victimTokens.refresh_token }),
        ),
      (r) => expect(r).toEqual(rfcRefused(400, 'invalid_grant', 'Invalid grant')),
    ],
    [
      'oauth2Token',
      "client_credentials as B's client with A's secret",
      () =>
        app.request(
          'oauth2Token',
          tokenRequest({ ...victimClient, clientSecret: attackerClient.clientSecret }, { grant_type: 'client_credentials' }),
        ),
      (r) => expect(r).toMatchObject({ status: 401, body: { error: 'invalid_client' } }),
    ],
    [
      'oauth2Token',
      "client_credentials by Basic as B's client with A's secret",
      () =>
        app.request('oauth2Token', {
          ...form({ grant_type: 'client_credentials' }),
          headers: { ...form({}).headers, authorization: basic(victimClient.clientId, attackerClient.clientSecret) },
        }),
      (r) => expect(r).toMatchObject({ status: 401, body: { error: 'invalid_client' } }),
    ],
    [
      'oauth2Token',
      "client_credentials with A's credentials asking B's tenant",
      () =>
        app.request('oauth2Token', {
          body: {
            client_id: attackerClient.clientId,
            client_secret: attackerClient.clientSecret,
            grant_type: 'client_credentials',
            tenantId: b,
            tenant_id: b,
          },
        }),
      (r) => expect(decodeJwt(r.body.data.access_token).tenantId).toBe(a),
    ],
    [
      'createOAuth2Client',
      "A's ADMIN registers a client into B",
      () =>
        app.request('createOAuth2Client', {
          token: attacker.token,
          body: {
            client_id: 'mole-client',
            client_secret: newSecret(),
            redirect_uri: 'https://evil.example/cb',
            grant_types: 'authorization_code',
            scope: 'orders:read',
            tenant_id: b,
          },
        }),
      (r) => expect(r).toEqual(refused(403, 'Permission denied')),
    ],
    [
      'createOAuth2Client',
      "A's ADMIN takes over B's client id",
      () =>
        app.request('createOAuth2Client', {
          token: attacker.token,
          body: {
            client_id: victimClient.clientId,
            client_secret: newSecret(),
            redirect_uri: 'https://evil.example/cb',
            grant_types: 'authorization_code',
            scope: 'orders:read',
            tenant_id: a,
          },
        }),
      (r) => expect(r).toEqual(refused(409, 'OAuth2 client already exists')),
    ],
    [
      'revoke',
      "A's client revokes B's refresh token",
      () => app.request('revoke', tokenRequest(attackerClient, { token: victimTokens.refresh_token, token_type_hint: 'refresh_token' })),
      (r) => expect(r.status).toBe(200),
    ],
    [
      'revoke',
      "A's client revokes B's access tokens",
      () => app.request('revoke', tokenRequest(attackerClient, { token: victimTokens.access_token })),
      (r) => expect(r.status).toBe(200),
    ],
    [
      'revoke',
      "A's client revokes B's client_credentials token",
      () => app.request('revoke', tokenRequest(attackerClient, { token: victimCcToken })),
      (r) => expect(r.status).toBe(200),
    ],
    [
      'introspect',
      "A's client introspects B's refresh token",
      () => app.request('introspect', tokenRequest(attackerClient, { token: victimTokens.refresh_token })),
      (r) => expect(r.body).toEqual({ active: false }),
    ],
    [
      'introspect',
      "A's client introspects B's access token",
      () => app.request('introspect', tokenRequest(attackerClient, { token: victimTokens.access_token })),
      (r) => expect(r.body).toEqual({ active: false }),
    ],
    [
      'introspect',
      "A's client introspects B's DPoP-bound access token",
      () => app.request('introspect', tokenRequest(attackerClient, { token: victimBoundToken })),
      (r) => expect(r.body).toEqual({ active: false }),
    ],
    [
      'userInfo',
      "A's session sends B's DPoP-bound access token to userinfo as Bearer, and as DPoP with a proof by A's key",
      async () => {
        const downgraded = await app.request('userInfo', { headers: { authorization: `Bearer ${victimBoundToken}` } });
        expect(downgraded.status).toBe(401);
        const htu = `${deps.config.issuer}/oauth2/userinfo`;
        const dpop = await dpopProof(await dpopKey(), {
          htm: 'GET',
          htu,
          iat: Math.floor(deps.clock.now() / 1000),
          accessToken: victimBoundToken,
        });
        return app.request('userInfo', { headers: { authorization: `DPoP ${victimBoundToken}`, dpop } });
      },
      (r) => expect([r.status, r.headers['WWW-Authenticate']]).toEqual([401, expect.stringMatching(/^DPoP error="invalid_token"/)]),
    ],
    [
      'introspect',
      "A's client introspects B's session token",
      () => app.request('introspect', tokenRequest(attackerClient, { token: victim.token })),
      (r) => expect(r.body).toEqual({ active: false }),
    ],
    [
      'jwks',
      'the key set asked for with B in the query (one document for every tenant)',
      async () => app.request('jwks', { query: { tenantId: b } }),
      (r) => expect(r.body.keys).toEqual(deps.keySet.jwks.keys),
    ],
    [
      'metadata',
      'the metadata asked for with B in the query (one document for every tenant)',
      async () => app.request('metadata', { query: { tenantId: b } }),
      (r) => expect(JSON.stringify(r.body)).not.toContain(b),
    ],
    [
      'authorizer',
      "a token claiming tenant B with A's session (signed with our own key)",
      async () => {
        const claims = decodeJwt(attacker.token);
        const identity = {
          userId: String(claims.sub),
          username: 'admin',
          role: 'ADMIN' as const,
          tenantId: b,
          shopId: 'default',
          sessionId: String(claims.sid),
          amr: ['pwd' as const],
          authTime: Number(claims.iat),
        };
        const { token } = await signAccessToken(
          deps.keySet,
          { issuer: deps.config.issuer, audience: deps.config.accessTokenAudience, ttlSeconds: 900 },
          identity,
          'jti-x',
          Math.floor(deps.clock.now() / 1000),
        );
        return app.request('me', { token });
      },
      (r) => expect(r).toEqual(refused(401, 'Unauthorized')),
    ],
    [
      'adminReadUser',
      "A's ADMIN reads B's ADMIN",
      () => app.request('adminReadUser', { token: attacker.token, pathParameters: { userId: victim.user.id } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminUpdateUser',
      "A's ADMIN demotes and disables B's ADMIN",
      () =>
        app.request('adminUpdateUser', {
          token: attacker.token,
          pathParameters: { userId: victim.user.id },
          body: { role: 'ANALYST', status: 'disabled' },
        }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminDeleteUser',
      "A's ADMIN deletes B's ADMIN",
      () => app.request('adminDeleteUser', { token: attacker.token, pathParameters: { userId: victim.user.id } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminResetUserMfa',
      "A's ADMIN resets the MFA of B's ADMIN",
      () => app.request('adminResetUserMfa', { token: attacker.token, pathParameters: { userId: victim.user.id } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminSignOutUser',
      "A's ADMIN signs B's ADMIN out everywhere",
      () => app.request('adminSignOutUser', { token: attacker.token, pathParameters: { userId: victim.user.id } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminReadUser',
      "A's ADMIN reads B's OPERATOR",
      () => app.request('adminReadUser', { token: attacker.token, pathParameters: { userId: victimUser.userId } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminUpdateUser',
      "A's ADMIN demotes and disables B's OPERATOR",
      () =>
        app.request('adminUpdateUser', {
          token: attacker.token,
          pathParameters: { userId: victimUser.userId },
          body: { role: 'ANALYST', status: 'disabled' },
        }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminDeleteUser',
      "A's ADMIN deletes B's OPERATOR",
      () => app.request('adminDeleteUser', { token: attacker.token, pathParameters: { userId: victimUser.userId } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminResetUserMfa',
      "A's ADMIN resets the MFA of B's OPERATOR",
      () => app.request('adminResetUserMfa', { token: attacker.token, pathParameters: { userId: victimUser.userId } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminSignOutUser',
      "A's ADMIN signs B's OPERATOR out everywhere",
      () => app.request('adminSignOutUser', { token: attacker.token, pathParameters: { userId: victimUser.userId } }),
      (r) => expect(r).toEqual(refused(404, 'User not found')),
    ],
    [
      'adminListUsers',
      "A's ADMIN lists users naming tenant B in the query",
      () => app.request('adminListUsers', { token: attacker.token, query: { tenantId: b } }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'adminListUsers',
      "A's ADMIN lists users: only A's",
      () => app.request('adminListUsers', { token: attacker.token }),
      // A's admin, and the ADMIN of A's console attempts (attackerConsole).
      (r) => expect(r.body.data.users.map((user: { username: string }) => user.username).sort()).toEqual(['admin', 'console-admin']),
    ],
    [
      'adminListUsers',
      "A's ADMIN lists users with a cursor of B's listing",
      async () => {
        const page = await app.request('adminListUsers', { token: victim.token, query: { limit: '1' } });
        return app.request('adminListUsers', { token: attacker.token, query: { cursor: page.body.data.nextCursor } });
      },
      (r) => expect(r).toEqual(refused(400, 'Invalid cursor')),
    ],
    [
      'listOAuth2Clients',
      "A's ADMIN lists OAuth clients: only A's",
      () => app.request('listOAuth2Clients', { token: attacker.token }),
      // A's public client too, when an attempt above registered it: nothing of B's.
      (r) =>
        expect(
          r.body.data.clients.map((client: { client_id: string }) => client.client_id).filter((id: string) => id !== `spa-${a}`),
        ).toEqual([attackerClient.clientId]),
    ],
    [
      'listOAuth2Clients',
      "A's ADMIN lists OAuth clients naming tenant B in the query",
      () => app.request('listOAuth2Clients', { token: attacker.token, query: { tenantId: b } }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'readOAuth2Client',
      "A's ADMIN reads B's client",
      () => app.request('readOAuth2Client', { token: attacker.token, pathParameters: { clientId: victimClient.clientId } }),
      (r) => expect(r).toEqual(refused(404, 'Client not found')),
    ],
    [
      'updateOAuth2Client',
      "A's ADMIN points B's client's redirect URI at A's server",
      () =>
        app.request('updateOAuth2Client', {
          token: attacker.token,
          pathParameters: { clientId: victimClient.clientId },
          body: { redirect_uri: 'https://attacker.example.com/cb', grant_types: 'client_credentials', first_party: true },
        }),
      (r) => expect(r).toEqual(refused(404, 'Client not found')),
    ],
    [
      'rotateOAuth2ClientSecret',
      "A's ADMIN gives B's client a secret of A's choosing",
      () =>
        app.request('rotateOAuth2ClientSecret', {
          token: attacker.token,
          pathParameters: { clientId: victimClient.clientId },
          body: { client_secret: newSecret(), previous_secret_expires_in: 0 },
        }),
      (r) => expect(r).toEqual(refused(404, 'Client not found')),
    ],
    [
      'deleteOAuth2Client',
      "A's ADMIN deletes B's client",
      () => app.request('deleteOAuth2Client', { token: attacker.token, pathParameters: { clientId: victimClient.clientId } }),
      (r) => expect(r).toEqual(refused(404, 'Client not found')),
    ],
    [
      'reauthenticate',
      "A reauthenticates with B's password, naming B's tenant and user",
      () =>
        app.request('reauthenticate', {
          token: attacker.token,
          body: { password: PASSWORD, tenantId: b, userId: victimUser.userId, username: 'victim-user' },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid credentials')),
    ],
    [
      'changePassword',
      "A changes a password naming B's tenant and user, with B's password",
      () =>
        app.request('changePassword', {
          token: attacker.token,
          body: { currentPassword: PASSWORD, newPassword: 'taken over passphrase', tenantId: b, userId: victimUser.userId },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid credentials')),
    ],
    // Sessions and authorized apps (docs/api.md 8.3-8.5): a user's own only, across and within tenants.
    [
      'listSessions',
      "A lists sessions: only A's",
      () => app.request('listSessions', { token: attacker.token }),
      (r) => {
        const ids = r.body.data.sessions.map((session: { id: string }) => session.id);
        expect(ids).toEqual([decodeJwt(attacker.token).sid]);
      },
    ],
    [
      'listSessions',
      "B's OPERATOR lists sessions: not B's ADMIN's",
      () => app.request('listSessions', { token: victimUser.token }),
      (r) => expect(r.body.data.sessions.map((session: { id: string }) => session.id)).toEqual([decodeJwt(victimUser.token).sid]),
    ],
    [
      'revokeSession',
      "A revokes B's ADMIN's session",
      () => app.request('revokeSession', { token: attacker.token, pathParameters: { sessionId: String(decodeJwt(victim.token).sid) } }),
      (r) => expect(r).toEqual(refused(404, 'Session not found')),
    ],
    [
      'revokeSession',
      "B's OPERATOR revokes B's ADMIN's session",
      () => app.request('revokeSession', { token: victimUser.token, pathParameters: { sessionId: String(decodeJwt(victim.token).sid) } }),
      (r) => expect(r).toEqual(refused(404, 'Session not found')),
    ],
    [
      'revokeOtherSessions',
      "A signs out A's other sessions naming B's tenant and sessions: A's only",
      () =>
        app.request('revokeOtherSessions', {
          token: attacker.token,
          body: { tenantId: b, sessionId: String(decodeJwt(victim.token).sid) },
          query: { tenantId: b, userId: victim.user.id },
        }),
      (r) => expect(r.body).toEqual({ success: true, data: { message: 'Sessions revoked', revoked: 0 } }),
    ],
    [
      'listGrants',
      "A lists grants: none of B's",
      () => app.request('listGrants', { token: attacker.token }),
      (r) => expect(r.body.data).toEqual({ grants: [] }),
    ],
    [
      'listGrants',
      "B's OPERATOR lists grants: not B's ADMIN's",
      () => app.request('listGrants', { token: victimUser.token }),
      (r) => expect(r.body.data).toEqual({ grants: [] }),
    ],
    [
      'revokeGrant',
      "A revokes B's ADMIN's grant",
      () =>
        app.request('revokeGrant', { token: attacker.token, pathParameters: { grantId: victimTokens.refresh_token.split('.')[0] ?? '' } }),
      (r) => expect(r).toEqual(refused(404, 'Grant not found')),
    ],
    [
      'revokeGrant',
      "B's OPERATOR revokes B's ADMIN's grant",
      () =>
        app.request('revokeGrant', {
          token: victimUser.token,
          pathParameters: { grantId: victimTokens.refresh_token.split('.')[0] ?? '' },
        }),
      (r) => expect(r).toEqual(refused(404, 'Grant not found')),
    ],
    [
      'getAccount',
      "A reads the account naming B's tenant and user: A's own",
      () => app.request('getAccount', { token: attacker.token, query: { tenantId: b, userId: victimUser.userId } }),
      (r) => expect(r.body.data.account).toMatchObject({ id: attacker.user.id, tenantId: a }),
    ],
    [
      'register',
      "A's ADMIN registers a user of A into B's shop",
      () =>
        app.request('register', {
          token: attacker.token,
          body: { username: 'mole', password: PASSWORD, role: 'OPERATOR', tenantId: a, shopId: 'victim-shop' },
        }),
      (r) => expect(r).toEqual(refused(400, 'Unknown shop')),
    ],
    [
      'adminUpdateUser',
      "A's ADMIN moves themselves into B's shop",
      () =>
        app.request('adminUpdateUser', {
          token: attacker.token,
          pathParameters: { userId: attacker.user.id },
          body: { shopId: 'victim-shop' },
        }),
      (r) => expect(r).toEqual(refused(400, 'Unknown shop')),
    ],
    [
      'adminImportUsers',
      "A's ADMIN imports users naming tenant B in the body: refused",
      () => app.request('adminImportUsers', { token: attacker.token, body: { tenantId: b, users: [{ username: 'mole', role: 'ADMIN' }] } }),
      (r) => expect(r).toMatchObject({ status: 400, body: { error: 'body: Unrecognized key: "tenantId"' } }),
    ],
    [
      'adminImportUsers',
      "A's ADMIN imports B's usernames, into B's shop or naming B in a row: A's own users, B's shop unknown",
      () =>
        app.request('adminImportUsers', {
          token: attacker.token,
          body: {
            users: [
              { username: 'victim-user', role: 'ADMIN', passwordHash: bcrypt.hashSync(ATTACKER_PASSWORD, 4) },
              { username: 'mole', role: 'ADMIN', shopId: 'victim-shop' },
              { username: 'mole-2', role: 'ADMIN', tenantId: b },
            ],
          },
        }),
      (r) =>
        expect(r.body).toEqual({
          success: true,
          data: {
            imported: 1,
            failed: [
              { index: 1, error: 'Unknown shop' },
              { index: 2, error: 'row: Unrecognized key: "tenantId"' },
            ],
          },
        }),
    ],
    [
      'adminCreateShop',
      "A's ADMIN creates a shop naming tenant B in the body",
      () => app.request('adminCreateShop', { token: attacker.token, body: { shopId: 'victim-shop', name: 'Mine', tenantId: b } }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'adminCreateShop',
      "A's ADMIN creates a shop of B's shop id: A's own, B's untouched",
      () => app.request('adminCreateShop', { token: attacker.token, body: { shopId: 'victim-shop', name: 'Mine' } }),
      (r) => expect(r.body.data.shop).toEqual({ shopId: 'victim-shop', name: 'Mine', createdAt: expect.any(String) }),
    ],
    [
      'adminListShops',
      "A's ADMIN lists shops naming tenant B in the query: only A's",
      () => app.request('adminListShops', { token: attacker.token, query: { tenantId: b } }),
      (r) => expect(r.body.data.shops.map((shop: { name: string }) => shop.name).sort()).toEqual(['Mine', 'default']),
    ],
    [
      'adminUpdateTenant',
      "A's ADMIN renames a tenant naming tenant B in the body: refused",
      () => app.request('adminUpdateTenant', { token: attacker.token, body: { displayName: 'Mine', tenantId: b } }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'adminUpdateTenant',
      "A's ADMIN renames the tenant: A's own, B's untouched",
      () => app.request('adminUpdateTenant', { token: attacker.token, body: { displayName: 'Mine' } }),
      (r) => expect(r.body.data.tenant).toMatchObject({ id: a, displayName: 'Mine' }),
    ],
    [
      'adminReadTenant',
      "A's ADMIN reads the tenant naming tenant B in the query: A's",
      () => app.request('adminReadTenant', { token: attacker.token, query: { tenantId: b } }),
      (r) => expect(r.body.data.tenant).toMatchObject({ id: a }),
    ],
    [
      'adminListAudit',
      "A's ADMIN reads the audit trail: only A's events",
      async () => {
        const ours = await app.request('adminListAudit', { token: attacker.token, query: { limit: '100' } });
        const theirs = new Set((await victimEvents()).map((event) => event.id));
        expect(ours.body.data.events.filter((event: { id: string }) => theirs.has(event.id))).toEqual([]);
        return ours;
      },
      (r) => expect(r.body.data.events.length).toBeGreaterThan(0),
    ],
    [
      'adminListAudit',
      "A's ADMIN reads the events about B's user: none",
      () => app.request('adminListAudit', { token: attacker.token, query: { userId: victimUser.userId } }),
      (r) => expect(r.body).toEqual({ success: true, data: { events: [], nextCursor: null } }),
    ],
    [
      'adminListAudit',
      "A's ADMIN reads the audit trail with a cursor of B's",
      async () => {
        const page = await app.request('adminListAudit', { token: victim.token, query: { limit: '1' } });
        return app.request('adminListAudit', { token: attacker.token, query: { cursor: page.body.data.nextCursor } });
      },
      (r) => expect(r).toEqual(refused(400, 'Invalid cursor')),
    ],
    [
      'oauth2Logout',
      "A's browser session asks to log out naming B's client: the error page, nothing ended",
      async () => {
        const jar = await attackerBrowser();
        return app.request('oauth2Logout', { method: 'GET', headers: jar.header(), query: { client_id: victimClient.clientId } });
      },
      (r) => expect([r.status, r.headers.Location, String(r.body).includes('Invalid client')]).toEqual([400, undefined, true]),
    ],
    [
      'oauth2Logout',
      "A's browser session cookie relabelled with B's tenant: no session of B, none ended",
      async () => {
        const jar = await attackerBrowser();
        const [, sessionId, secret] = (jar.cookies.get('__Host-session') ?? '').split('.');
        const forged = `__Host-session=${Buffer.from(b).toString('base64url')}.${sessionId}.${secret}`;
        return app.request('oauth2Logout', { method: 'GET', headers: { cookie: forged }, query: {} });
      },
      (r) => expect([r.status, String(r.body).includes('<h1>Signed out</h1>')]).toEqual([200, true]),
    ],
    // The account page and the tenant console (docs/api.md 15.1).
    [
      'accountAction',
      "A's account page signs out B's session: 404 on the page, B's session live",
      async () => {
        const jar = await attackerBrowser();
        const page = await openPage(app, jar, 'account', { section: 'sessions' });
        const victimSession = String((await app.identityOf(victim.token))?.sessionId);
        return postAction(
          app,
          jar,
          'account',
          { section: 'sessions', action: 'revoke' },
          { csrf: csrfOf(page), sessionId: victimSession },
          new URL(deps.config.issuer).origin,
        );
      },
      (r) => expect([r.status, String(r.body).includes('The session was not found.')]).toEqual([404, true]),
    ],
    [
      'accountAction',
      "A's account page confirms it is A with a passkey of B's user, on B's challenge: refused on the page",
      async () => {
        const jar = await attackerBrowser();
        const page = await openPage(app, jar, 'account', { section: 'profile' });
        return postAction(
          app,
          jar,
          'account',
          { section: 'profile', action: 'confirm-passkey' },
          { csrf: csrfOf(page), credential: JSON.stringify(victimPasskey.assertion) },
          new URL(deps.config.issuer).origin,
        );
      },
      (r) => expect([r.status, String(r.body).includes('The passkey was not accepted.')]).toEqual([401, true]),
    ],
    [
      'accountAction',
      "A's browser session cookie relabelled with B's tenant posts a form: sign in again, nothing changed",
      async () => {
        const jar = await attackerBrowser();
        const page = await openPage(app, jar, 'account', { section: 'password' });
        const [, sessionId, secret] = (jar.cookies.get('__Host-session') ?? '').split('.');
        const forged = new CookieJar();
        forged.cookies.set('__Host-session', `${Buffer.from(b).toString('base64url')}.${sessionId}.${secret}`);
        return postAction(
          app,
          forged,
          'account',
          { section: 'password', action: 'change' },
          { csrf: csrfOf(page), currentPassword: ATTACKER_PASSWORD, newPassword: 'a takeover passphrase' },
          new URL(deps.config.issuer).origin,
        );
      },
      (r) => expect([r.status, String(r.body).includes('<h1>Sign in again</h1>')]).toEqual([401, true]),
    ],
    // Invitations (docs/api.md 13.1).
    [
      'adminRevokeInvitation',
      "A's ADMIN revokes B's invitation: 404, as an unknown one",
      () => app.request('adminRevokeInvitation', { token: attacker.token, pathParameters: { id: victimInvitation.id } }),
      (r) => expect(r).toEqual(refused(404, 'Invitation not found')),
    ],
    [
      'adminResendInvitation',
      "A's ADMIN resends B's invitation: 404, and no email",
      () => app.request('adminResendInvitation', { token: attacker.token, pathParameters: { id: victimInvitation.id } }),
      (r) => expect(r).toEqual(refused(404, 'Invitation not found')),
    ],
    [
      'adminListInvitations',
      "A's ADMIN lists invitations: none of B's",
      () => app.request('adminListInvitations', { token: attacker.token }),
      (r) => expect(r.body).toEqual({ success: true, data: { invitations: [], nextCursor: null } }),
    ],
    [
      'adminListInvitations',
      "A's ADMIN lists invitations with a cursor naming B's tenant",
      () => {
        const cursor = Buffer.from(JSON.stringify({ t: b, c: new Date().toISOString(), i: 'any' })).toString('base64url');
        return app.request('adminListInvitations', { token: attacker.token, query: { cursor } });
      },
      (r) => expect(r).toEqual(refused(400, 'Invalid cursor')),
    ],
    [
      'adminCreateInvitation',
      "A's ADMIN invites into B's shop, or names B's tenant",
      async () => {
        const intoShop = await app.request('adminCreateInvitation', {
          token: attacker.token,
          body: { email: 'mole-invitee@example.com', role: 'ADMIN', shopId: 'victim-store' },
        });
        expect(intoShop).toEqual(refused(400, 'Unknown shop'));
        return app.request('adminCreateInvitation', {
          token: attacker.token,
          body: { email: 'mole@example.com', role: 'ADMIN', tenantId: b },
        });
      },
      (r) => expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']),
    ],
    [
      'acceptInvitation',
      "B's invitation link relabelled with A's tenant: 400 Invalid invitation",
      () =>
        app.request('acceptInvitation', {
          body: { token: withTenant(victimInvitation.token, a), username: 'mole', password: ATTACKER_PASSWORD },
        }),
      (r) => expect(r).toEqual(refused(400, 'Invalid invitation')),
    ],
    [
      'hostedInvitationPage',
      "B's invitation link relabelled with A's tenant, on the hosted page: 400",
      () => app.request('hostedInvitationPage', { pathParameters: { token: withTenant(victimInvitation.token, a) } }),
      (r) => expect([r.status, String(r.body).includes('Invalid invitation')]).toEqual([400, true]),
    ],
    // Last: it ends A's session.
    [
      'logout',
      "A logs out naming B's tenant and session in the body and query",
      () =>
        app.request('logout', {
          token: attacker.token,
          body: { tenantId: b, sessionId: String(decodeJwt(victim.token).sid), all: true },
          query: { tenantId: b },
        }),
      (r) => expect(r.status).toBe(200),
    ],
  ];

  const scimNotFound = (r: Response) => expect(r).toMatchObject({ status: 404, body: { status: '404', detail: 'User not found' } });
  const noResources = (r: Response) => expect(r).toMatchObject({ status: 200, body: { totalResults: 0, Resources: [] } });
  const connectionNotFound = (r: Response) => expect(r).toEqual(refused(404, 'Connection not found'));
  const webhookNotFound = (r: Response) => expect(r).toEqual(refused(404, 'Webhook not found'));
  const onVictimWebhook = (route: string, what: string, body?: Record<string, unknown>): (typeof attempts)[number] => [
    route,
    `A's ADMIN ${what} B's webhook`,
    () => app.request(route, { token: attacker.token, pathParameters: { webhookId: victimWebhook }, ...(body ? { body } : {}) }),
    webhookNotFound,
  ];
  attempts.unshift(
    onVictimWebhook('adminReadWebhook', 'reads'),
    onVictimWebhook('adminUpdateWebhook', 'redirects', { url: 'http://127.0.0.1:9/attacker' }),
    onVictimWebhook('adminDeleteWebhook', 'deletes'),
    onVictimWebhook('adminTestWebhook', 'tests'),
    onVictimWebhook('adminListWebhookDeliveries', 'lists the deliveries of'),
    [
      'adminListWebhooks',
      "A's ADMIN lists webhooks",
      () => app.request('adminListWebhooks', { token: attacker.token }),
      (r) => expect(r.body.data.webhooks.map((one: { id: string }) => one.id)).not.toContain(victimWebhook),
    ],
    [
      'adminCreateWebhook',
      "A's ADMIN creates a webhook naming B",
      () =>
        app.request('adminCreateWebhook', {
          token: attacker.token,
          body: { url: 'http://127.0.0.1:9/attacker', events: ['identity.user.created'], tenantId: b },
        }),
      (r) => expect(r.status).toBe(400),
    ],
  );
  attempts.unshift(
    [
      'adminReadConnection',
      "A's ADMIN reads B's connection",
      () => app.request('adminReadConnection', { token: attacker.token, pathParameters: { id: victimConnection } }),
      connectionNotFound,
    ],
    [
      'adminUpdateConnection',
      "A's ADMIN disables B's connection",
      () =>
        app.request('adminUpdateConnection', { token: attacker.token, pathParameters: { id: victimConnection }, body: { enabled: false } }),
      connectionNotFound,
    ],
    [
      'adminDeleteConnection',
      "A's ADMIN deletes B's connection",
      () => app.request('adminDeleteConnection', { token: attacker.token, pathParameters: { id: victimConnection } }),
      connectionNotFound,
    ],
    [
      'adminListConnections',
      "A's ADMIN lists connections",
      () => app.request('adminListConnections', { token: attacker.token }),
      // A's own connections only (the SAML cases' one names B's domain too): none of B's.
      (r) => {
        expect(r.status).toBe(200);
        const ids = (r.body.data.connections as Array<{ id: string }>).map((connection) => connection.id);
        expect(ids).not.toContain(victimConnection);
        expect(ids).toEqual([attackerSaml.id]);
      },
    ],
    [
      'adminCreateConnection',
      "A's ADMIN creates a connection naming B",
      () => app.request('adminCreateConnection', { token: attacker.token, body: { ...oidcConnection([victimDomain]), tenantId: b } }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'adminAddDomain',
      "A's ADMIN adds B's verified domain",
      () => app.request('adminAddDomain', { token: attacker.token, body: { domain: victimDomain } }),
      (r) => expect(r).toEqual(refused(409, 'Domain already claimed')),
    ],
    [
      'adminVerifyDomain',
      "A's ADMIN verifies B's pending domain",
      () => app.request('adminVerifyDomain', { token: attacker.token, pathParameters: { domain: victimPendingDomain } }),
      (r) => expect(r).toEqual(refused(404, 'Domain not found')),
    ],
    [
      'adminDeleteDomain',
      "A's ADMIN deletes B's verified domain",
      () => app.request('adminDeleteDomain', { token: attacker.token, pathParameters: { domain: victimDomain } }),
      (r) => expect(r).toEqual(refused(404, 'Domain not found')),
    ],
    [
      'adminListDomains',
      "A's ADMIN lists domains",
      () => app.request('adminListDomains', { token: attacker.token }),
      (r) => {
        expect(r.status).toBe(200);
        const domains = (r.body.data.domains as Array<{ domain: string }>).map((domain) => domain.domain);
        expect(domains).not.toContain(victimDomain);
        expect(domains).not.toContain(victimPendingDomain);
      },
    ],
    [
      'login',
      "A password sign-in to A with a username at B's SSO-required domain: B's connection does not apply (401, not 403)",
      () => app.request('login', { body: { username: `someone@${victimDomain}`, password: ATTACKER_PASSWORD, tenantId: a } }),
      (r) => expect(r).toEqual(refused(401, 'Invalid credentials')),
    ],
    [
      'adminDeleteScimToken',
      "A's ADMIN deletes B's SCIM token",
      () => app.request('adminDeleteScimToken', { token: attacker.token, pathParameters: { tokenId: victimScimToken.id } }),
      (r) => expect(r).toEqual(refused(404, 'SCIM token not found')),
    ],
    [
      'adminListScimTokens',
      "A's ADMIN lists SCIM tokens",
      () => app.request('adminListScimTokens', { token: attacker.token }),
      (r) => expect(r.body.data.scimTokens.map((t: { id: string }) => t.id)).not.toContain(victimScimToken.id),
    ],
    [
      'adminCreateScimToken',
      "A's ADMIN creates a SCIM token naming B",
      () => app.request('adminCreateScimToken', { token: attacker.token, body: { name: 'x', tenantId: b } }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'scimReadUser',
      "A's SCIM token reads B's ADMIN",
      () => attackerScim('scimReadUser', { pathParameters: { userId: victim.user.id } }),
      scimNotFound,
    ],
    [
      'scimPatchUser',
      "A's SCIM token disables B's OPERATOR",
      () =>
        attackerScim('scimPatchUser', {
          pathParameters: { userId: victimUser.userId },
          body: {
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'replace', path: 'active', value: 'False' }],
          },
        }),
      scimNotFound,
    ],
    [
      'scimReplaceUser',
      "A's SCIM token replaces B's ADMIN",
      () => attackerScim('scimReplaceUser', { pathParameters: { userId: victim.user.id }, body: { userName: 'admin', active: false } }),
      scimNotFound,
    ],
    [
      'scimDeleteUser',
      "A's SCIM token deletes B's OPERATOR",
      () => attackerScim('scimDeleteUser', { pathParameters: { userId: victimUser.userId } }),
      scimNotFound,
    ],
    [
      'scimListUsers',
      "A's SCIM token filters on B's externalId",
      () => attackerScim('scimListUsers', { query: { filter: 'externalId eq "victim-ext"' } }),
      noResources,
    ],
    [
      'scimListUsers',
      "A's SCIM token filters on B's email",
      () => attackerScim('scimListUsers', { query: { filter: 'emails.value eq "victim-scim@example.com"' } }),
      noResources,
    ],
    [
      'scimListUsers',
      "A's SCIM token lists users",
      () => attackerScim('scimListUsers'),
      (r) => expect(r.body.Resources.map((u: { userName: string }) => u.userName)).toEqual(['admin']),
    ],
    [
      'scimPatchGroup',
      "A's SCIM token adds B's OPERATOR to ADMIN",
      () =>
        attackerScim('scimPatchGroup', {
          pathParameters: { groupId: 'ADMIN' },
          body: {
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'add', path: 'members', value: [{ value: victimUser.userId }] }],
          },
        }),
      (r) => expect(r.status).toBe(400),
    ],
    [
      'scimReadGroup',
      "A's SCIM token reads the ADMIN group",
      () => attackerScim('scimReadGroup', { pathParameters: { groupId: 'ADMIN' } }),
      (r) => expect(r.body.members.map((m: { value: string }) => m.value)).toEqual([attacker.user.id]),
    ],
    [
      'scimCreateUser',
      "A's SCIM token creates B's username, naming B's shop",
      () =>
        attackerScim('scimCreateUser', {
          body: { userName: 'victim-scim', 'urn:ietf:params:scim:schemas:extension:commerce:2.0:User': { shopId: 'victim-shop' } },
        }),
      (r) => expect(r).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } }),
    ],
  );
  // Last: A's browser signs in again for these, which the session listings above must not see.
  attempts.push(
    // The device authorization grant (docs/api.md 16.4): B's codes from A's browser and A's client.
    [
      'hostedDeviceForm',
      "A's signed-in user approves B's user code",
      async () => {
        const jar = await attackerBrowser();
        const origin = new URL(deps.config.issuer).origin;
        const csrf = csrfOf(await openDevicePage(app, jar));
        return postDeviceForm(app, jar, origin, { csrf, user_code: victimDeviceCodes.user_code, decision: 'allow' });
      },
      (r) => {
        expect(r.status).toBe(403);
        expect(String(r.body)).toContain('This code is for a device of another organization.');
      },
    ],
    [
      'oauth2Token',
      "A's device client polls with B's device code",
      () => pollToken(app, attackerClient, victimDeviceCodes.device_code),
      (r) => expect(r).toEqual(rfcRefused(400, 'invalid_grant', 'Invalid grant')),
    ],
    [
      'oauth2DeviceAuthorization',
      "A asks for device codes with B's client id and A's secret",
      () => deviceAuthorization(app, { ...victimDevice, clientSecret: attackerClient.clientSecret }),
      (r) => expect(r).toEqual(rfcRefused(401, 'invalid_client', 'Invalid client')),
    ],
  );

  /**
   * A's ADMIN in the tenant console (docs/api.md 15.3.6-15.3.8), signed in once: every link
   * and form naming B's client, connection, domains or SCIM token answers the 404 page.
   */
  let attackerAppsConsole: Promise<{ jar: CookieJar; csrf: string }> | undefined;
  const consoleOfAttacker = () => {
    attackerAppsConsole ??= signedInJar(app, new URL(deps.config.issuer).origin, 'admin', {
      tenantId: a,
      username: 'admin',
      password: ATTACKER_PASSWORD,
    }).then(({ jar, page }) => ({ jar, csrf: /name="csrf" value="([^"]+)"/.exec(String(page.body))?.[1] ?? '' }));
    return attackerAppsConsole;
  };
  const consolePage = async (section: string, query: Record<string, string>) =>
    openPage(app, (await consoleOfAttacker()).jar, 'admin', { section, query });
  const consoleForm = async (section: string, action: string, fields: Record<string, string>) => {
    const { jar, csrf } = await consoleOfAttacker();
    return postAction(app, jar, 'admin', { section, action }, { csrf, ...fields }, new URL(deps.config.issuer).origin);
  };
  /** The 404 page, and no secret on it. */
  const consoleNotFound = (r: Response) => {
    expect(r.status).toBe(404);
    expect(String(r.body)).not.toContain('class="secret"');
  };
  attempts.push(
    [
      'adminConsolePage',
      "A's ADMIN opens B's client in the console",
      () => consolePage('clients', { client: victimClient.clientId }),
      consoleNotFound,
    ],
    [
      'adminConsolePage',
      "A's ADMIN opens the deletion of B's client",
      () => consolePage('clients', { delete: victimClient.clientId }),
      consoleNotFound,
    ],
    [
      'adminConsolePage',
      "A's ADMIN opens B's connection in the console",
      () => consolePage('connections', { connection: victimConnection }),
      consoleNotFound,
    ],
    [
      'adminConsolePage',
      "A's ADMIN opens the deletion of B's domain",
      () => consolePage('connections', { deleteDomain: victimDomain }),
      consoleNotFound,
    ],
    [
      'adminConsolePage',
      "A's ADMIN opens the deletion of B's SCIM token",
      () => consolePage('scim-tokens', { delete: victimScimToken.id }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN points B's client's redirect URI at A's server, in the console",
      () =>
        consoleForm('clients', 'update', {
          clientId: victimClient.clientId,
          redirect_uri: 'https://attacker.example.com/cb',
          'grant_types:client_credentials': 'on',
          scope: 'orders:read',
          first_party: 'on',
        }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN rotates B's client's secret in the console",
      () => consoleForm('clients', 'rotate', { clientId: victimClient.clientId, previous_secret_expires_in: '0' }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN deletes B's client in the console",
      () => consoleForm('clients', 'delete', { clientId: victimClient.clientId }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN changes B's connection in the console",
      () =>
        consoleForm('connections', 'update', {
          id: victimConnection,
          type: 'oidc',
          name: 'Taken',
          issuer: 'https://attacker.example.com',
          clientId: 'attacker',
          clientSecret: 'attacker-secret',
          domains: victimDomain,
          defaultRole: 'ADMIN',
          jitProvisioning: 'on',
        }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN disables B's connection in the console",
      () => consoleForm('connections', 'disable', { id: victimConnection }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN deletes B's connection in the console",
      () => consoleForm('connections', 'delete', { id: victimConnection }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN verifies B's pending domain in the console",
      () => consoleForm('connections', 'verify-domain', { domain: victimPendingDomain }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN deletes B's domain in the console",
      () => consoleForm('connections', 'delete-domain', { domain: victimDomain }),
      consoleNotFound,
    ],
    [
      'adminConsoleAction',
      "A's ADMIN deletes B's SCIM token in the console",
      () => consoleForm('scim-tokens', 'delete', { id: victimScimToken.id }),
      consoleNotFound,
    ],
  );

  it.each(attempts)('%s: %s', async (_, __, attempt, check) => {
    check(await attempt());
  });

  it('covers every operation', () => {
    const operations = new Set(attempts.map(([operation]) => operation));
    for (const operation of [
      'login',
      'refreshToken',
      'register',
      'logout',
      'me',
      'enableMFA',
      'verifyMFA',
      'reauthenticate',
      'changePassword',
      'oauth2Authorize',
      'oauth2Token',
      'createOAuth2Client',
      'revoke',
      'introspect',
      'jwks',
      'metadata',
      'authorizer',
      'adminListUsers',
      'adminReadUser',
      'adminUpdateUser',
      'adminDeleteUser',
      'adminResetUserMfa',
      'adminSignOutUser',
      'listOAuth2Clients',
      'readOAuth2Client',
      'updateOAuth2Client',
      'deleteOAuth2Client',
      'rotateOAuth2ClientSecret',
      'listSessions',
      'revokeSession',
      'revokeOtherSessions',
      'listGrants',
      'revokeGrant',
      'getAccount',
      'adminCreateShop',
      'adminImportUsers',
      'adminListShops',
      'adminListAudit',
      'adminCreateScimToken',
      'adminListScimTokens',
      'adminDeleteScimToken',
      'scimListUsers',
      'scimReadUser',
      'scimReplaceUser',
      'scimPatchUser',
      'scimDeleteUser',
      'scimPatchGroup',
      'scimReadGroup',
      'adminReadTenant',
      'adminUpdateTenant',
      'passwordForgot',
      'passwordReset',
      'emailSet',
      'emailVerify',
      'oauth2Logout',
      'adminCreateInvitation',
      'adminListInvitations',
      'adminRevokeInvitation',
      'adminResendInvitation',
      'acceptInvitation',
      'hostedInvitationPage',
      'adminCreateConnection',
      'adminListConnections',
      'adminReadConnection',
      'adminUpdateConnection',
      'adminDeleteConnection',
      'adminAddDomain',
      'adminListDomains',
      'adminVerifyDomain',
      'adminDeleteDomain',
      'ssoSamlAcs',
      'oauth2DeviceAuthorization',
      'hostedDeviceForm',
      'adminConsolePage',
      'adminConsoleAction',
      'adminCreateWebhook',
      'adminListWebhooks',
      'adminReadWebhook',
      'adminUpdateWebhook',
      'adminDeleteWebhook',
      'adminTestWebhook',
      'adminListWebhookDeliveries',
    ]) {
      expect(operations, operation).toContain(operation);
    }
  });

  it('leaves every record of B unchanged and every credential of B working', async () => {
    expect(await victimRecords()).toEqual(before);
    // B's trail gained only the refusals of the attempts made against B (a sign-in, A's reset code on B's username).
    const added = (await victimEvents()).filter((event) => !eventsBefore.has(event.id));
    const refusals = ['login_failed', 'password_reset_failed'];
    expect(added.map((event) => [event.type, event.outcome])).toEqual(
      added.map((event) => [refusals.includes(String(event.type)) ? event.type : 'login_failed', 'failure']),
    );
    expect(added.filter((event) => event.type === 'password_reset_failed')).toHaveLength(1);
    expect(added.length).toBeGreaterThan(0);
    // B's published events gained only the refused sign-ins, as its trail did.
    const published = [...(await victimOutbox())].filter(([pk, item]) => item.seq !== outboxBefore.get(pk)?.seq);
    expect(published.length).toBeGreaterThan(0);
    expect(new Set(published.flatMap(([, item]) => item.events.map((event) => event.type)))).toEqual(new Set(['identity.login.failed']));
    // B's sessions, MFA enrolment, OAuth tokens and code all still work.
    expect((await app.request('me', { token: victim.token })).body.data.user.tenantId).toBe(b);
    expect(await introspect(victimClient, victimTokens.access_token)).toMatchObject({ active: true, tenantId: b });
    expect(await introspect(victimClient, victimCcToken)).toMatchObject({ active: true, tenantId: b });
    expect(
      (
        await app.request(
          'oauth2Token',
          tokenRequest(victimClient, { grant_type: 'refresh_token', refresh_token: victimTokens.refresh_token }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await app.request(
          'oauth2Token',
          tokenRequest(victimClient, {
            grant_type: 'authorization_code',
            code: victimCode.code,
            redirect_uri: victimClient.redirectUri,
            code_verifier: victimCode.verifier,
          }),
        )
      ).status,
    ).toBe(200);
    expect(await app.request('verifyMFA', { token: victimUser.token, body: { method: 'SMS', code: victimSmsCode } })).toMatchObject({
      status: 200,
    });
    expect((await app.request('refreshToken', { body: { refreshToken: victim.refreshToken } })).status).toBe(200);
    expect((await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId: b } })).status).toBe(200);
    expect((await app.request('emailVerify', { token: victim.token, body: { code: victimEmailCode } })).status).toBe(200);
    expect(
      (await scimClient(app, victimScimToken.token)('scimListUsers', { query: { filter: 'externalId eq "victim-ext"' } })).body
        .totalResults,
    ).toBe(1);
    // B's device still waits for B's users.
    expect((await pollToken(app, victimDevice, victimDeviceCodes.device_code)).body.error).toBe('authorization_pending');
  });
});

/**
 * The MFA lifecycle (docs/api.md 8.6) across tenants and users: the same username in
 * tenants A and B, and another user of B, each with TOTP and recovery codes. No route
 * takes a tenant or user: each acts on the caller alone, and a recovery code (or its
 * stored digest, copied) works for its own user only.
 */
describe('MFA lifecycle across tenants and users', () => {
  let deps: TestDeps;
  let app: App;
  const [a, b] = [uniqueTenant('attacker'), uniqueTenant('victim')];
  type Holder = { tenantId: string; username: string; userId: string; token: string; codes: string[] };
  let attacker: Holder;
  let victim: Holder;
  let neighbour: Holder;

  const withRecoveryCodes = async (tenantId: string, username: string, adminToken?: string): Promise<Holder> => {
    const registered = adminToken
      ? await registerStaff(app, adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId })
      : await registerAdmin(app, tenantId, username, PASSWORD);
    const { code } = await activateTotp(app, deps, registered.token);
    const login = await app.request('login', { body: { username, password: PASSWORD, tenantId, mfaCode: code() } });
    const token = login.body.data.token as string;
    const codes = (await app.request('generateRecoveryCodes', { token })).body.data.codes as string[];
    return { tenantId, username, userId: registered.user.id, token, codes };
  };
  const signIn = (holder: Holder, mfaCode: string | undefined) =>
    app.request('login', {
      body: { username: holder.username, password: PASSWORD, tenantId: holder.tenantId, mfaMethod: 'RECOVERY', mfaCode },
    });
  const listOf = async (holder: Holder) => (await app.request('listMFA', { token: holder.token })).body.data.mfa;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    attacker = await withRecoveryCodes(a, 'alice');
    victim = await withRecoveryCodes(b, 'alice');
    neighbour = await withRecoveryCodes(b, 'bob', victim.token);
  }, 60_000);

  it("refuses another tenant's or another user's recovery code: 401 Invalid MFA code", async () => {
    for (const code of [attacker.codes[0], neighbour.codes[0]]) {
      expect(await signIn(victim, code)).toEqual({
        status: 401,
        headers: expect.objectContaining({ 'X-MFA-Methods': 'TOTP,RECOVERY' }),
        body: failure('Invalid MFA code'),
      });
    }
    expect((await listOf(attacker)).recoveryCodesRemaining).toBe(10);
    expect((await listOf(neighbour)).recoveryCodesRemaining).toBe(10);
  });

  it("refuses a code whose stored digest was copied to another user's record (digests are bound to tenant and user)", async () => {
    const stolen = await deps.store.mfa.recoveryCodes(a, attacker.userId);
    const digests = [...(stolen?.digests ?? [])];
    expect(digests).toHaveLength(10);
    expect(await deps.store.mfa.replaceRecoveryCodes(b, neighbour.userId, { digests, generatedAt: stolen?.generatedAt ?? 0 }, 'TOTP')).toBe(
      true,
    );
    expect((await signIn(neighbour, attacker.codes[1])).body).toEqual(failure('Invalid MFA code'));
    // Put right again for the tests after.
    neighbour.codes = (await app.request('generateRecoveryCodes', { token: neighbour.token })).body.data.codes;
  });

  it('lists, generates and disables for the caller alone, whatever tenant or user the request names', async () => {
    const naming = { tenantId: b, userId: victim.userId, username: 'alice', method: 'TOTP' };
    const listed = await app.request('listMFA', { token: attacker.token, query: { tenantId: b, userId: victim.userId } });
    expect(listed.body.data.mfa).toEqual(await listOf(attacker));
    const generated = await app.request('generateRecoveryCodes', { token: attacker.token, body: naming });
    expect(generated.status).toBe(200);
    const disabled = await app.request('disableMFA', { token: attacker.token, body: naming });
    expect(disabled.body).toEqual({ success: true, data: { message: 'MFA disabled' } });
    expect(await listOf(attacker)).toEqual({ methods: [], recoveryCodesRemaining: 0 });
    // B's users keep their method and every code.
    for (const holder of [victim, neighbour]) {
      expect(await listOf(holder)).toMatchObject({ methods: [{ method: 'TOTP', status: 'active' }], recoveryCodesRemaining: 10 });
      expect((await signIn(holder, holder.codes[9])).status).toBe(200);
    }
  });
});
