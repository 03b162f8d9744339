import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { OidcConnection, SamlConnection } from '../../../lib/federation/connection';
import { consoleBrowser } from '../../console/console-browser';
import { type App, registerAdmin, registerStaff, testApp } from '../../helpers/app';
import { softwareAuthenticator } from '../../helpers/authenticator';
import { nearRealTime } from '../../helpers/clock';
import { postAction, signedInJar } from '../../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { DEVICE_GRANT, deviceAuthorization, deviceBrowser, deviceCodes, pollToken, postDeviceForm } from '../../helpers/device';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server';
import { type DpopKey, dpopKey, dpopProof } from '../../helpers/dpop';
import { type FaultMode, faultPlan, faultyStores } from '../../helpers/faulty-stores';
import { verifiedDomain as storedVerifiedDomain } from '../../helpers/federation';
import { connectionOf, oidcConnection, verifiedDomain } from '../../helpers/federation-admin';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../../helpers/hosted';
import { isServiceUnavailable, type Response } from '../../helpers/http';
import { createTable, restoreTable, scanTable, tableSnapshot } from '../../helpers/isolated-table';
import { activateTotp, authenticator, newTotpSecret } from '../../helpers/mfa';
import { authorizationCode, createClient, form, newSecret, type TestClient, tokenRequest } from '../../helpers/oauth';
import { signInAt, startOidcIdp, storedOidcConnection, type TestIdp } from '../../helpers/oidc-idp';
import { verifiedEmail } from '../../helpers/recovery';
import { makeSamlIdp, type SamlIdp } from '../../helpers/saml-idp';
import { postSamlResponse, samlConnectionOf, startSamlSignIn } from '../../helpers/saml-sign-in';
import { scimClient, scimTokenOf } from '../../helpers/scim';
import { halfWrittenState } from '../../helpers/table-invariants';

/**
 * Step by step: for every operation, each of its database calls (and
 * the MFA delivery) fails once before reaching the database, and each call that writes
 * fails once more after the write landed, its answer lost, as a dropped connection does (a
 * read's lost answer changes nothing the fault before it did not). Each faulted request meets
 * the state its clean run met (the table brought back to it, or a context prepared afresh:
 * `Scenario.fresh`), and the fault hits the same call as named in the clean run, whatever
 * order calls made at once start in. Every such request answers 503
 * `Service unavailable` in the envelope (or succeeds, where the failed call was not
 * needed for the answer); the table then holds no half-written state; the same
 * request tried again answers without a 5xx; and the same functions (no restart)
 * work for the next request. test/security/outage.test.ts stops the database itself.
 */
const PASSWORD = 'fault tolerant passphrase';

interface Scenario<C = unknown> {
  name: string;
  prepare: () => Promise<C>;
  run: (context: C) => Promise<Response>;
  ok: (response: Response) => boolean;
  /**
   * Each fault's run gets a context prepared afresh. Otherwise the one prepared context is
   * used again, with the table brought back to the state `prepare` left (one scan and one
   * batch of writes, instead of the other operations that prepare it): set where the
   * context holds what the table does not, and a run uses it up (a cookie jar the run
   * changes, a code the merchant's IdP takes once).
   */
  fresh?: true;
}

/**
 * The scenarios below in two halves, one per test file (part-1.test.ts, part-2.test.ts),
 * so that two workers share them: `part` 0 takes the even-numbered scenarios, 1 the
 * odd-numbered and the redemption checks; each counts the faults it injected.
 */
export function describeFaultSteps(part: 0 | 1) {
  describe(`a database fault at every step of every operation (part ${part + 1} of 2)`, () => faultSteps(part));
}

function faultSteps(part: 0 | 1) {
  const endpoint = inject('dynamodbEndpoint');
  const plan = faultPlan();
  let tables = 0;
  let tableName: string;
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let adminToken: string;
  let adminTokenAt = 0;
  let client: TestClient;
  const issuerOrigin = () => new URL(deps.config.issuer).origin;

  // Domain verification (docs/api.md 14.2) asks a DNS server of the test's.
  let dns: TestDnsServer;
  let dpopKeyOfTests: DpopKey;
  beforeAll(async () => {
    dns = await startDnsServer();
    dpopKeyOfTests = await dpopKey();
  });
  afterAll(() => dns.close());

  // Each test on a table of its own, with the same functions for all of its runs: after
  // every fault the whole table is scanned for half-written state, and a table shared by
  // every operation made each scan (and the file) slower than the one before.
  beforeEach(async () => {
    // The part in the name: the two files run at once, and may start a table in the same millisecond.
    tableName = `fault-steps-${part}-${Date.now()}-${tables++}`;
    await createTable(endpoint, tableName);
    // One tenant sends hundreds of codes here (verified emails, reset codes, SMS): past the
    // default per-tenant send quota, which test/abuse/ checks on its own.
    deps = await testDeps({ TABLE_NAME: tableName, SEND_QUOTA_PER_TENANT: '100000', DNS_SERVERS: dns.address });
    nearRealTime(deps);
    const faulty = faultyStores(deps.store, deps.mfaDelivery, plan, deps.dynamo);
    deps.store = faulty.stores;
    deps.mfaDelivery = faulty.delivery;
    app = testApp(deps);
    tenantId = uniqueTenant('faults');
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
    adminTokenAt = deps.clock.now();
    client = await createClient(app, adminToken, tenantId);
    scimToken = undefined;
  });

  /** The SCIM client of the test's tenant (docs/api.md 13.3), its token made on first use. */
  let scimToken: string | undefined;
  const scim = async () => {
    scimToken ??= (await scimTokenOf(app, adminToken)).token;
    return scimClient(app, scimToken);
  };
  const scimPatch = (Operations: unknown[]) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations });
  /** Webhooks (docs/api.md 17.2) to a loopback port nothing listens on: a test delivery fails at once. */
  const WEBHOOK_URL = 'http://127.0.0.1:9/hook';
  /** The tenant's webhooks deleted, so that the runs of a scenario stay below the limit of 10. */
  const clearWebhooks = async () => {
    const { body } = await app.request('adminListWebhooks', { token: adminToken });
    for (const { id } of body.data.webhooks as Array<{ id: string }>)
      await app.request('adminDeleteWebhook', { token: adminToken, pathParameters: { webhookId: id } });
  };
  const newWebhook = async () => {
    await clearWebhooks();
    const created = await app.request('adminCreateWebhook', {
      token: adminToken,
      body: { url: WEBHOOK_URL, events: ['identity.user.created'] },
    });
    return String(created.body.data.webhook.id);
  };

  let serial = 0;
  const newUser = async () => {
    // Scenarios that move the clock (TOTP steps) outlive the ADMIN's access token: sign in again.
    if (deps.clock.now() - adminTokenAt > 600_000) {
      const signedIn = await app.request('login', { body: { username: 'admin', password: PASSWORD, tenantId } });
      adminToken = signedIn.body.data.token;
      adminTokenAt = deps.clock.now();
    }
    const username = `user-${serial++}`;
    const session = await registerStaff(app, adminToken, { username, password: PASSWORD, role: 'OPERATOR', tenantId });
    return { username, token: session.token, refreshToken: session.refreshToken, userId: session.user.id };
  };
  /**
   * A user with active TOTP and a session that passed it (`otpToken`). Not activateTotp:
   * it moves the clock on, and the admin's token must outlive the runs.
   */
  const withTotp = async () => {
    const user = await newUser();
    const secret = newTotpSecret();
    await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } });
    const code = authenticator(deps, secret);
    await app.request('verifyMFA', { token: user.token, body: { method: 'TOTP', code: code() } });
    const login = await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId, mfaCode: code(1) } });
    return { ...user, otpToken: login.body.data.token as string };
  };
  /** A user with a verified email address (docs/api.md 8.8). */
  const withEmail = async () => {
    const user = await newUser();
    await verifiedEmail(app, deps, user.token, tenantId, user.userId, `${user.username}@example.com`);
    return user;
  };
  /** A pending invitation of a new address, and the token its email carries. */
  const invitation = async () => {
    const email = `invitee-${serial++}@example.com`;
    const created = await app.request('adminCreateInvitation', { token: adminToken, body: { email, role: 'ANALYST' } });
    const token = /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1] ?? '';
    return { id: created.body.data.invitation.id as string, token };
  };
  /** The ADMIN's signed-in browser on the tenant console (docs/api.md 15.3): one per scenario run, as each fault may end its session. */
  const adminConsole = () => consoleBrowser(app, issuerOrigin(), tenantId, 'admin', PASSWORD);
  /** The merchant's OIDC IdP (oidc-provider on loopback), one for the file. */
  let idp: Promise<TestIdp> | undefined;
  const oidcIdp = () => (idp ??= startOidcIdp({ redirectUri: `${deps.config.issuer}/sso/oidc/callback` }));
  afterAll(async () => (await idp)?.close());
  /** The test's tenant's connection to it, with its domain verified (made once per table). */
  const oidcConnections = new Map<string, Promise<OidcConnection>>();
  const oidcSignInConnection = () => {
    let made = oidcConnections.get(tableName);
    if (!made) {
      made = (async () => {
        await storedVerifiedDomain(deps, tenantId);
        return storedOidcConnection(deps, tenantId, await oidcIdp());
      })();
      oidcConnections.set(tableName, made);
    }
    return made;
  };
  /** The tenant console signed in as the test's ADMIN (docs/api.md 15.3), once per table. */
  type ConsoleRun = { jar: CookieJar; csrf: string };
  const consoles = new Map<string, Promise<ConsoleRun>>();
  const consoleOf = () => {
    let signedIn = consoles.get(tableName);
    if (!signedIn) {
      signedIn = signedInJar(app, issuerOrigin(), 'admin', { tenantId, username: 'admin', password: PASSWORD }).then(({ jar, page }) => ({
        jar,
        csrf: csrfOf(page),
      }));
      consoles.set(tableName, signedIn);
    }
    return signedIn;
  };
  const consoleForm = (jar: CookieJar, section: string, action: string, fields: Record<string, string>) =>
    postAction(app, jar, 'admin', { section, action }, fields, issuerOrigin());
  const redeem = (code: string, verifier: string) =>
    app.request(
      'oauth2Token',
      tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
    );

  /** DPoP (docs/api.md 16.3): a proof of a token request by the tests' key, and such a request of the tenant's client. */
  const tokenProof = () =>
    dpopProof(dpopKeyOfTests, { htu: `${deps.config.issuer}/oauth2/token`, iat: Math.floor(deps.clock.now() / 1000) });
  const withProof = (fields: Record<string, string>, dpop: string) => {
    const form = tokenRequest(client, fields);
    return app.request('oauth2Token', { ...form, headers: { ...form.headers, dpop } });
  };
  /** A public client (docs/api.md 16.1) listing two origins (16.2); its `clientSecret` is empty: it has none. */
  const publicClient = async (): Promise<TestClient> => {
    const clientId = `spa-${serial++}-${Date.now()}`;
    const created = await app.request('createOAuth2Client', {
      token: adminToken,
      body: publicRegistration(clientId),
    });
    if (created.status !== 201) throw new Error(`public client: ${JSON.stringify(created.body)}`);
    return { clientId, clientSecret: '', redirectUri: 'https://spa.example.com/cb', tenantId };
  };
  const publicRegistration = (clientId: string) => ({
    client_id: clientId,
    token_endpoint_auth_method: 'none',
    redirect_uri: 'https://spa.example.com/cb http://127.0.0.1/cb',
    grant_types: 'authorization_code refresh_token',
    scope: 'orders:read',
    tenant_id: tenantId,
    allowed_origins: 'https://spa.example.com https://old.example.com',
  });
  const publicTokens = async (spa: TestClient) => {
    const { code, verifier } = await authorizationCode(app, (await newUser()).token, spa);
    const fields = {
      grant_type: 'authorization_code',
      client_id: spa.clientId,
      code,
      redirect_uri: spa.redirectUri,
      code_verifier: verifier,
    };
    return (await app.request('oauth2Token', form(fields))).body as { access_token: string; refresh_token: string };
  };

  const scenarios: Array<Scenario<any>> = [
    {
      name: 'register (a new tenant)',
      prepare: async () => uniqueTenant('new'),
      run: (tenant: string) =>
        app.request('register', { body: { username: 'first', password: PASSWORD, role: 'ADMIN', tenantId: tenant } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'register (by an ADMIN)',
      prepare: async () => `member-${serial++}`,
      run: (username: string) =>
        app.request('register', { token: adminToken, body: { username, password: PASSWORD, role: 'ANALYST', tenantId } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'login',
      prepare: newUser,
      run: (user) => app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } }),
      ok: (r) => r.status === 200,
    },
    {
      // docs/api.md 10: the device's own budget, and a new device token.
      name: 'login from a known device',
      prepare: async () => {
        const user = await newUser();
        const known = await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } });
        return { ...user, deviceToken: known.body.data.deviceToken as string };
      },
      run: (user) =>
        app.request('login', {
          body: { username: user.username, password: PASSWORD, tenantId },
          headers: { 'x-device-token': user.deviceToken },
        }),
      ok: (r) => r.status === 200,
    },
    {
      // The three windows of the unknown sources' budget, then the source address's count of failures.
      name: 'login with a wrong password',
      prepare: newUser,
      run: (user) => app.request('login', { body: { username: user.username, password: 'not the password', tenantId } }),
      ok: (r) => r.status === 401,
    },
    {
      name: 'login with TOTP',
      prepare: async () => {
        const user = await newUser();
        const { code } = await activateTotp(app, deps, user.token);
        return { ...user, code };
      },
      run: (user) => app.request('login', { body: { username: user.username, password: PASSWORD, tenantId, mfaCode: user.code() } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'login with SMS (code sent)',
      prepare: async () => {
        const user = await newUser();
        await app.request('enableMFA', { token: user.token, body: { method: 'SMS', secret: '+15550003333' } });
        const sent = await deps.outbox.latest(tenantId, user.userId, 'SMS');
        await app.request('verifyMFA', { token: user.token, body: { method: 'SMS', code: sent?.code } });
        return user;
      },
      run: (user) => app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } }),
      ok: (r) => r.status === 401 && r.body.error === 'MFA code required',
    },
    {
      name: 'refresh',
      prepare: newUser,
      run: (user) => app.request('refreshToken', { body: { refreshToken: user.refreshToken } }),
      ok: (r) => r.status === 200,
    },
    { name: 'logout', prepare: newUser, run: (user) => app.request('logout', { token: user.token }), ok: (r) => r.status === 200 },
    { name: 'me', prepare: newUser, run: (user) => app.request('me', { token: user.token }), ok: (r) => r.status === 200 },
    {
      name: 'enableMFA TOTP',
      prepare: newUser,
      run: (user) => app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret: newTotpSecret() } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'enableMFA SMS',
      prepare: newUser,
      run: (user) => app.request('enableMFA', { token: user.token, body: { method: 'SMS', secret: '+15550004444' } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'verifyMFA TOTP',
      prepare: async () => {
        const user = await newUser();
        const secret = newTotpSecret();
        await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } });
        return { ...user, code: authenticator(deps, secret) };
      },
      run: (user) => app.request('verifyMFA', { token: user.token, body: { method: 'TOTP', code: user.code() } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'verifyMFA SMS',
      prepare: async () => {
        const user = await newUser();
        await app.request('enableMFA', { token: user.token, body: { method: 'SMS', secret: '+15550005555' } });
        return { ...user, code: (await deps.outbox.latest(tenantId, user.userId, 'SMS'))?.code };
      },
      run: (user) => app.request('verifyMFA', { token: user.token, body: { method: 'SMS', code: user.code } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'verifyMFA TOTP, the first method (other sessions revoked)',
      prepare: async () => {
        const user = await newUser();
        await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } });
        const secret = newTotpSecret();
        await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } });
        return { ...user, code: authenticator(deps, secret) };
      },
      run: (user) => app.request('verifyMFA', { token: user.token, body: { method: 'TOTP', code: user.code() } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'reauthenticate',
      prepare: newUser,
      run: (user) => app.request('reauthenticate', { token: user.token, body: { password: PASSWORD } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'reauthenticate with TOTP',
      // Not activateTotp: it moves the clock on, and the admin's token must outlive the runs.
      prepare: async () => {
        const user = await newUser();
        const secret = newTotpSecret();
        await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret } });
        const code = authenticator(deps, secret);
        await app.request('verifyMFA', { token: user.token, body: { method: 'TOTP', code: code() } });
        return { ...user, code: () => code(1) };
      },
      run: (user) => app.request('reauthenticate', { token: user.token, body: { password: PASSWORD, mfaCode: user.code() } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'password change (other sessions revoked)',
      prepare: async () => {
        const user = await newUser();
        await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } });
        return user;
      },
      // Tried again after a fault that landed, the change meets its own new password: 400, never a 5xx.
      run: (user) =>
        app.request('changePassword', { token: user.token, body: { currentPassword: PASSWORD, newPassword: `${PASSWORD} again` } }),
      ok: (r) => r.status === 200,
    },
    // Forgotten password and email (docs/api.md 8.7, 8.8)
    {
      name: 'passwordForgot',
      prepare: withEmail,
      run: (user) => app.request('passwordForgot', { body: { username: user.username, tenantId } }),
      ok: (r) => r.status === 202,
    },
    {
      name: 'passwordReset (every session and grant revoked)',
      prepare: async () => {
        const user = await withEmail();
        await app.request('passwordForgot', { body: { username: user.username, tenantId } });
        return { ...user, code: (await deps.outbox.latest(tenantId, user.userId, 'EMAIL', 'reset'))?.code };
      },
      // Tried again after a fault that landed, the used code answers 400, never a 5xx.
      run: (user) =>
        app.request('passwordReset', { body: { username: user.username, tenantId, code: user.code, newPassword: `${PASSWORD} reset` } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'passwordReset with removePasskeys (the passkeys removed in the same transaction)',
      prepare: async () => {
        const user = await withEmail();
        const creation = (await app.request('passkeyRegistrationOptions', { token: user.token, body: {} })).body.data.options;
        const credential = softwareAuthenticator().create(creation).response;
        await app.request('passkeyRegistration', { token: user.token, body: { credential } });
        await app.request('passwordForgot', { body: { username: user.username, tenantId } });
        return { ...user, code: (await deps.outbox.latest(tenantId, user.userId, 'EMAIL', 'reset'))?.code };
      },
      run: (user) =>
        app.request('passwordReset', {
          body: { username: user.username, tenantId, code: user.code, newPassword: `${PASSWORD} reset`, removePasskeys: true },
        }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'emailSet',
      prepare: newUser,
      // Tried again after a fault that landed, the 30-s resend interval answers 429, never a 5xx.
      run: (user) => app.request('emailSet', { token: user.token, body: { email: `${user.username}@example.com` } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'emailVerify',
      prepare: async () => {
        const user = await newUser();
        await app.request('emailSet', { token: user.token, body: { email: `${user.username}@example.com` } });
        return { ...user, code: (await deps.outbox.latest(tenantId, user.userId, 'EMAIL', 'verify-email'))?.code };
      },
      run: (user) => app.request('emailVerify', { token: user.token, body: { code: user.code } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'listMFA',
      prepare: async () => {
        const user = await withTotp();
        await app.request('generateRecoveryCodes', { token: user.otpToken });
        return user;
      },
      run: (user) => app.request('listMFA', { token: user.token }),
      ok: (r) => r.status === 200 && r.body.data.mfa.recoveryCodesRemaining === 10,
    },
    {
      name: 'disableMFA (another method stays)',
      prepare: async () => {
        const user = await withTotp();
        await app.request('enableMFA', { token: user.otpToken, body: { method: 'SMS', secret: '+15550006666' } });
        const sent = await deps.outbox.latest(tenantId, user.userId, 'SMS');
        await app.request('verifyMFA', { token: user.otpToken, body: { method: 'SMS', code: sent?.code } });
        return user;
      },
      // Tried again after a fault that landed, the method is gone: 400, never a 5xx.
      run: (user) => app.request('disableMFA', { token: user.otpToken, body: { method: 'SMS' } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'disableMFA (the last method, with the recovery codes)',
      prepare: async () => {
        const user = await withTotp();
        await app.request('generateRecoveryCodes', { token: user.otpToken });
        return user;
      },
      run: (user) => app.request('disableMFA', { token: user.otpToken, body: { method: 'TOTP' } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'generateRecoveryCodes',
      prepare: withTotp,
      run: (user) => app.request('generateRecoveryCodes', { token: user.otpToken }),
      ok: (r) => r.status === 200 && r.body.data.codes.length === 10,
    },
    {
      name: 'login with a recovery code',
      prepare: async () => {
        const user = await withTotp();
        const codes = (await app.request('generateRecoveryCodes', { token: user.otpToken })).body.data.codes as string[];
        return { ...user, code: codes[0] };
      },
      run: (user) =>
        app.request('login', {
          body: { username: user.username, password: PASSWORD, tenantId, mfaMethod: 'RECOVERY', mfaCode: user.code },
        }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'createOAuth2Client',
      prepare: async () => `client-${serial++}-${Date.now()}`,
      run: (clientId: string) =>
        app.request('createOAuth2Client', {
          token: adminToken,
          body: {
            client_id: clientId,
            client_secret: newSecret(),
            redirect_uri: 'https://app.example.com/cb',
            grant_types: 'authorization_code',
            scope: 'orders:read',
            tenant_id: tenantId,
          },
        }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'authorize',
      prepare: newUser,
      run: (user) =>
        app.request('oauth2Authorize', {
          token: user.token,
          query: {
            response_type: 'code',
            client_id: client.clientId,
            redirect_uri: client.redirectUri,
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          },
        }),
      ok: (r) => r.status === 302,
    },
    {
      name: 'token authorization_code',
      prepare: async () => authorizationCode(app, (await newUser()).token, client),
      run: ({ code, verifier }) => redeem(code, verifier),
      ok: (r) => r.status === 200,
    },
    {
      name: 'token refresh_token',
      prepare: async () => {
        const { code, verifier } = await authorizationCode(app, (await newUser()).token, client);
        return (await redeem(code, verifier)).body.refresh_token as string;
      },
      run: (refreshToken: string) =>
        app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: refreshToken })),
      ok: (r) => r.status === 200,
    },
    {
      name: 'token client_credentials',
      prepare: async () => undefined,
      run: () => app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' })),
      ok: (r) => r.status === 200,
    },
    {
      name: 'introspect',
      prepare: async () => {
        const { code, verifier } = await authorizationCode(app, (await newUser()).token, client);
        return (await redeem(code, verifier)).body.refresh_token as string;
      },
      run: (token: string) => app.request('introspect', tokenRequest(client, { token })),
      ok: (r) => r.status === 200 && r.body.active === true,
    },
    {
      name: 'revoke',
      prepare: async () => {
        const { code, verifier } = await authorizationCode(app, (await newUser()).token, client);
        return (await redeem(code, verifier)).body.refresh_token as string;
      },
      run: (token: string) => app.request('revoke', tokenRequest(client, { token })),
      ok: (r) => r.status === 200,
    },
    {
      name: 'token client_credentials with a DPoP proof (its jti recorded)',
      prepare: () => tokenProof(),
      run: (dpop: string) => withProof({ grant_type: 'client_credentials' }, dpop),
      ok: (r) => r.status === 200 && r.body.token_type === 'DPoP',
    },
    {
      name: 'token authorization_code with a DPoP proof',
      prepare: async () => ({ ...(await authorizationCode(app, (await newUser()).token, client)), dpop: await tokenProof() }),
      run: ({ code, verifier, dpop }) =>
        withProof({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }, dpop),
      ok: (r) => r.status === 200 && r.body.token_type === 'DPoP',
    },
    {
      name: 'userinfo with a DPoP-bound token (the proof’s jti recorded)',
      prepare: async () => {
        const oidc = await openIdClient();
        const { code, verifier } = await authorizationCode(app, (await newUser()).token, oidc, { scope: 'openid' });
        const form = tokenRequest(oidc, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: oidc.redirectUri,
          code_verifier: verifier,
        });
        const redeemed = await app.request('oauth2Token', { ...form, headers: { ...form.headers, dpop: await tokenProof() } });
        const token = String(redeemed.body.access_token);
        const at = {
          htm: 'GET',
          htu: `${deps.config.issuer}/oauth2/userinfo`,
          iat: Math.floor(deps.clock.now() / 1000),
          accessToken: token,
        };
        return { token, dpop: await dpopProof(dpopKeyOfTests, at) };
      },
      run: ({ token, dpop }) => app.request('userInfo', { method: 'GET', headers: { authorization: `DPoP ${token}`, dpop } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminListUsers',
      prepare: async () => undefined,
      run: () => app.request('adminListUsers', { token: adminToken, query: { limit: '3' } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminReadUser',
      prepare: newUser,
      run: (user) => app.request('adminReadUser', { token: adminToken, pathParameters: { userId: user.userId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminUpdateUser (disable)',
      prepare: newUser,
      run: (user) =>
        app.request('adminUpdateUser', { token: adminToken, pathParameters: { userId: user.userId }, body: { status: 'disabled' } }),
      ok: (r) => r.status === 200 && r.body.data.user.status === 'disabled',
    },
    {
      name: 'adminUpdateUser (demote an ADMIN)',
      prepare: async () => {
        const response = await app.request('register', {
          token: adminToken,
          body: { username: `admin-${serial++}`, password: PASSWORD, role: 'ADMIN', tenantId },
        });
        return response.body.data.user.id as string;
      },
      run: (userId: string) => app.request('adminUpdateUser', { token: adminToken, pathParameters: { userId }, body: { role: 'ANALYST' } }),
      ok: (r) => r.status === 200 && r.body.data.user.role === 'ANALYST',
    },
    {
      name: 'adminDeleteUser',
      prepare: async () => {
        const user = await newUser();
        // A pending method: activating one moves the test clock on, and the ADMIN's token would expire.
        await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret: newTotpSecret() } });
        return user;
      },
      run: (user) => app.request('adminDeleteUser', { token: adminToken, pathParameters: { userId: user.userId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminResetUserMfa',
      prepare: async () => {
        const user = await newUser();
        // A pending method: activating one moves the test clock on, and the ADMIN's token would expire.
        await app.request('enableMFA', { token: user.token, body: { method: 'TOTP', secret: newTotpSecret() } });
        return user;
      },
      run: (user) => app.request('adminResetUserMfa', { token: adminToken, pathParameters: { userId: user.userId } }),
      ok: (r) => r.status === 200,
    },
    // Invitations (docs/api.md 13.1): the email is the last step, so a refused send revokes the invitation.
    {
      name: 'adminCreateInvitation (stored, then emailed)',
      prepare: async () => `invitee-${serial++}@example.com`,
      run: (email: string) => app.request('adminCreateInvitation', { token: adminToken, body: { email, role: 'ANALYST' } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'adminResendInvitation',
      prepare: () => invitation(),
      run: ({ id }) => app.request('adminResendInvitation', { token: adminToken, pathParameters: { id } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminRevokeInvitation',
      prepare: () => invitation(),
      run: ({ id }) => app.request('adminRevokeInvitation', { token: adminToken, pathParameters: { id } }),
      ok: (r) => r.status === 200,
    },
    // The tenant console (docs/api.md 15.3.1-15.3.4): the JSON twins' writes behind the page's session and
    // form; one of each kind (the twins' scenarios above break every write of the domain functions).
    {
      name: 'tenant console: disable a user',
      prepare: async () => ({ user: await newUser(), browser: await adminConsole() }),
      run: ({ user, browser }) => browser.post('staff', 'status', { userId: user.userId, status: 'disabled' }),
      ok: (r) => r.status === 303,
    },
    {
      name: 'tenant console: delete a user',
      prepare: async () => ({ user: await newUser(), browser: await adminConsole() }),
      run: ({ user, browser }) => browser.post('staff', 'delete', { userId: user.userId }),
      ok: (r) => r.status === 303,
    },
    {
      name: 'tenant console: invite',
      prepare: async () => ({ email: `invitee-${serial++}@example.com`, browser: await adminConsole() }),
      run: ({ email, browser }) => browser.post('invitations', 'invite', { email, role: 'ANALYST', shopId: 'default' }),
      ok: (r) => r.status === 303,
    },
    {
      name: 'tenant console: save the settings',
      prepare: async () => ({ name: `Shop ${serial++}`, browser: await adminConsole() }),
      run: ({ name, browser }) => browser.post('settings', 'save', { displayName: name, logoUrl: '', accentColor: '#0f766e' }),
      ok: (r) => r.status === 303,
    },
    {
      name: 'acceptInvitation (the account with the invitation used, then the session)',
      prepare: () => invitation(),
      run: ({ token }) => app.request('acceptInvitation', { body: { token, username: `joiner-${serial++}`, password: PASSWORD } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'hostedInvitationAccept (the account, then the browser session)',
      prepare: () => invitation(),
      run: ({ token }) =>
        app.request('hostedInvitationAccept', {
          pathParameters: { token },
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: issuerOrigin() },
          body: new URLSearchParams({ username: `joiner-${serial++}`, password: PASSWORD }).toString(),
        }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminSignOutUser',
      prepare: newUser,
      run: (user) => app.request('adminSignOutUser', { token: adminToken, pathParameters: { userId: user.userId } }),
      ok: (r) => r.status === 200,
    },
    // OAuth client lifecycle (docs/api.md 9.9-9.13)
    {
      name: 'listOAuth2Clients',
      prepare: async () => undefined,
      run: () => app.request('listOAuth2Clients', { token: adminToken }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'readOAuth2Client',
      prepare: () => createClient(app, adminToken, tenantId),
      run: (created: TestClient) => app.request('readOAuth2Client', { token: adminToken, pathParameters: { clientId: created.clientId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'updateOAuth2Client',
      prepare: () => createClient(app, adminToken, tenantId),
      run: (created: TestClient) =>
        app.request('updateOAuth2Client', {
          token: adminToken,
          pathParameters: { clientId: created.clientId },
          body: { client_name: 'Renamed', scope: 'orders:read' },
        }),
      ok: (r) => r.status === 200 && r.body.data.client.client_name === 'Renamed',
    },
    {
      name: 'deleteOAuth2Client',
      prepare: () => createClient(app, adminToken, tenantId),
      // Tried again after a fault that landed, the deletion meets a deleted client: 404, never a 5xx.
      run: (created: TestClient) =>
        app.request('deleteOAuth2Client', { token: adminToken, pathParameters: { clientId: created.clientId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'rotateOAuth2ClientSecret',
      prepare: async () => ({ client: await createClient(app, adminToken, tenantId), secret: newSecret() }),
      // Tried again after a fault that landed, the rotation meets its own secret: the same answer.
      run: ({ client: created, secret }: { client: TestClient; secret: string }) =>
        app.request('rotateOAuth2ClientSecret', {
          token: adminToken,
          pathParameters: { clientId: created.clientId },
          body: { client_secret: secret },
        }),
      ok: (r) => r.status === 200 && r.body.data.client.previous_secret_expires_at !== null,
    },
    // docs/api.md 17.3: the back-channel logout URI removed (a REMOVE beside the SET) with a rename.
    {
      name: 'updateOAuth2Client (back-channel logout URI removed)',
      prepare: async () => {
        const created = await createClient(app, adminToken, tenantId);
        const body = { backchannel_logout_uri: 'https://app.example.com/bcl' };
        await app.request('updateOAuth2Client', { token: adminToken, pathParameters: { clientId: created.clientId }, body });
        return created;
      },
      run: (created: TestClient) =>
        app.request('updateOAuth2Client', {
          token: adminToken,
          pathParameters: { clientId: created.clientId },
          body: { backchannel_logout_uri: '', client_name: 'Renamed' },
        }),
      ok: (r) => r.status === 200 && r.body.data.client.client_name === 'Renamed' && !('backchannel_logout_uri' in r.body.data.client),
    },
    // Public clients and per-client CORS (docs/api.md 16.1, 16.2).
    {
      name: 'createOAuth2Client (public, with allowed origins)',
      prepare: async () => `spa-${serial++}-${Date.now()}`,
      run: (clientId: string) => app.request('createOAuth2Client', { token: adminToken, body: publicRegistration(clientId) }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'updateOAuth2Client (allowed origins: one added, one dropped)',
      prepare: publicClient,
      run: (spa: TestClient) =>
        app.request('updateOAuth2Client', {
          token: adminToken,
          pathParameters: { clientId: spa.clientId },
          body: { allowed_origins: 'https://spa.example.com https://new.example.com' },
        }),
      ok: (r) => r.status === 200 && r.body.data.client.allowed_origins.includes('https://new.example.com'),
    },
    {
      name: 'deleteOAuth2Client (with allowed origins)',
      prepare: publicClient,
      run: (spa: TestClient) => app.request('deleteOAuth2Client', { token: adminToken, pathParameters: { clientId: spa.clientId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'token refresh_token (public client)',
      prepare: async () => {
        const spa = await publicClient();
        return { spa, refreshToken: (await publicTokens(spa)).refresh_token };
      },
      run: ({ spa, refreshToken }: { spa: TestClient; refreshToken: string }) =>
        app.request('oauth2Token', form({ grant_type: 'refresh_token', client_id: spa.clientId, refresh_token: refreshToken })),
      ok: (r) => r.status === 200,
    },
    {
      name: 'revoke (public client)',
      prepare: async () => {
        const spa = await publicClient();
        return { spa, refreshToken: (await publicTokens(spa)).refresh_token };
      },
      run: ({ spa, refreshToken }: { spa: TestClient; refreshToken: string }) =>
        app.request('revoke', form({ client_id: spa.clientId, token: refreshToken })),
      ok: (r) => r.status === 200,
    },
    {
      name: 'authorize by POST',
      prepare: newUser,
      run: (user) =>
        app.request('oauth2Authorize', {
          method: 'POST',
          token: user.token,
          ...form({
            response_type: 'code',
            client_id: client.clientId,
            redirect_uri: client.redirectUri,
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          }),
        }),
      ok: (r) => r.status === 302,
    },
    {
      name: 'corsPreflight (an origin a client lists)',
      prepare: publicClient,
      run: () =>
        app.request('corsPreflight', {
          method: 'OPTIONS',
          pathParameters: { proxy: 'oauth2/token' },
          headers: { origin: 'https://spa.example.com' },
        }),
      ok: (r) => r.status === 204 && r.headers['Access-Control-Allow-Origin'] === 'https://spa.example.com',
    },
    // Sessions and authorized apps (docs/api.md 8.3-8.5).
    {
      name: 'listSessions',
      prepare: newUser,
      run: (user) => app.request('listSessions', { token: user.token }),
      ok: (r) => r.status === 200 && r.body.data.sessions.length === 1,
    },
    {
      name: 'revokeSession',
      prepare: async () => {
        const user = await newUser();
        const other = await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } });
        return { ...user, sessionId: String(decodeJwt(other.body.data.token).sid) };
      },
      run: (user) => app.request('revokeSession', { token: user.token, pathParameters: { sessionId: user.sessionId } }),
      ok: (r) => r.status === 200 && r.body.data.message === 'Session revoked',
    },
    {
      name: 'revokeOtherSessions',
      prepare: async () => {
        const user = await newUser();
        await app.request('login', { body: { username: user.username, password: PASSWORD, tenantId } });
        return user;
      },
      run: (user) => app.request('revokeOtherSessions', { token: user.token }),
      ok: (r) => r.status === 200 && r.body.data.message === 'Sessions revoked',
    },
    {
      name: 'listGrants',
      prepare: async () => {
        const user = await newUser();
        const { code, verifier } = await authorizationCode(app, user.token, client);
        expect((await redeem(code, verifier)).status).toBe(200);
        return user;
      },
      run: (user) => app.request('listGrants', { token: user.token }),
      ok: (r) => r.status === 200 && r.body.data.grants.length === 1,
    },
    {
      name: 'revokeGrant',
      prepare: async () => {
        const user = await newUser();
        const { code, verifier } = await authorizationCode(app, user.token, client);
        const redeemed = await redeem(code, verifier);
        return { ...user, grantId: String(redeemed.body.refresh_token).split('.')[0] };
      },
      run: (user) => app.request('revokeGrant', { token: user.token, pathParameters: { grantId: user.grantId } }),
      ok: (r) => r.status === 200 && r.body.data.message === 'Grant revoked',
    },
    {
      name: 'getAccount',
      prepare: newUser,
      run: (user) => app.request('getAccount', { token: user.token }),
      ok: (r) => r.status === 200 && r.body.data.account.id !== undefined,
    }, // Browser sign-in (docs/api.md 11.5-11.10): the interaction, the browser session, consent.
    {
      name: 'browser authorize (the sign-in page: a new interaction)',
      prepare: async () => new CookieJar(),
      run: async (jar: CookieJar) => (await browserAuthorize(app, jar, client)).response,
      ok: (r) => r.status === 200 && csrfOf(r) !== '',
    },
    {
      name: 'hosted sign-in (the browser session, then the consent page)',
      fresh: true,
      prepare: async () => {
        const user = await newUser();
        const jar = new CookieJar();
        const { csrf } = await browserAuthorize(app, jar, client);
        return { ...user, jar, csrf };
      },
      run: (user) =>
        postForm(app, user.jar, 'hostedSignIn', { csrf: user.csrf, username: user.username, password: PASSWORD }, issuerOrigin()),
      ok: (r) => r.status === 200 && String(r.body).includes('value="allow"'),
    },
    {
      name: 'hosted consent (allow: the interaction used, the code issued)',
      fresh: true,
      prepare: async () => {
        const user = await newUser();
        const jar = new CookieJar();
        const { csrf } = await browserAuthorize(app, jar, client);
        await postForm(app, jar, 'hostedSignIn', { csrf, username: user.username, password: PASSWORD }, issuerOrigin());
        return { jar, csrf };
      },
      run: ({ jar, csrf }: { jar: CookieJar; csrf: string }) =>
        postForm(app, jar, 'hostedConsent', { csrf, decision: 'allow' }, issuerOrigin()),
      ok: (r) => r.status === 303 && new URL(r.headers.Location ?? '').searchParams.has('code'),
    },
    {
      name: 'RP-initiated logout (the confirmed sign-out: the browser session revoked, audited)',
      prepare: async () => {
        const user = await newUser();
        const jar = new CookieJar();
        const { csrf } = await browserAuthorize(app, jar, client);
        await postForm(app, jar, 'hostedSignIn', { csrf, username: user.username, password: PASSWORD }, issuerOrigin());
        const asked = await app.request('oauth2Logout', { method: 'GET', headers: jar.header(), query: {} });
        return { jar, csrf: csrfOf(asked) };
      },
      run: ({ jar, csrf }: { jar: CookieJar; csrf: string }) =>
        app.request('oauth2Logout', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: issuerOrigin(), ...jar.header() },
          body: new URLSearchParams({ csrf }).toString(),
        }),
      ok: (r) => r.status === 200 && String(r.body).includes('<h1>Signed out</h1>'),
    },
    {
      name: 'OIDC callback (a federated user provisioned just in time, then the consent page)',
      fresh: true,
      prepare: async () => {
        const connection = await oidcSignInConnection();
        const jar = new CookieJar();
        await browserAuthorize(app, jar, client);
        const begun = jar.take(
          await app.request('ssoBegin', { method: 'GET', headers: jar.header(), query: { connection: connection.id } }),
        );
        const login = `fed-${serial++}`;
        (await oidcIdp()).accounts.set(login, { email: `${login}@${tenantId}.example`, email_verified: true, groups: ['staff'] });
        const back = await signInAt(new URL(begun.headers.Location ?? ''), login);
        return { jar, query: Object.fromEntries(back.searchParams) };
      },
      run: ({ jar, query }: { jar: CookieJar; query: Record<string, string> }) =>
        app.request('ssoOidcCallback', { method: 'GET', headers: jar.header(), query }),
      ok: (r) => r.status === 200 && String(r.body).includes('value="allow"'),
    },
    {
      name: 'adminCreateShop',
      prepare: async () => `shop-${serial++}`,
      run: (shopId: string) => app.request('adminCreateShop', { token: adminToken, body: { shopId, name: 'A shop' } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'register (by an ADMIN, into a shop)',
      prepare: async () => {
        const shopId = `shop-${serial++}`;
        await app.request('adminCreateShop', { token: adminToken, body: { shopId, name: 'A shop' } });
        return { shopId, username: `member-${serial++}` };
      },
      run: ({ shopId, username }) =>
        app.request('register', { token: adminToken, body: { username, password: PASSWORD, role: 'ANALYST', tenantId, shopId } }),
      ok: (r) => r.status === 201,
    },
    {
      // docs/api.md 13.2: each row's user and username in one transaction; a fault stops the import.
      name: 'adminImportUsers',
      prepare: async () => [`imported-${serial++}`, `imported-${serial++}`],
      run: (usernames: string[]) =>
        app.request('adminImportUsers', {
          token: adminToken,
          body: { users: usernames.map((username) => ({ username, role: 'ANALYST', passwordHash: bcrypt.hashSync(PASSWORD, 4) })) },
        }),
      ok: (r) => r.status === 200 && r.body.data.imported === 2,
    },
    {
      // The first sign-in replaces the imported hash before it answers.
      name: 'login with an imported hash (replaced by Argon2id)',
      prepare: async () => {
        const username = `imported-${serial++}`;
        const users = [{ username, role: 'ANALYST', passwordHash: bcrypt.hashSync(PASSWORD, 4) }];
        await app.request('adminImportUsers', { token: adminToken, body: { users } });
        return username;
      },
      run: (username: string) => app.request('login', { body: { username, password: PASSWORD, tenantId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminUpdateTenant',
      prepare: async () => `Tenant ${serial++}`,
      run: (displayName: string) => app.request('adminUpdateTenant', { token: adminToken, body: { displayName } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminListShops',
      prepare: async () => undefined,
      run: () => app.request('adminListShops', { token: adminToken }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminListAudit',
      prepare: async () => undefined,
      run: () => app.request('adminListAudit', { token: adminToken, query: { limit: '5' } }),
      ok: (r) => r.status === 200,
    },
    // Passkeys (docs/api.md 12).
    {
      name: 'passkeyRegistrationOptions',
      prepare: newUser,
      run: (user) => app.request('passkeyRegistrationOptions', { token: user.token, body: {} }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'passkeyRegistration',
      prepare: async () => {
        const user = await newUser();
        const options = (await app.request('passkeyRegistrationOptions', { token: user.token, body: {} })).body.data.options;
        return { token: user.token, credential: softwareAuthenticator().create(options).response };
      },
      run: ({ token, credential }) => app.request('passkeyRegistration', { token, body: { credential } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'passkeyAuthentication',
      prepare: async () => {
        const user = await newUser();
        const passkeys = softwareAuthenticator();
        const creation = (await app.request('passkeyRegistrationOptions', { token: user.token, body: {} })).body.data.options;
        await app.request('passkeyRegistration', { token: user.token, body: { credential: passkeys.create(creation).response } });
        const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: user.username } })).body.data
          .options;
        return passkeys.get(request);
      },
      run: (credential) => app.request('passkeyAuthentication', { body: { tenantId, credential } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'account page: confirm it is you with a passkey',
      prepare: async () => {
        const user = await newUser();
        const passkeys = softwareAuthenticator();
        const creation = (await app.request('passkeyRegistrationOptions', { token: user.token, body: {} })).body.data.options;
        await app.request('passkeyRegistration', { token: user.token, body: { credential: passkeys.create(creation).response } });
        const { jar, page } = await signedInJar(app, issuerOrigin(), 'account', { tenantId, username: user.username, password: PASSWORD });
        const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: user.username } })).body.data
          .options;
        return { jar, fields: { csrf: csrfOf(page), credential: JSON.stringify(passkeys.get(request)) } };
      },
      run: ({ jar, fields }: { jar: CookieJar; fields: Record<string, string> }) =>
        postAction(app, jar, 'account', { section: 'profile', action: 'confirm-passkey' }, fields, issuerOrigin()),
      ok: (r) => r.status === 303,
    },
    {
      name: 'console: register an OAuth client (its secret shown once)',
      prepare: async () => ({ ...(await consoleOf()), clientId: `console-${serial++}` }),
      run: ({ jar, csrf, clientId }: ConsoleRun & { clientId: string }) =>
        consoleForm(jar, 'clients', 'create', {
          csrf,
          client_id: clientId,
          redirect_uri: 'https://app.example.com/cb',
          'grant_types:client_credentials': 'on',
          scope: 'orders:read',
        }),
      ok: (r) => r.status === 200 && String(r.body).includes('class="secret"'),
    },
    {
      name: 'console: create an OIDC connection',
      prepare: async () => ({ ...(await consoleOf()), domain: `console-${serial++}.${tenantId}.example` }),
      run: ({ jar, csrf, domain }: ConsoleRun & { domain: string }) =>
        consoleForm(jar, 'connections', 'create-oidc', {
          csrf,
          name: 'Console Okta',
          issuer: 'https://acme.okta.example',
          clientId: '0oa1',
          clientSecret: 'console okta secret',
          domains: domain,
          defaultRole: 'ANALYST',
        }),
      ok: (r) => r.status === 303,
    },
    {
      name: 'console: create a SCIM token (shown once)',
      prepare: consoleOf,
      run: ({ jar, csrf }: ConsoleRun) => consoleForm(jar, 'scim-tokens', 'create', { csrf, name: 'Console Okta' }),
      ok: (r) => r.status === 200 && String(r.body).includes('class="secret"'),
    },
    {
      name: 'adminCreateWebhook',
      prepare: clearWebhooks,
      run: () => app.request('adminCreateWebhook', { token: adminToken, body: { url: WEBHOOK_URL, events: ['identity.user.created'] } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'adminUpdateWebhook',
      prepare: newWebhook,
      run: (webhookId: string) =>
        app.request('adminUpdateWebhook', {
          token: adminToken,
          pathParameters: { webhookId },
          body: { events: ['identity.user.deleted'] },
        }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminDeleteWebhook',
      prepare: newWebhook,
      run: (webhookId: string) => app.request('adminDeleteWebhook', { token: adminToken, pathParameters: { webhookId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminTestWebhook (a receiver that refuses the connection)',
      prepare: newWebhook,
      run: (webhookId: string) => app.request('adminTestWebhook', { token: adminToken, pathParameters: { webhookId } }),
      ok: (r) => r.status === 200 && r.body.data.delivery.status === 'failed',
    },
    {
      name: 'adminCreateScimToken',
      prepare: async () => undefined,
      run: () => app.request('adminCreateScimToken', { token: adminToken, body: { name: 'Okta' } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'adminDeleteScimToken',
      prepare: async () => (await scimTokenOf(app, adminToken)).id,
      run: (tokenId: string) => app.request('adminDeleteScimToken', { token: adminToken, pathParameters: { tokenId } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'scimCreateUser',
      prepare: async () => ({ client: await scim(), userName: `scim-${serial++}` }),
      run: ({ client, userName }) =>
        client('scimCreateUser', { body: { userName, externalId: `ext-${userName}`, emails: [{ value: `${userName}@example.com` }] } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'scimPatchUser (disable)',
      prepare: async () => ({ client: await scim(), user: await newUser() }),
      run: ({ client, user }) =>
        client('scimPatchUser', {
          pathParameters: { userId: user.userId },
          body: scimPatch([
            { op: 'Replace', path: 'active', value: 'False' },
            { op: 'add', path: 'externalId', value: `x-${user.userId}` },
          ]),
        }),
      ok: (r) => r.status === 200 && r.body.active === false,
    },
    {
      name: 'scimReplaceUser',
      prepare: async () => ({ client: await scim(), user: await newUser() }),
      run: ({ client, user }) =>
        client('scimReplaceUser', {
          pathParameters: { userId: user.userId },
          body: { userName: user.username, externalId: `r-${user.userId}` },
        }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'scimPatchGroup',
      prepare: async () => ({ client: await scim(), user: await newUser() }),
      run: ({ client, user }) =>
        client('scimPatchGroup', {
          pathParameters: { groupId: 'MANAGER' },
          body: scimPatch([{ op: 'add', path: 'members', value: [{ value: user.userId }] }]),
        }),
      ok: (r) => r.status === 204,
    },
    {
      name: 'scimDeleteUser',
      prepare: async () => ({ client: await scim(), user: await newUser() }),
      run: ({ client, user }) => client('scimDeleteUser', { pathParameters: { userId: user.userId } }),
      ok: (r) => r.status === 204,
    },
    // Enterprise sign-in administration (docs/api.md 14.1, 14.2).
    {
      name: 'adminCreateConnection',
      prepare: async () => `corp-${serial++}.example`,
      run: (domain: string) => app.request('adminCreateConnection', { token: adminToken, body: oidcConnection([domain]) }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'adminUpdateConnection (a new client secret)',
      prepare: async () => connectionOf(app, adminToken, oidcConnection([`corp-${serial++}.example`])),
      run: (id: string) =>
        app.request('adminUpdateConnection', { token: adminToken, pathParameters: { id }, body: { clientSecret: `secret ${serial++}` } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminDeleteConnection',
      prepare: async () => connectionOf(app, adminToken, oidcConnection([`corp-${serial++}.example`])),
      run: (id: string) => app.request('adminDeleteConnection', { token: adminToken, pathParameters: { id } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminAddDomain',
      prepare: async () => `corp-${serial++}.example`,
      run: (domain: string) => app.request('adminAddDomain', { token: adminToken, body: { domain } }),
      ok: (r) => r.status === 201,
    },
    {
      name: 'adminVerifyDomain',
      prepare: async () => {
        const domain = `corp-${serial++}-${tenantId}.example`;
        const added = await app.request('adminAddDomain', { token: adminToken, body: { domain } });
        dns.txt.set(added.body.data.verification.name, [added.body.data.verification.value]);
        return domain;
      },
      run: (domain: string) => app.request('adminVerifyDomain', { token: adminToken, pathParameters: { domain } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'adminDeleteDomain (verified)',
      prepare: async () => {
        const domain = `corp-${serial++}-${tenantId}.example`;
        await verifiedDomain(app, dns, adminToken, domain);
        return domain;
      },
      run: (domain: string) => app.request('adminDeleteDomain', { token: adminToken, pathParameters: { domain } }),
      ok: (r) => r.status === 200,
    },
    {
      name: 'removePasskey',
      prepare: async () => {
        const user = await newUser();
        const creation = (await app.request('passkeyRegistrationOptions', { token: user.token, body: {} })).body.data.options;
        const credential = softwareAuthenticator().create(creation).response;
        const registered = await app.request('passkeyRegistration', { token: user.token, body: { credential } });
        return { token: user.token, id: registered.body.data.passkey.id as string };
      },
      run: ({ token, id }) => app.request('removePasskey', { token, pathParameters: { id } }),
      ok: (r) => r.status === 200,
    },
    {
      // docs/api.md 14.5: the pending sign-in taken, the assertion ID recorded, a user provisioned
      // with its link in one transaction, the session, the audit events.
      name: 'ssoSamlAcs (a new user provisioned)',
      fresh: true,
      prepare: async () => {
        const saml = await samlOfTenant();
        // A domain of its own: the OIDC scenarios' connections name the tenant's main one.
        const email = `saml-${serial++}@saml.${tenantId}.example`;
        const jar = new CookieJar();
        const start = await startSamlSignIn(app, jar, client, email);
        const SAMLResponse = saml.idp.encodedResponse({
          ...start,
          inResponseTo: start.requestId,
          nameId: `idp-${email}`,
          attributes: { email: [email] },
          now: deps.clock.now(),
        });
        return { jar, connectionId: saml.connection.id, form: { SAMLResponse, RelayState: start.relayState } };
      },
      run: ({ jar, connectionId, form }) => postSamlResponse(app, jar, connectionId, form),
      ok: (r) => r.status === 200,
    },
    {
      // docs/api.md 16.4: the authorization and its user code in one transaction.
      name: 'device authorization',
      prepare: () => deviceOfTenant(),
      run: ({ device }) => deviceAuthorization(app, device),
      ok: (r) => r.status === 200,
    },
    {
      // A code typed on the device page: a place in the window of wrong codes taken, the code found, the place given back.
      name: 'device page (a code shown)',
      prepare: async () => ({ ...(await deviceOfTenant()), codes: await deviceCodes(app, (await deviceOfTenant()).device) }),
      run: ({ browser, codes }) => postDeviceForm(app, browser.jar, issuerOrigin(), { csrf: browser.csrf, user_code: codes.user_code }),
      ok: (r) => r.status === 200,
    },
    {
      // The decision in one conditional write, then the audit event.
      name: 'device page (allowed)',
      prepare: async () => ({ ...(await deviceOfTenant()), codes: await deviceCodes(app, (await deviceOfTenant()).device) }),
      run: ({ browser, codes }) =>
        postDeviceForm(app, browser.jar, issuerOrigin(), { csrf: browser.csrf, user_code: codes.user_code, decision: 'allow' }),
      ok: (r) => r.status === 303,
    },
    {
      // The poll's one conditional write, then the redemption and its grant in one transaction.
      name: 'token device_code (approved)',
      prepare: async () => {
        const { device, browser } = await deviceOfTenant();
        const codes = await deviceCodes(app, device);
        await postDeviceForm(app, browser.jar, issuerOrigin(), { csrf: browser.csrf, user_code: codes.user_code, decision: 'allow' });
        return { device, code: codes.device_code };
      },
      run: ({ device, code }) => pollToken(app, device, code),
      ok: (r) => r.status === 200,
    },
  ];
  /** A client of the test's tenant with `openid` (userinfo), made on first use. */
  let openIdOf: { tenantId: string; client: TestClient } | undefined;
  const openIdClient = async () => {
    if (openIdOf?.tenantId !== tenantId)
      openIdOf = { tenantId, client: await createClient(app, adminToken, tenantId, { scope: 'openid' }) };
    return openIdOf.client;
  };
  /** The tenant's device client and a browser signed in at its device page (docs/api.md 16.4), made on first use. */
  let deviceTenant: { tenantId: string; device: TestClient; browser: { jar: CookieJar; csrf: string } } | undefined;
  const deviceOfTenant = async () => {
    if (deviceTenant?.tenantId !== tenantId) {
      const device = await createClient(app, adminToken, tenantId, { grantTypes: DEVICE_GRANT, scope: 'orders:read' });
      const user = await newUser();
      const browser = await deviceBrowser(app, issuerOrigin(), tenantId, user.username, PASSWORD);
      deviceTenant = { tenantId, device, browser };
    }
    return deviceTenant;
  };
  /** The tenant's SAML connection and its IdP (docs/api.md 14.5), made on first use. */
  let samlTenant: { tenantId: string; idp: SamlIdp; connection: SamlConnection } | undefined;
  const samlOfTenant = async () => {
    if (samlTenant?.tenantId !== tenantId) {
      const idp = await makeSamlIdp();
      const connection = await samlConnectionOf(deps, tenantId, `saml.${tenantId}.example`, {
        idpEntityId: idp.entityId,
        ssoUrl: 'https://idp.example.test/sso',
        signingCertificates: [idp.cert],
      });
      samlTenant = { tenantId, idp, connection };
    }
    return samlTenant;
  };

  const halfWritten = async () => halfWrittenState(await scanTable(endpoint, tableName));

  /** The events logged after the log held `offset` characters (parsing only those lines: the log grows long here). */
  const eventsSince = (offset: number) =>
    deps
      .logText()
      .slice(offset)
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { event?: string }).event);

  const mine = scenarios.filter((_, index) => index % 2 === part);
  /** The faults each scenario's test injected. */
  const faultsPerOperation: Record<string, number> = {};
  it.each(mine.map((scenario) => [scenario.name, scenario] as const))(
    '%s',
    async (_, scenario) => {
      // A clean run counts the calls to fail.
      const context = await scenario.prepare();
      const prepared = scenario.fresh ? undefined : await tableSnapshot(endpoint, tableName);
      plan.reset();
      const clean = await scenario.run(context);
      expect(scenario.ok(clean), `${clean.status} ${JSON.stringify(clean.body)}`).toBe(true);
      const calls = [...plan.calls];
      const writers = new Set(plan.writers);
      expect(calls.length).toBeGreaterThan(0);

      let fired = 0;
      let injected = 0;
      for (let at = 1; at <= calls.length; at++) {
        // A call that wrote nothing in the clean run changes nothing before its answer: its
        // answer lost is the call failed, and `before` covers it (docs/decisions/031-faults-after-writes-only.md).
        const modes: FaultMode[] = writers.has(at) ? ['before', 'after'] : ['before'];
        for (const mode of modes) {
          injected++;
          if (prepared) await restoreTable(endpoint, tableName, prepared);
          const input = prepared ? context : await scenario.prepare();
          plan.arm(at, mode, calls);
          const logged = deps.logText().length;
          const response = await scenario.run(input);
          if (plan.fired()) fired++;
          plan.disarm();
          const where = `${mode} call ${at} (${calls[at - 1]})`;
          // A 503 envelope, or the right answer where the failed call was not needed for it.
          expect(
            isServiceUnavailable(response) || scenario.ok(response),
            `${where}: ${response.status} ${JSON.stringify(response.body)}`,
          ).toBe(true);
          // The fault behind a 503 is logged (its details go to the log, never to the answer): by
          // the handler, or by the authorizer that met it first.
          if (isServiceUnavailable(response)) {
            const logsFault = expect.stringMatching(/^(dependency_unavailable|authorizer_failed)$/);
            expect(eventsSince(logged), `${where}: the fault is logged`).toEqual(expect.arrayContaining([logsFault]));
          }
          expect(JSON.stringify(response.body ?? '')).not.toMatch(/ECONNRESET|socket hang up|\bat /);
          expect(await halfWritten(), where).toEqual([]);
          // The same request again: an answer, never a 5xx (the state it meets is whole).
          const again = await scenario.run(input);
          expect(again.status, `${where}, tried again: ${JSON.stringify(again.body)}`).toBeLessThan(500);
        }
      }
      // Each armed fault fired: the calls of a clean run are the calls of every run.
      expect(fired).toBe(injected);
      faultsPerOperation[scenario.name] = injected;
      // The same functions, with no restart, serve the next request.
      expect(scenario.ok(await scenario.run(await scenario.prepare()))).toBe(true);
    },
    120_000,
  );

  /**
   * The token endpoint marks the code used and stores its grant in one transaction, so a
   * fault there, before or after it applied, never leaves a used code without its grant.
   */
  if (part === 1)
    it.each(['before', 'after'] as const)(
      'leaves no redeemed authorization code without its grant (fault %s the redemption)',
      async (when) => {
        const { code, verifier } = await authorizationCode(app, (await newUser()).token, client);
        plan.reset();
        await redeem(code, verifier);
        const at = plan.calls.indexOf('authorizationCodes.redeem') + 1;
        expect(at).toBeGreaterThan(0);
        const fresh = await authorizationCode(app, (await newUser()).token, client);
        plan.arm(at, when);
        expect(isServiceUnavailable(await redeem(fresh.code, fresh.verifier))).toBe(true);
        plan.disarm();
        const items = await scanTable(endpoint, tableName);
        const grants = new Set(items.filter((item) => item.sk === 'GRANT' && item.clientId !== undefined).map((item) => String(item.id)));
        const orphans = items.filter((item) => item.sk === 'CODE' && item.usedAt !== undefined && !grants.has(String(item.grantId)));
        expect(orphans).toEqual([]);
      },
    );

  // The faults the tests above injected, counted after the last of them: each part injects
  // over 50, so over 100 in all. It holds only where every scenario of the part ran (not in
  // a run filtered by name).
  it('injects over 50 faults across the operations of this part', () => {
    expect(Object.keys(faultsPerOperation)).toHaveLength(mine.length);
    const faults = Object.values(faultsPerOperation).reduce((sum, count) => sum + count, 0);
    if (process.env.SHOW_COUNTS) console.log({ part: part + 1, operations: mine.length, faults, faultsPerOperation });
    expect(faults).toBeGreaterThan(50);
  });
}
