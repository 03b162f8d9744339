import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoStores } from '../../lib/deps';
import { consoleBrowser } from '../console/console-browser';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { nearRealTime } from '../helpers/clock';
import { postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { DEVICE_GRANT, deviceBrowser, deviceCodes, pollToken, postDeviceForm } from '../helpers/device';
import { startDnsServer } from '../helpers/dns-server';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { eventCount, lastEvents } from '../helpers/events';
import { failure } from '../helpers/failures';
import { oidcConnection } from '../helpers/federation-admin';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import { losingAnswers, mentioning } from '../helpers/lost-answers';
import { authenticator, newTotpSecret } from '../helpers/mfa';
import { authorizationCode, createClient, grantTokens, newSecret, tokenRequest } from '../helpers/oauth';
import { verifiedEmail } from '../helpers/recovery';
import { makeSamlIdp } from '../helpers/saml-idp';
import { postSamlResponse, samlConnectionOf, startSamlSignIn } from '../helpers/saml-sign-in';
import { scimClient, scimTokenOf } from '../helpers/scim';

/**
 * A fault the outage test met when the database froze for longer than
 * the client's request timeout: a write applied by DynamoDB whose answer is lost is
 * retried by the SDK and fails its condition against its own result. That must read as
 * success, not as a second use of a one-time code (400 Invalid MFA code) or a clash
 * (500): each write tells its own result from another request's by a value random per
 * request. Single use still holds: the code does not work a second time.
 */
describe('writes retried after a lost answer', () => {
  let deps: TestDeps;
  let dynamo: ReturnType<typeof losingAnswers>;
  let app: App;

  beforeAll(async () => {
    dynamo = losingAnswers();
    const base = await testDeps();
    deps = { ...base, store: dynamoStores(dynamo, base) } as TestDeps;
    nearRealTime(deps);
    app = testApp(deps);
  });

  it('verifyMFA TOTP: the retried acceptance of the time step succeeds, and the code is then used', async () => {
    const { token } = await registerAdmin(app, uniqueTenant('lost'));
    const secret = newTotpSecret();
    expect((await app.request('enableMFA', { token, body: { method: 'TOTP', secret } })).status).toBe(200);
    const code = authenticator(deps, secret)();
    // The first method: its activation and the end of the other sessions are one transaction.
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'lastTimeStep'));
    const lostBefore = dynamo.lost();
    expect(await app.request('verifyMFA', { token, body: { method: 'TOTP', code } })).toMatchObject({
      status: 200,
      body: { success: true },
    });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('verifyMFA', { token, body: { method: 'TOTP', code } })).body).toEqual(failure('Invalid MFA code'));
  });

  it('verifyMFA SMS: the retried consumption of the code succeeds, and the code is then used', async () => {
    const { token, user } = await registerAdmin(app, uniqueTenant('lost'));
    expect((await app.request('enableMFA', { token, body: { method: 'SMS', secret: '+15550007777' } })).status).toBe(200);
    const code = (await deps.outbox.latest(user.tenantId, user.id, 'SMS'))?.code;
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'REMOVE codeDigest, codeExpiresAt, codeSentAt'));
    const lostBefore = dynamo.lost();
    expect(await app.request('verifyMFA', { token, body: { method: 'SMS', code } })).toMatchObject({
      status: 200,
      body: { success: true },
    });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('verifyMFA', { token, body: { method: 'SMS', code } })).body).toEqual(failure('Invalid MFA code'));
  });

  it('verifyMFA, the first method: the retried revocation of the other sessions succeeds, once', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const other = await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } });
    const secret = newTotpSecret();
    expect((await app.request('enableMFA', { token, body: { method: 'TOTP', secret } })).status).toBe(200);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'sessionEpoch'));
    const lostBefore = dynamo.lost();
    const verified = await app.request('verifyMFA', { token, body: { method: 'TOTP', code: authenticator(deps, secret)() } });
    expect(verified).toMatchObject({ status: 200, body: { success: true } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('me', { token })).status).toBe(200);
    expect((await app.request('me', { token: other.body.data.token })).status).toBe(401);
    const user = await deps.store.users.findById(tenantId, String((await app.identityOf(token))?.userId));
    expect(user?.sessionEpoch).toBe(1);
  });

  it('reauthenticate: the retried update of the session succeeds', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    dynamo.loseNext(mentioning('UpdateItemCommand', 'SET authTime'));
    const lostBefore = dynamo.lost();
    const response = await app.request('reauthenticate', { token, body: { password: 'correct horse battery' } });
    expect(response).toMatchObject({ status: 200, body: { success: true, data: { token: expect.any(String) } } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
  });

  it('account page, confirmed with a passkey: the retried update of the session succeeds, once', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const passkeys = softwareAuthenticator();
    const creation = (await app.request('passkeyRegistrationOptions', { token, body: {} })).body.data.options;
    expect((await app.request('passkeyRegistration', { token, body: { credential: passkeys.create(creation).response } })).status).toBe(
      201,
    );
    const origin = new URL(deps.config.issuer).origin;
    const { jar, page } = await signedInJar(app, origin, 'account', { tenantId, username: 'admin', password: 'correct horse battery' });
    const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: 'admin' } })).body.data.options;
    const fields = { csrf: csrfOf(page), credential: JSON.stringify(passkeys.get(request)) };
    dynamo.loseNext(mentioning('UpdateItemCommand', 'SET authTime'));
    const lostBefore = dynamo.lost();
    const confirmed = await postAction(app, jar, 'account', { section: 'profile', action: 'confirm-passkey' }, fields, origin);
    expect(confirmed.status).toBe(303);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const proofs = await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 10, type: 'reauthenticated' });
    expect(proofs.events).toHaveLength(1);
  });

  it('password change: the retried transaction of hash and revocation succeeds, once', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const other = await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } });
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'passwordHash'));
    const lostBefore = dynamo.lost();
    const changed = await app.request('changePassword', {
      token,
      body: { currentPassword: 'correct horse battery', newPassword: 'a new passphrase' },
    });
    expect(changed).toMatchObject({ status: 200, body: { success: true, data: { message: 'Password changed' } } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('me', { token })).status).toBe(200);
    expect((await app.request('me', { token: other.body.data.token })).status).toBe(401);
    const user = await deps.store.users.findById(tenantId, String((await app.identityOf(token))?.userId));
    expect(user?.sessionEpoch).toBe(1);
  });

  it('login: the retried creation of the session succeeds', async () => {
    const tenantId = uniqueTenant('lost');
    await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#SESSION#'));
    const lostBefore = dynamo.lost();
    const login = await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } });
    expect(login).toMatchObject({ status: 200, body: { success: true } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('refreshToken', { body: { refreshToken: login.body.data.refreshToken } })).status).toBe(200);
  });

  it('refresh: the retried rotation finds its own write, not a reuse, and the session lives on', async () => {
    const { refreshToken } = await registerAdmin(app, uniqueTenant('lost'));
    dynamo.loseNext(mentioning('UpdateItemCommand', 'refreshGeneration'));
    const lostBefore = dynamo.lost();
    const refreshed = await app.request('refreshToken', { body: { refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect(deps.logText()).not.toContain('refresh_token_reuse_detected');
    expect((await app.request('refreshToken', { body: { refreshToken: refreshed.body.data.refreshToken } })).status).toBe(200);
  });

  it('OAuth: retried client registration, code issue, code redemption and refresh each succeed once', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'CLIENT#'));
    const lostBefore = dynamo.lost();
    const client = await createClient(app, token, tenantId);
    expect(dynamo.lost()).toBe(lostBefore + 1);

    dynamo.loseNext(mentioning('PutItemCommand', 'codeChallenge'));
    const { code, verifier } = await authorizationCode(app, token, client);
    expect(dynamo.lost()).toBe(lostBefore + 2);
    const redeem = () =>
      app.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
      );
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'usedAt'));
    const redeemed = await redeem();
    expect(redeemed.status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 3);
    expect((await redeem()).status).toBe(400);

    // The second redemption revoked the grant; a fresh one for the refresh.
    const fresh = await authorizationCode(app, token, client);
    const tokens = await app.request(
      'oauth2Token',
      tokenRequest(client, {
        grant_type: 'authorization_code',
        code: fresh.code,
        redirect_uri: client.redirectUri,
        code_verifier: fresh.verifier,
      }),
    );
    dynamo.loseNext(mentioning('UpdateItemCommand', 'refreshGeneration'));
    const refresh = (refreshToken: string) =>
      app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: refreshToken }));
    const refreshed = await refresh(tokens.body.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 4);
    expect((await refresh(refreshed.body.refresh_token)).status).toBe(200);
  });

  it('device grant: the codes, a poll, the decision and the redemption each take effect once (docs/api.md 16.4)', async () => {
    const tenantId = uniqueTenant('lost-device');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const device = await createClient(app, admin.token, tenantId, {
      grantTypes: `${DEVICE_GRANT} refresh_token`,
      scope: 'orders:read',
    });
    const origin = new URL(deps.config.issuer).origin;
    const lostBefore = dynamo.lost();
    // The authorization and its user code: one transaction, retried after its answer was lost.
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'USERCODE#'));
    const codes = await deviceCodes(app, device);
    // A poll's write: its retry meets its own result, which is no poll too early.
    dynamo.loseNext(mentioning('UpdateItemCommand', 'nextPollAt = #interval + :now'));
    expect(await pollToken(app, device, codes.device_code)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    const browser = await deviceBrowser(app, origin, tenantId, 'admin', 'correct horse battery');
    // The decision: one conditional write, which reads as done when its retry meets its own result.
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#status = :decision'));
    const decided = await postDeviceForm(app, browser.jar, origin, { csrf: browser.csrf, user_code: codes.user_code, decision: 'allow' });
    expect(decided).toMatchObject({ status: 303, headers: expect.objectContaining({ Location: `${origin}/device?done=allowed` }) });
    // The redemption with its grant: no second use.
    deps.clock.set(deps.clock.now() + 5_000);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'redeemedAt = :now'));
    const tokens = await pollToken(app, device, codes.device_code);
    expect(tokens).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: 'orders:read' } });
    expect(dynamo.lost()).toBe(lostBefore + 4);
    // Redeemed once: the code gives nothing more.
    deps.clock.set(deps.clock.now() + 5_000);
    expect(await pollToken(app, device, codes.device_code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    nearRealTime(deps);
  });

  it('OAuth: a redemption cancelled by a concurrent one (TransactionConflict) is refused as a second use, not a 500', async () => {
    const tenantId = uniqueTenant('conflict');
    const { token } = await registerAdmin(app, tenantId);
    const client = await createClient(app, token, tenantId);
    const { code, verifier } = await authorizationCode(app, token, client);
    let conflicts = 0;
    dynamo.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && conflicts === 0) {
          conflicts++;
          throw Object.assign(new Error('Transaction cancelled'), {
            name: 'TransactionCanceledException',
            $metadata: {},
            CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'transactionConflictOnce' },
    );
    const redeemed = await app.request(
      'oauth2Token',
      tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
    );
    dynamo.doc.middlewareStack.remove('transactionConflictOnce');
    expect(conflicts).toBe(1);
    expect(redeemed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(deps.logText()).toContain('"event":"authorization_code_reuse_detected"');
  });

  it('user activity (docs/decisions/027-bounded-admin-lists.md): after a retried session creation and enrolment the user list answers as reading the user', async () => {
    const tenantId = uniqueTenant('lost');
    const { token, user } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'lastSessionAt'));
    const login = await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } });
    expect(login.status).toBe(200);
    const secret = newTotpSecret();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'mfaEnrolled'));
    expect((await app.request('enableMFA', { token, body: { method: 'TOTP', secret } })).status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 2);
    expect((await app.request('verifyMFA', { token, body: { method: 'TOTP', code: authenticator(deps, secret)() } })).status).toBe(200);
    const alone = await app.request('adminReadUser', { token, pathParameters: { userId: user.id } });
    expect(alone.body.data.user).toMatchObject({ mfaMethods: ['TOTP'], lastLoginAt: expect.any(String) });
    expect((await app.request('adminListUsers', { token })).body.data.users).toEqual([alone.body.data.user]);
  });

  it('MFA: a retried enrolment and a retried code issue succeed, and the code sent is the one that works', async () => {
    const tenantId = uniqueTenant('lost');
    const { token, user } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '"pending"'));
    expect((await app.request('enableMFA', { token, body: { method: 'SMS', secret: '+15550008888' } })).status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const enrolment = (await deps.outbox.latest(tenantId, user.id, 'SMS'))?.code;
    expect((await app.request('verifyMFA', { token, body: { method: 'SMS', code: enrolment } })).status).toBe(200);

    dynamo.loseNext(mentioning('UpdateItemCommand', 'codeDigest = :digest'));
    const login = (extra: Record<string, unknown> = {}) =>
      app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId, ...extra } });
    expect((await login()).body).toEqual(failure('MFA code required'));
    expect(dynamo.lost()).toBe(lostBefore + 2);
    const sent = await deps.outbox.latest(tenantId, user.id, 'SMS');
    expect(sent?.code).not.toBe(enrolment);
    expect((await login({ mfaCode: sent?.code })).status).toBe(200);
  });

  describe('MFA lifecycle (docs/api.md 8.6)', () => {
    /** A user with active TOTP and a session that passed it. */
    const userWithTotp = async () => {
      const tenantId = uniqueTenant('lost');
      const { token: first } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
      const secret = newTotpSecret();
      await app.request('enableMFA', { token: first, body: { method: 'TOTP', secret } });
      await app.request('verifyMFA', { token: first, body: { method: 'TOTP', code: authenticator(deps, secret)() } });
      const login = (extra: Record<string, unknown>) =>
        app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId, ...extra } });
      const token = (await login({ mfaCode: authenticator(deps, secret)(1) })).body.data.token as string;
      return { token, login };
    };

    it('login with a recovery code: the retried use succeeds, and the code is then used', async () => {
      const { token, login } = await userWithTotp();
      const codes = (await app.request('generateRecoveryCodes', { token })).body.data.codes as string[];
      const lostBefore = dynamo.lost();
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'DELETE digests'));
      expect(await login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).toMatchObject({ status: 200, body: { success: true } });
      expect(dynamo.lost()).toBe(lostBefore + 1);
      expect((await login({ mfaMethod: 'RECOVERY', mfaCode: codes[0] })).body).toEqual(failure('Invalid MFA code'));
      expect((await login({ mfaMethod: 'RECOVERY', mfaCode: codes[1] })).status).toBe(200);
    });

    it('recovery codes: the retried write stores the answered set once; a repeated request gets a fresh set in its place', async () => {
      const { token, login } = await userWithTotp();
      const lostBefore = dynamo.lost();
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'generatedAt'));
      const first = await app.request('generateRecoveryCodes', { token });
      expect(first).toMatchObject({ status: 200, body: { success: true, data: { codes: expect.any(Array) } } });
      expect(dynamo.lost()).toBe(lostBefore + 1);
      expect((await login({ mfaMethod: 'RECOVERY', mfaCode: first.body.data.codes[0] })).status).toBe(200);
      // The client repeats the request (its answer was lost on the way): a new set, and the first is void.
      const repeated = await app.request('generateRecoveryCodes', { token });
      expect(repeated.status).toBe(200);
      expect((await login({ mfaMethod: 'RECOVERY', mfaCode: first.body.data.codes[1] })).body).toEqual(failure('Invalid MFA code'));
      expect((await login({ mfaMethod: 'RECOVERY', mfaCode: repeated.body.data.codes[1] })).status).toBe(200);
    });

    it('disableMFA: the retried transaction succeeds once, with the recovery codes gone', async () => {
      const { token, login } = await userWithTotp();
      await app.request('generateRecoveryCodes', { token });
      const lostBefore = dynamo.lost();
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', '"Delete"'));
      expect((await app.request('disableMFA', { token, body: { method: 'TOTP' } })).body).toEqual({
        success: true,
        data: { message: 'MFA disabled' },
      });
      expect(dynamo.lost()).toBe(lostBefore + 1);
      expect((await app.request('listMFA', { token })).body.data.mfa).toEqual({ methods: [], recoveryCodesRemaining: 0 });
      expect((await login({})).status).toBe(200);
    });
  });

  it('tenant settings: a retried rename answers 200 with the name, recorded once', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'displayName'));
    const renamed = await app.request('adminUpdateTenant', { token: admin.token, body: { displayName: 'Acme Shops' } });
    expect(renamed).toMatchObject({ status: 200, body: { success: true, data: { tenant: { id: tenantId, displayName: 'Acme Shops' } } } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const read = await app.request('adminReadTenant', { token: admin.token });
    expect(read.body.data.tenant).toMatchObject({ id: tenantId, displayName: 'Acme Shops', defaultShopId: 'default' });
    const trail = await app.request('adminListAudit', { token: admin.token, query: { type: 'tenant_updated' } });
    expect(trail.body.data.events).toHaveLength(1);
  });

  it('console: a retried client registration shows the secret it stored, once (docs/api.md 15.3.6)', async () => {
    const tenantId = uniqueTenant('lost');
    await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const origin = new URL(deps.config.issuer).origin;
    const { jar, page } = await signedInJar(app, origin, 'admin', { tenantId, username: 'admin', password: 'correct horse battery' });
    const fields = {
      csrf: csrfOf(page),
      client_id: 'console-lost',
      redirect_uri: 'https://a.example/cb',
      'grant_types:client_credentials': 'on',
      scope: 'api',
    };
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'CLIENT#'));
    const created = await postAction(app, jar, 'admin', { section: 'clients', action: 'create' }, fields, origin);
    expect(created.status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const clientSecret = /<p class="secret" id="client-secret">([^<]+)<\/p>/.exec(String(created.body))?.[1] ?? '';
    const client = { clientId: 'console-lost', clientSecret, redirectUri: 'https://a.example/cb', tenantId };
    expect((await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' }))).status).toBe(200);
    expect((await postAction(app, jar, 'admin', { section: 'clients', action: 'create' }, fields, origin)).status).toBe(409);
  });

  it('shops: a retried creation answers 201 with its shop, once; a retried bootstrap creates the tenant with its shop', async () => {
    const tenantId = uniqueTenant('lost');
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#SHOPS'));
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    expect(dynamo.lost()).toBe(lostBefore + 1);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'SHOP#kiosk'));
    const created = await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'kiosk', name: 'Kiosk' } });
    expect(created).toMatchObject({
      status: 201,
      body: { success: true, data: { shop: { shopId: 'kiosk', name: 'Kiosk', createdAt: expect.any(String) } } },
    });
    expect(dynamo.lost()).toBe(lostBefore + 2);
    const listed = await app.request('adminListShops', { token: admin.token });
    expect(listed.body.data.shops.map((shop: { shopId: string }) => shop.shopId)).toEqual(['default', 'kiosk']);
    expect(await app.request('adminCreateShop', { token: admin.token, body: { shopId: 'kiosk', name: 'Kiosk' } })).toMatchObject({
      status: 409,
      body: failure('Shop already exists'),
    });
  });

  it('import: a retried user creation counts its row as imported, once; the retried rehash at the first sign-in succeeds', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const passwordHash = bcrypt.hashSync('their old passphrase', 4);
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'moved-in'));
    const users = [{ username: 'moved-in', role: 'ANALYST', passwordHash }];
    const imported = await app.request('adminImportUsers', { token: admin.token, body: { users } });
    expect(imported.body).toEqual({ success: true, data: { imported: 1, failed: [] } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const again = await app.request('adminImportUsers', { token: admin.token, body: { users } });
    expect(again.body).toEqual({ success: true, data: { imported: 0, failed: [{ index: 0, error: 'User already exists' }] } });
    dynamo.loseNext(mentioning('UpdateItemCommand', ':expected'));
    const login = () => app.request('login', { body: { username: 'moved-in', password: 'their old passphrase', tenantId } });
    expect((await login()).status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 2);
    expect((await deps.store.users.findByUsername(tenantId, 'moved-in'))?.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await login()).status).toBe(200);
  });

  it('audit: a retried event write stores the event once', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    // After the registration's event, in time.
    deps.clock.advance(1);
    dynamo.loseNext(mentioning('PutItemCommand', '#AUDIT#'));
    expect((await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } })).status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const events = (await app.request('adminListAudit', { token: admin.token })).body.data.events;
    expect(events.map((event: { type: string }) => event.type)).toEqual(['login_succeeded', 'user_registered']);
    expect(deps.logText()).not.toContain('audit_event_lost');
  });

  it('tenant administration: a retried disable and a retried deletion succeed once', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const member = await app.request('register', {
      token: admin.token,
      body: { username: 'leaver', password: 'a leaver passphrase', role: 'OPERATOR', tenantId },
    });
    const userId = member.body.data.user.id as string;
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '"disabled"'));
    const disabled = await app.request('adminUpdateUser', { token: admin.token, pathParameters: { userId }, body: { status: 'disabled' } });
    expect(disabled).toMatchObject({ status: 200, body: { success: true, data: { user: { id: userId, status: 'disabled' } } } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('me', { token: member.body.data.token })).status).toBe(401);
    // The retried write is the same transaction: its event exists once (docs/events.md).
    const lastType = async () => (await lastEvents(deps, tenantId, userId)).map((event) => event.type);
    expect([await eventCount(deps, tenantId, userId), await lastType()]).toEqual([2, ['identity.user.disabled']]);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '"Delete"'));
    expect((await app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId } })).body).toEqual({
      success: true,
      data: { message: 'User deleted' },
    });
    expect(dynamo.lost()).toBe(lostBefore + 2);
    expect(await deps.store.users.findById(tenantId, userId)).toBeUndefined();
    expect((await app.request('adminDeleteUser', { token: admin.token, pathParameters: { userId } })).status).toBe(404);
    expect([await eventCount(deps, tenantId, userId), await lastType()]).toEqual([3, ['identity.user.deleted']]);
  });

  it('tenant console: a retried disable, invitation and settings change each take effect once, answered 303 (docs/api.md 15.3)', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const member = await registerStaff(app, admin.token, {
      username: 'leaver',
      password: 'a leaver passphrase',
      role: 'OPERATOR',
      tenantId,
    });
    const browser = await consoleBrowser(app, new URL(deps.config.issuer).origin, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '"disabled"'));
    const disabled = await browser.post('staff', 'status', { userId: member.user.id, status: 'disabled' });
    expect(disabled.status).toBe(303);
    expect((await app.request('me', { token: member.token })).status).toBe(401);
    const email = `lost@${tenantId}.example`;
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#INVITEE#'));
    expect((await browser.post('invitations', 'invite', { email, role: 'ANALYST', shopId: deps.config.defaultShopId })).status).toBe(303);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'displayName'));
    expect((await browser.post('settings', 'save', { displayName: 'Acme Shops', logoUrl: '', accentColor: '' })).status).toBe(303);
    expect(dynamo.lost()).toBe(lostBefore + 3);
    expect(await deps.outbox.emails(email)).toHaveLength(1);
    for (const type of ['admin_user_changed', 'invitation_created', 'tenant_updated']) {
      const trail = await app.request('adminListAudit', { token: admin.token, query: { type } });
      expect(trail.body.data.events, type).toHaveLength(1);
    }
  });

  it('SCIM: a retried token, user creation, PATCH and group change each succeed once (docs/api.md 13.3)', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'tokenHash'));
    const { id: tokenId, token } = await scimTokenOf(app, admin.token);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const scim = scimClient(app, token);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'EXTERNALID'));
    const created = await scim('scimCreateUser', { body: { userName: 'lost-scim', externalId: 'lost-ext' } });
    expect(created).toMatchObject({ status: 201, body: { userName: 'lost-scim', externalId: 'lost-ext' } });
    expect(dynamo.lost()).toBe(lostBefore + 2);
    const userId = created.body.id as string;

    const patch = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] };
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'newer@example.com'));
    const patched = await scim('scimPatchUser', {
      pathParameters: { userId },
      body: { ...patch, Operations: [{ op: 'add', path: 'emails', value: [{ value: 'newer@example.com' }] }] },
    });
    expect(patched).toMatchObject({ status: 200, body: { emails: [{ value: 'newer@example.com' }], meta: { version: 'W/"1"' } } });
    expect(dynamo.lost()).toBe(lostBefore + 3);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'scimGroups'));
    const joined = await scim('scimPatchGroup', {
      pathParameters: { groupId: 'FINANCE' },
      body: { ...patch, Operations: [{ op: 'add', path: 'members', value: [{ value: userId }] }] },
    });
    expect(joined.status).toBe(204);
    expect(dynamo.lost()).toBe(lostBefore + 4);
    expect(await deps.store.users.findById(tenantId, userId)).toMatchObject({ role: 'FINANCE', scimGroups: ['FINANCE'], version: 2 });
    expect((await app.request('adminListScimTokens', { token: admin.token })).body.data.scimTokens).toEqual([
      expect.objectContaining({ id: tokenId }),
    ]);
  });

  it('webhooks: a retried creation, change and deletion each apply once, and the tenant’s count stays true (docs/api.md 17.2)', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const lostBefore = dynamo.lost();
    const body = { url: 'http://127.0.0.1:9/lost', events: ['identity.user.created'] };
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'sealedSecret'));
    const created = await app.request('adminCreateWebhook', { token: admin.token, body });
    expect(created.status).toBe(201);
    const pathParameters = { webhookId: created.body.data.webhook.id as string };
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'identity.user.deleted'));
    const changed = await app.request('adminUpdateWebhook', {
      token: admin.token,
      pathParameters,
      body: { events: ['identity.user.deleted'] },
    });
    expect(changed).toMatchObject({ status: 200, body: { data: { webhook: { events: ['identity.user.deleted'] } } } });
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', ':minusOne'));
    expect((await app.request('adminDeleteWebhook', { token: admin.token, pathParameters })).status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 3);
    expect((await app.request('adminListWebhooks', { token: admin.token })).body.data.webhooks).toEqual([]);
    // The count went up once and down once: ten webhooks fit again, not nine or eleven.
    const answers = [];
    for (let index = 0; index < 11; index++) answers.push((await app.request('adminCreateWebhook', { token: admin.token, body })).status);
    expect(answers).toEqual([...Array(10).fill(201), 409]);
  });

  it('OAuth clients: a retried rotation applies once and answers the same; a retried change and deletion succeed', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const client = await createClient(app, admin.token, tenantId, { grantTypes: 'client_credentials' });
    const pathParameters = { clientId: client.clientId };
    const works = async (secret: string) =>
      (await app.request('oauth2Token', tokenRequest({ ...client, clientSecret: secret }, { grant_type: 'client_credentials' }))).status;
    const lostBefore = dynamo.lost();

    const next = newSecret();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'previousSecretHash'));
    const rotation = { token: admin.token, pathParameters, body: { client_secret: next, previous_secret_expires_in: 3600 } };
    const rotated = await app.request('rotateOAuth2ClientSecret', rotation);
    expect(rotated).toMatchObject({ status: 200, body: { success: true } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect(rotated.body.data.client.previous_secret_expires_at).toBe(new Date(deps.clock.now() + 3_600_000).toISOString());
    // Applied once: the secret before it is the previous one (not the new secret twice), and both work.
    expect([await works(client.clientSecret), await works(next)]).toEqual([200, 200]);
    expect(await app.request('readOAuth2Client', { token: admin.token, pathParameters })).toEqual(rotated);
    // The request itself tried again (its answer lost on the way to the ADMIN): the same answer, nothing changes.
    expect(await app.request('rotateOAuth2ClientSecret', rotation)).toEqual(rotated);
    expect([await works(client.clientSecret), await works(next)]).toEqual([200, 200]);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'Renamed'));
    const renamed = await app.request('updateOAuth2Client', { token: admin.token, pathParameters, body: { client_name: 'Renamed' } });
    expect(renamed).toMatchObject({ status: 200, body: { data: { client: { client_name: 'Renamed' } } } });
    expect(dynamo.lost()).toBe(lostBefore + 2);

    // docs/api.md 17.3: the back-channel logout URI set, then removed (a REMOVE), each answer lost and the change retried.
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'backchannelLogoutUri'));
    const withUri = await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters,
      body: { backchannel_logout_uri: 'https://app.example.com/bcl' },
    });
    expect(withUri).toMatchObject({ status: 200, body: { data: { client: { backchannel_logout_uri: 'https://app.example.com/bcl' } } } });
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'backchannelLogoutUri'));
    const withoutUri = await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters,
      body: { backchannel_logout_uri: '' },
    });
    expect(withoutUri.status).toBe(200);
    expect(withoutUri.body.data.client).not.toHaveProperty('backchannel_logout_uri');
    expect(dynamo.lost()).toBe(lostBefore + 4);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'deletedAt'));
    expect((await app.request('deleteOAuth2Client', { token: admin.token, pathParameters })).body).toEqual({
      success: true,
      data: { message: 'OAuth2 client deleted' },
    });
    expect(dynamo.lost()).toBe(lostBefore + 5);
    expect(await works(next)).toBe(401);
    expect((await app.request('deleteOAuth2Client', { token: admin.token, pathParameters })).status).toBe(404);
    // Created, rotated (once, though asked twice), renamed, its logout URI set and removed, deleted: one event each.
    expect(await eventCount(deps, tenantId, client.clientId)).toBe(6);
    expect((await lastEvents(deps, tenantId, client.clientId)).map((event) => event.type)).toEqual(['identity.client.deleted']);
  });

  it('public clients (docs/api.md 16.1, 16.2): a retried registration with its origin index entries applies once; a retried change of origins too', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const clientId = `spa-${tenantId}`;
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'clientIds'));
    const created = await app.request('createOAuth2Client', {
      token: admin.token,
      body: {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        redirect_uri: 'https://spa.example.com/cb',
        grant_types: 'authorization_code',
        scope: 'orders:read',
        tenant_id: tenantId,
        allowed_origins: 'https://spa.lost.example',
      },
    });
    expect(created.status).toBe(201);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await deps.store.oauthClients.find(clientId))?.allowedOrigins).toEqual(['https://spa.lost.example']);
    expect(await deps.store.oauthClients.listsOrigin('https://spa.lost.example')).toBe(true);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'clientIds'));
    const changed = await app.request('updateOAuth2Client', {
      token: admin.token,
      pathParameters: { clientId },
      body: { allowed_origins: 'https://other.lost.example' },
    });
    expect(changed).toMatchObject({ status: 200, body: { data: { client: { allowed_origins: ['https://other.lost.example'] } } } });
    expect(dynamo.lost()).toBe(lostBefore + 2);
    expect(await deps.store.oauthClients.listsOrigin('https://spa.lost.example')).toBe(false);
    expect(await deps.store.oauthClients.listsOrigin('https://other.lost.example')).toBe(true);
  });

  it('sessions: a retried revocation of one session, and of the other sessions, each answer as the first and apply once', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const login = async () =>
      (await app.request('login', { body: { username: 'admin', password: 'correct horse battery', tenantId } })).body.data as {
        token: string;
      };
    const [phone, tablet] = [await login(), await login()];
    const phoneSession = String(decodeJwt(phone.token).sid);
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'revoked_by_user'));
    const revoked = await app.request('revokeSession', { token, pathParameters: { sessionId: phoneSession } });
    expect(revoked.body).toEqual({ success: true, data: { message: 'Session revoked' } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('me', { token: phone.token })).status).toBe(401);
    // The client's own retry of the DELETE gets the same answer.
    expect((await app.request('revokeSession', { token, pathParameters: { sessionId: phoneSession } })).body).toEqual(revoked.body);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'signInEpoch'));
    const others = await app.request('revokeOtherSessions', { token });
    expect(others.body).toEqual({ success: true, data: { message: 'Sessions revoked', revoked: 1 } });
    expect(dynamo.lost()).toBe(lostBefore + 2);
    expect((await app.request('me', { token: tablet.token })).status).toBe(401);
    expect((await app.request('me', { token })).status).toBe(200);
    // Applied once: the sign-in generation moved by one.
    const user = await deps.store.users.findById(tenantId, String(decodeJwt(token).sub));
    expect(user?.signInEpoch).toBe(1);
  });

  it('grants: a retried revocation answers as the first, and the grant is revoked', async () => {
    const tenantId = uniqueTenant('lost');
    const { token } = await registerAdmin(app, tenantId);
    const client = await createClient(app, token, tenantId);
    const tokens = await grantTokens(app, token, client);
    const grantId = tokens.refresh_token.split('.')[0] ?? '';
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'revoked_by_user'));
    const revoked = await app.request('revokeGrant', { token, pathParameters: { grantId } });
    expect(revoked.body).toEqual({ success: true, data: { message: 'Grant revoked' } });
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await app.request('revokeGrant', { token, pathParameters: { grantId } })).body).toEqual(revoked.body);
    const refresh = await app.request(
      'oauth2Token',
      tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    );
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  describe('forgotten password and email (docs/api.md 8.7, 8.8)', () => {
    const PASSWORD = 'correct horse battery';
    /** An ADMIN with a verified email address, through the lossy table. */
    async function withEmail() {
      const tenantId = uniqueTenant('lost');
      const { token, user } = await registerAdmin(app, tenantId, 'admin', PASSWORD);
      await verifiedEmail(app, deps, token, tenantId, user.id, 'admin@example.com');
      return { tenantId, token, userId: user.id };
    }

    it('email set and verify: each retried transaction succeeds once, and the code is then used', async () => {
      const tenantId = uniqueTenant('lost');
      const { token, user } = await registerAdmin(app, tenantId, 'admin', PASSWORD);
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'emailVerified = :false'));
      const lostBefore = dynamo.lost();
      expect((await app.request('emailSet', { token, body: { email: 'a@example.com' } })).status).toBe(200);
      expect(dynamo.lost()).toBe(lostBefore + 1);
      const code = (await deps.outbox.latest(tenantId, user.id, 'EMAIL', 'verify-email'))?.code;
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'emailVerified = :true'));
      expect(await app.request('emailVerify', { token, body: { code } })).toMatchObject({ status: 200, body: { success: true } });
      expect(dynamo.lost()).toBe(lostBefore + 2);
      expect((await deps.store.users.findById(tenantId, user.id))?.emailVerified).toBe(true);
      expect((await app.request('emailVerify', { token, body: { code } })).body).toEqual(failure('Invalid verification code'));
    });

    it('forgot: the retried write of the reset code finds its own write, and the code is sent', async () => {
      const { tenantId, userId } = await withEmail();
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'REMOVE usedAt'));
      const lostBefore = dynamo.lost();
      expect((await app.request('passwordForgot', { body: { username: 'admin', tenantId } })).status).toBe(202);
      expect(dynamo.lost()).toBe(lostBefore + 1);
      expect(await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset')).toMatchObject({ purpose: 'reset' });
    });

    it('reset: the retried transaction of code, hash and revocation succeeds once, and the code is then used', async () => {
      const { tenantId, userId, token } = await withEmail();
      await app.request('passwordForgot', { body: { username: 'admin', tenantId } });
      const code = (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset'))?.code;
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'usedAt = :now'));
      const lostBefore = dynamo.lost();
      const body = { username: 'admin', tenantId, code, newPassword: 'a new passphrase' };
      expect(await app.request('passwordReset', { body })).toMatchObject({ status: 200, body: { data: { message: 'Password reset' } } });
      expect(dynamo.lost()).toBe(lostBefore + 1);
      expect((await app.request('me', { token })).status).toBe(401);
      expect((await deps.store.users.findById(tenantId, userId))?.sessionEpoch).toBe(1);
      expect((await app.request('passwordReset', { body })).body).toEqual(failure('Invalid reset code'));
      expect((await app.request('login', { body: { username: 'admin', password: 'a new passphrase', tenantId } })).status).toBe(200);
    });

    it('reset with removePasskeys: the retried transaction removes the passkeys with the reset, once, and tells so', async () => {
      const { tenantId, userId, token } = await withEmail();
      const passkeys = softwareAuthenticator();
      const creation = (await app.request('passkeyRegistrationOptions', { token, body: {} })).body.data.options;
      expect((await app.request('passkeyRegistration', { token, body: { credential: passkeys.create(creation).response } })).status).toBe(
        201,
      );
      await app.request('passwordForgot', { body: { username: 'admin', tenantId } });
      const code = (await deps.outbox.latest(tenantId, userId, 'EMAIL', 'reset'))?.code;
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'removedAt = if_not_exists'));
      const lostBefore = dynamo.lost();
      const body = { username: 'admin', tenantId, code, newPassword: 'a new passphrase', removePasskeys: true };
      expect(await app.request('passwordReset', { body })).toMatchObject({ status: 200, body: { data: { message: 'Password reset' } } });
      expect(dynamo.lost()).toBe(lostBefore + 1);
      expect(await deps.store.passkeys.listByUser(tenantId, userId)).toEqual([]);
      const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId } })).body.data.options;
      const assertion = passkeys.get(request);
      expect((await app.request('passkeyAuthentication', { body: { tenantId, credential: assertion } })).body).toEqual(
        failure('Invalid passkey'),
      );
      const [notice] = await deps.outbox.notifications(tenantId, userId);
      expect(notice?.notification.text).toContain('Your passkeys were removed with the reset');
      expect((await app.request('passwordReset', { body })).body).toEqual(failure('Invalid reset code'));
    });
  });

  it('browser sign-in: a lost answer to the interaction, the browser session or the consent step reads as done, once', async () => {
    const { token } = await registerAdmin(app, uniqueTenant('lost'));
    const tenantId = String(decodeJwt(token).tenantId);
    const client = await createClient(app, token, tenantId);
    const origin = new URL(deps.config.issuer).origin;
    const jar = new CookieJar();
    const lostAtStart = dynamo.lost();
    dynamo.loseNext(mentioning('PutItemCommand', 'csrfHash'));
    const begun = await browserAuthorize(app, jar, client);
    expect(begun.response.status).toBe(200);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'browserHash'));
    const consent = await postForm(
      app,
      jar,
      'hostedSignIn',
      { csrf: begun.csrf, username: 'admin', password: 'correct horse battery' },
      origin,
    );
    expect(consent.status).toBe(200);
    expect(dynamo.lost()).toBe(lostAtStart + 2);
    dynamo.loseNext(mentioning('UpdateItemCommand', '#stage = :to'));
    const lostBefore = dynamo.lost();
    const allowed = await postForm(app, jar, 'hostedConsent', { csrf: begun.csrf, decision: 'allow' }, origin);
    expect(allowed.status).toBe(303);
    expect(new URL(allowed.headers.Location ?? '').searchParams.has('code')).toBe(true);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    // Single use still holds.
    expect((await postForm(app, jar, 'hostedConsent', { csrf: begun.csrf, decision: 'allow' }, origin)).status).toBe(400);
  });

  it('SAML: a lost answer to taking the pending sign-in or to recording the assertion ID reads as done, once (docs/api.md 14.5)', async () => {
    const { token } = await registerAdmin(app, uniqueTenant('lost'));
    const tenantId = String(decodeJwt(token).tenantId);
    const [client, idp] = await Promise.all([createClient(app, token, tenantId), makeSamlIdp()]);
    const saml = await samlConnectionOf(deps, tenantId, `${tenantId}.example`, {
      idpEntityId: idp.entityId,
      ssoUrl: 'https://idp.example.test/sso',
      signingCertificates: [idp.cert],
    });
    for (const [what, lose] of [
      ['pending', mentioning('UpdateItemCommand', 'FEDREQ#')],
      ['assertion', mentioning('PutItemCommand', 'SAMLASSERTION#')],
    ] as const) {
      const email = `lost-${what}@${tenantId}.example`;
      const jar = new CookieJar();
      const start = await startSamlSignIn(app, jar, client, email);
      const form = {
        SAMLResponse: idp.encodedResponse({
          ...start,
          inResponseTo: start.requestId,
          nameId: what,
          attributes: { email: [email] },
          now: deps.clock.now(),
        }),
        RelayState: start.relayState,
      };
      const lostBefore = dynamo.lost();
      dynamo.loseNext(lose);
      expect((await postSamlResponse(app, jar, saml.id, form)).status, what).toBe(200);
      expect(dynamo.lost(), what).toBe(lostBefore + 1);
      expect(await deps.store.users.findByEmail(tenantId, email), what).toHaveLength(1);
      // Single use still holds.
      expect((await postSamlResponse(app, jar, saml.id, form)).status, what).toBe(400);
    }
  });

  it('DPoP: a lost answer to recording a proof’s jti reads as accepted, and the proof is then a replay (docs/api.md 16.3)', async () => {
    const { token } = await registerAdmin(app, uniqueTenant('lost'));
    const tenantId = String(decodeJwt(token).tenantId);
    const client = await createClient(app, token, tenantId, { scope: 'openid' });
    const key = await dpopKey();
    const iat = Math.floor(deps.clock.now() / 1000);
    const tokenProof = await dpopProof(key, { htu: `${deps.config.issuer}/oauth2/token`, iat });
    const { code, verifier } = await authorizationCode(app, token, client, { scope: 'openid' });
    const form = tokenRequest(client, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    });
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('PutItemCommand', '#DPOP#'));
    const redeemed = await app.request('oauth2Token', { ...form, headers: { ...form.headers, dpop: tokenProof } });
    expect([redeemed.status, redeemed.body.token_type]).toEqual([200, 'DPoP']);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    const again = tokenRequest(client, { grant_type: 'refresh_token', refresh_token: redeemed.body.refresh_token });
    expect((await app.request('oauth2Token', { ...again, headers: { ...again.headers, dpop: tokenProof } })).body.error).toBe(
      'invalid_dpop_proof',
    );

    const accessToken = redeemed.body.access_token;
    const userinfoProof = await dpopProof(key, { htm: 'GET', htu: `${deps.config.issuer}/oauth2/userinfo`, iat, accessToken });
    const userinfo = () =>
      app.request('userInfo', { method: 'GET', headers: { authorization: `DPoP ${accessToken}`, dpop: userinfoProof } });
    dynamo.loseNext(mentioning('PutItemCommand', '#DPOP#'));
    expect((await userinfo()).status).toBe(200);
    expect(dynamo.lost()).toBe(lostBefore + 2);
    expect((await userinfo()).body.code).toBe('INVALID_DPOP_PROOF');
  });

  it('RP-initiated logout: a lost answer to the session’s revocation reads as done, and the sign-out is audited once', async () => {
    const admin = await registerAdmin(app, uniqueTenant('lost'));
    const tenantId = String(decodeJwt(admin.token).tenantId);
    const client = await createClient(app, admin.token, tenantId);
    const origin = new URL(deps.config.issuer).origin;
    const jar = new CookieJar();
    const begun = await browserAuthorize(app, jar, client);
    await postForm(app, jar, 'hostedSignIn', { csrf: begun.csrf, username: 'admin', password: 'correct horse battery' }, origin);
    const sessionId = jar.cookies.get('__Host-session')?.split('.')[1] ?? '';
    const asked = await app.request('oauth2Logout', { method: 'GET', headers: jar.header(), query: {} });
    const csrf = csrfOf(asked);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'revokedReason = if_not_exists'));
    const lostBefore = dynamo.lost();
    const signedOut = await app.request('oauth2Logout', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...jar.header() },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(signedOut.status).toBe(200);
    expect(String(signedOut.body)).toContain('<h1>Signed out</h1>');
    expect(dynamo.lost()).toBe(lostBefore + 1);
    expect((await deps.store.sessions.find(tenantId, sessionId))?.revokedReason).toBe('signed_out');
    const trail = await app.request('adminListAudit', { token: admin.token, query: { type: 'signed_out' } });
    expect(trail.body.data.events).toHaveLength(1);
  });

  it('passkeys: a lost answer to the registration, the challenge, the counter or the removal reads as done, once (docs/api.md 12)', async () => {
    const { token, user } = await registerAdmin(app, uniqueTenant('lost'));
    const { tenantId } = user;
    const passkeys = softwareAuthenticator();
    const creation = (await app.request('passkeyRegistrationOptions', { token, body: {} })).body.data.options;
    const credential = passkeys.create(creation).response;
    const lostBefore = dynamo.lost();
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'publicKey'));
    const registered = await app.request('passkeyRegistration', { token, body: { credential } });
    expect(registered.status).toBe(201);
    expect(dynamo.lost()).toBe(lostBefore + 1);
    // Single use still holds: the challenge is used.
    expect((await app.request('passkeyRegistration', { token, body: { credential } })).body).toEqual(
      failure('Invalid passkey registration'),
    );

    const signIn = async (lose: string) => {
      const request = (await app.request('passkeyAuthenticationOptions', { body: { tenantId } })).body.data.options;
      const assertion = passkeys.get(request);
      dynamo.loseNext(mentioning('UpdateItemCommand', lose));
      expect((await app.request('passkeyAuthentication', { body: { tenantId, credential: assertion } })).status).toBe(200);
      expect((await app.request('passkeyAuthentication', { body: { tenantId, credential: assertion } })).body).toEqual(
        failure('Invalid passkey'),
      );
    };
    await signIn('usedAt = :now');
    await signIn('lastUsedAt = :now');
    expect(dynamo.lost()).toBe(lostBefore + 3);

    dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'removedAt = :now'));
    const id = registered.body.data.passkey.id as string;
    expect((await app.request('removePasskey', { token, pathParameters: { id } })).body).toEqual({
      success: true,
      data: { message: 'Passkey removed' },
    });
    expect(dynamo.lost()).toBe(lostBefore + 4);
    expect((await app.request('removePasskey', { token, pathParameters: { id } })).body).toEqual(failure('Passkey not found'));
  });

  it('invitations: a retried creation, resend, revocation and acceptance each take effect once (docs/api.md 13.1)', async () => {
    const tenantId = uniqueTenant('lost');
    const admin = await registerAdmin(app, tenantId, 'admin', 'correct horse battery');
    const linkOf = async (email: string) => /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1] ?? '';
    const lostBefore = dynamo.lost();
    const email = `lost@${tenantId}.example`;
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#INVITEE#'));
    const created = await app.request('adminCreateInvitation', { token: admin.token, body: { email, role: 'ANALYST' } });
    expect(created).toMatchObject({ status: 201, body: { success: true, data: { invitation: { email, status: 'pending' } } } });
    const { id } = created.body.data.invitation;
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', ':expires'));
    expect(await app.request('adminResendInvitation', { token: admin.token, pathParameters: { id } })).toMatchObject({ status: 200 });
    const token = await linkOf(email);
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', ':accepted'));
    const accepted = await app.request('acceptInvitation', { body: { token, username: 'lost-joiner', password: 'correct horse battery' } });
    expect(accepted, JSON.stringify(accepted.body)).toMatchObject({
      status: 201,
      body: { success: true, data: { user: { username: 'lost-joiner', role: 'ANALYST' } } },
    });
    expect(await app.request('acceptInvitation', { body: { token, username: 'other', password: 'correct horse battery' } })).toMatchObject({
      status: 400,
      body: failure('Invalid invitation'),
    });
    const second = await app.request('adminCreateInvitation', {
      token: admin.token,
      body: { email: `two@${tenantId}.example`, role: 'ANALYST' },
    });
    dynamo.loseNext(mentioning('TransactWriteItemsCommand', ':revoked'));
    expect(
      await app.request('adminRevokeInvitation', { token: admin.token, pathParameters: { id: second.body.data.invitation.id } }),
    ).toMatchObject({ status: 200, body: { success: true, data: { message: 'Invitation revoked' } } });
    expect(dynamo.lost()).toBe(lostBefore + 4);
    const listed = await app.request('adminListInvitations', { token: admin.token });
    expect(listed.body.data.invitations.map((each: { status: string }) => each.status).sort()).toEqual(['accepted', 'revoked']);
    const trail = await app.request('adminListAudit', { token: admin.token, query: { type: 'invitation_revoked' } });
    expect(trail.body.data.events).toHaveLength(1);
  });

  it('federation admin: a connection created, changed and deleted, a domain added, verified and deleted, each once', async () => {
    const dns = await startDnsServer();
    try {
      const fed = testApp({ ...deps, config: { ...deps.config, dnsServers: [dns.address] } });
      const tenantId = uniqueTenant('lost');
      const admin = await registerAdmin(fed, tenantId);
      const lostBefore = dynamo.lost();
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'CONNECTION#'));
      const created = await fed.request('adminCreateConnection', { token: admin.token, body: oidcConnection([`${tenantId}.example`]) });
      expect(created).toMatchObject({ status: 201, body: { success: true, data: { connection: { name: 'Acme Okta' } } } });
      const { id } = created.body.data.connection;
      expect(await deps.store.connections.listByTenant(tenantId)).toHaveLength(1);
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'CONNECTION#'));
      const changed = await fed.request('adminUpdateConnection', { token: admin.token, pathParameters: { id }, body: { enabled: false } });
      expect(changed).toMatchObject({ status: 200, body: { data: { connection: { enabled: false } } } });
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'CONNECTION#'));
      expect(await fed.request('adminDeleteConnection', { token: admin.token, pathParameters: { id } })).toMatchObject({ status: 200 });
      expect(await deps.store.connections.find(id)).toBeUndefined();

      const domain = `${tenantId}.example`;
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#DOMAINS'));
      const added = await fed.request('adminAddDomain', { token: admin.token, body: { domain } });
      expect(added).toMatchObject({ status: 201, body: { data: { domain, status: 'pending' } } });
      dns.txt.set(added.body.data.verification.name, [added.body.data.verification.value]);
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', 'CLAIM'));
      expect(await fed.request('adminVerifyDomain', { token: admin.token, pathParameters: { domain } })).toMatchObject({
        status: 200,
        body: { data: { domain, status: 'verified' } },
      });
      expect(await deps.store.domains.claimOf(domain)).toMatchObject({ tenantId });
      dynamo.loseNext(mentioning('TransactWriteItemsCommand', '#DOMAINS'));
      expect(await fed.request('adminDeleteDomain', { token: admin.token, pathParameters: { domain } })).toMatchObject({ status: 200 });
      expect(dynamo.lost()).toBe(lostBefore + 6);
      expect(await deps.store.domains.listByTenant(tenantId)).toEqual([]);
      expect(await deps.store.domains.claimOf(domain)).toBeUndefined();
    } finally {
      await dns.close();
    }
  });
});
