import { randomBytes, randomInt } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cryptoRandom } from '../../lib/crypto/random';
import type { Delivery } from '../../lib/deliveries/delivery';
import { newEvent } from '../../lib/events/event';
import { outboxDelivery } from '../../lib/mfa/delivery';
import { generateRecoveryCode } from '../../lib/mfa/recovery-codes';
import { backchannelLogoutPlanner, logoutRequest } from '../../lib/oauth/backchannel-logout';
import { dynamoMfaOutbox } from '../../lib/store/mfa';
import { consoleBrowser } from '../console/console-browser';
import { type App, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { DEVICE_GRANT } from '../helpers/device';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { verifiedDomain } from '../helpers/federation';
import { oidcConnection } from '../helpers/federation-admin';
import { browserAuthorize, CookieJar, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { createTable, scanTable } from '../helpers/isolated-table';
import { localDynamo } from '../helpers/local-dynamo';
import { authenticator, newTotpSecret } from '../helpers/mfa';
import { basic, createClient, FORM, form, pkcePair, tokenRequest } from '../helpers/oauth';
import { signInAt, startOidcIdp, storedOidcConnection } from '../helpers/oidc-idp';
import { encodeXml, makeSamlIdp } from '../helpers/saml-idp';
import { samlConnectionOf, startSamlSignIn } from '../helpers/saml-sign-in';
import { captureOutput, containsSecret, type KnownSecret, secretsIn } from '../helpers/secret-search';
import { startWebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Every flow run with secrets known to the test (all generated here,
 * at run time), then every response, every line of output and a scan of the whole
 * table searched for them in the clear. The only appearances allowed: the TOTP secret
 * in the otpauth URI of enableMFA's answer, and each token in the answer that issues it.
 *
 * The local outbox (the stand-in for SNS/SES, which tests read SMS/EMAIL codes from)
 * is on a table of its own here, as SNS and SES are outside the table in AWS.
 */
const passphrase = () => `pw ${randomBytes(12).toString('base64url')}`;
const wrongCode = (right: string) => String((Number(right) + 1 + randomInt(999_998)) % 1_000_000).padStart(6, '0');

interface Seen {
  label: string;
  response: Response;
  /** Secrets this answer issues (or, for the TOTP enrollment, carries in its otpauth URI). */
  issues: string[];
}

describe('secrets in the clear (responses, output, table)', () => {
  const identityTable = `secrets-${Date.now()}`;
  const outboxTable = `secrets-outbox-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  let deps: TestDeps;
  let app: App;
  let output: ReturnType<typeof captureOutput>;
  const secrets: KnownSecret[] = [];
  const seen: Seen[] = [];
  const flows = new Set<string>();
  /** The client's secret hashes as stored (current and previous), before it was deleted. */
  const storedHashes: string[] = [];
  /** The password hashes an import brought (docs/api.md 13.2): stored until the first sign-in, never answered or logged. */
  const importedHashes: string[] = [];

  const known = (label: string, value: string | undefined) => {
    if (!value) throw new Error(`no value for ${label}`);
    secrets.push({ label, value });
    return value;
  };
  /** Sends a request and keeps its answer; `issues` picks the secrets the answer hands out. */
  async function send(
    flow: string,
    route: Parameters<typeof app.request>[0],
    spec: Parameters<typeof app.request>[1],
    issues: (r: Response) => Array<string | undefined> = () => [],
  ) {
    const response = await app.request(route, spec);
    flows.add(flow);
    const issued = issues(response).filter((value): value is string => typeof value === 'string');
    seen.push({ label: `${flow} (${route} → ${response.status})`, response, issues: issued });
    return response;
  }
  const sessionIssued = (r: Response) => [r.body?.data?.token, r.body?.data?.refreshToken];

  beforeAll(async () => {
    await createTable(endpoint, identityTable);
    await createTable(endpoint, outboxTable);
    deps = await testDeps({ TABLE_NAME: identityTable });
    // DynamoDB Local deletes items whose TTL has passed in real time: keep the clock near it.
    nearRealTime(deps);
    deps.outbox = dynamoMfaOutbox(localDynamo({ tableName: outboxTable, endpoint }));
    deps.mfaDelivery = outboxDelivery(deps.outbox, deps.clock);
    app = testApp(deps);
    output = captureOutput();
  });
  afterAll(() => output?.stop());

  it('runs every flow with known secrets', async () => {
    const tenantId = uniqueTenant('secrets');
    const tenant = { tenantId };

    // register, login (wrong and right), refresh (and reuse), me, logout
    const adminPassword = known('admin password', passphrase());
    const admin = await send(
      'register',
      'register',
      { body: { username: 'admin', password: adminPassword, role: 'ADMIN', tenantId } },
      sessionIssued,
    );
    expect(admin.status).toBe(201);
    const adminToken = known('admin access token', admin.body.data.token);
    known('admin refresh token', admin.body.data.refreshToken);
    known('refresh token secret part', String(admin.body.data.refreshToken).split('.').at(-1));

    const userPassword = known('user password', passphrase());
    const user = await send(
      'register',
      'register',
      { token: adminToken, body: { username: 'user', password: userPassword, role: 'ANALYST', tenantId, email: 'user@example.com' } },
      sessionIssued,
    );
    expect(user.status).toBe(201);
    // An ADMIN's registration issues no session of the new user's (docs/api.md 4.3).
    expect([user.body.data.token, user.body.data.refreshToken]).toEqual(['', '']);

    // An import with password hashes (docs/api.md 13.2), one refused for its cost; the first sign-in replaces the hash.
    const importedPassword = known('imported user password', passphrase());
    importedHashes.push(bcrypt.hashSync(importedPassword, 4), bcrypt.hashSync(importedPassword, 4).replace('$2b$04$', '$2b$14$'));
    const rows = importedHashes.map((passwordHash, i) => ({ username: `moved-${i}`, role: 'ANALYST', passwordHash }));
    const imported = await send('import', 'adminImportUsers', { token: adminToken, body: { users: rows } });
    expect(imported.body.data).toEqual({
      imported: 1,
      failed: [{ index: 1, error: "Password hash cost above the service's ceiling (bcrypt: cost at most 13)" }],
    });
    const movedIn = await send(
      'login (imported hash)',
      'login',
      { body: { username: 'moved-0', password: importedPassword, ...tenant } },
      sessionIssued,
    );
    expect(movedIn.status).toBe(200);

    const wrongPassword = known('wrong password', passphrase());
    expect((await send('login', 'login', { body: { username: 'user', password: wrongPassword, ...tenant } })).status).toBe(401);
    expect((await send('login', 'login', { body: { username: 'nobody', password: wrongPassword, ...tenant } })).status).toBe(401);
    const login = await send('login', 'login', { body: { username: 'user', password: userPassword, ...tenant } }, sessionIssued);
    expect(login.status).toBe(200);
    const loginRefresh = known('login refresh token', login.body.data.refreshToken);
    known('login access token', login.body.data.token);
    const refreshed = await send('refresh', 'refreshToken', { body: { refreshToken: loginRefresh } }, sessionIssued);
    expect(refreshed.status).toBe(200);
    known('rotated refresh token', refreshed.body.data.refreshToken);
    known('refreshed access token', refreshed.body.data.token);
    expect((await send('refresh (reuse)', 'refreshToken', { body: { refreshToken: loginRefresh } })).status).toBe(401);
    const forged = known(
      'forged refresh token',
      `${String(loginRefresh).split('.').slice(0, 3).join('.')}.${randomBytes(32).toString('base64url')}`,
    );
    expect((await send('refresh (forged)', 'refreshToken', { body: { refreshToken: forged } })).status).toBe(401);
    // The reuse above ended that session: me and logout with another.
    const again = await send('login', 'login', { body: { username: 'user', password: userPassword, ...tenant } }, sessionIssued);
    known('second login refresh token', again.body.data.refreshToken);
    const againToken = known('second login access token', again.body.data.token);
    expect((await send('me', 'me', { token: againToken })).status).toBe(200);
    expect((await send('logout', 'logout', { token: againToken })).status).toBe(200);

    // MFA: TOTP enable, verify (wrong and right), login asking for, refusing and accepting a code
    const mfaUser = async (username: string) => {
      const password = known(`${username} password`, passphrase());
      const registered = await send(
        'register',
        'register',
        { token: adminToken, body: { username, password, role: 'OPERATOR', tenantId } },
        sessionIssued,
      );
      expect(registered.status).toBe(201);
      const loggedIn = await send(`${username} login`, 'login', { body: { username, password, tenantId } }, sessionIssued);
      expect(loggedIn.status).toBe(200);
      known(`${username} refresh token`, loggedIn.body.data.refreshToken);
      return { password, token: loggedIn.body.data.token as string, userId: registered.body.data.user.id as string };
    };
    const totpUser = await mfaUser('totp-user');
    const totpSecret = known('TOTP secret', newTotpSecret());
    const code = authenticator(deps, totpSecret);
    const enabled = await send(
      'MFA enable TOTP',
      'enableMFA',
      { token: totpUser.token, body: { method: 'TOTP', secret: totpSecret } },
      (r) => [r.body?.data?.otpauthUri],
    );
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.otpauthUri).toContain(totpSecret);
    const totpCodes = [known('TOTP code (verify)', code())];
    expect(
      (
        await send('MFA verify TOTP', 'verifyMFA', {
          token: totpUser.token,
          body: { method: 'TOTP', code: known('wrong TOTP code', wrongCode(totpCodes[0] ?? '')) },
        })
      ).status,
    ).toBe(400);
    expect(
      (await send('MFA verify TOTP', 'verifyMFA', { token: totpUser.token, body: { method: 'TOTP', code: totpCodes[0] } })).status,
    ).toBe(200);
    expect(
      (await send('MFA verify TOTP (replay)', 'verifyMFA', { token: totpUser.token, body: { method: 'TOTP', code: totpCodes[0] } })).status,
    ).toBe(400);
    deps.clock.advance(30);
    const totpLogin = { username: 'totp-user', password: totpUser.password, ...tenant };
    expect((await send('MFA login TOTP', 'login', { body: totpLogin })).status).toBe(401);
    expect(
      (await send('MFA login TOTP', 'login', { body: { ...totpLogin, mfaCode: known('wrong TOTP login code', wrongCode(code())) } }))
        .status,
    ).toBe(401);
    const totpLoggedIn = await send(
      'MFA login TOTP',
      'login',
      { body: { ...totpLogin, mfaCode: known('TOTP code (login)', code()) } },
      sessionIssued,
    );
    expect(totpLoggedIn.status).toBe(200);
    known('TOTP login refresh token', totpLoggedIn.body.data.refreshToken);

    // Recovery codes (docs/api.md 8.6): generated (the one answer that holds them), listed,
    // used at login and reauthenticate, refused when wrong or used again.
    const totpOtpToken = totpLoggedIn.body.data.token as string;
    const generated = await send('MFA recovery codes', 'generateRecoveryCodes', { token: totpOtpToken }, (r) => r.body?.data?.codes ?? []);
    expect(generated.status).toBe(200);
    const recoveryCodes = (generated.body.data.codes as string[]).map((value, i) => known(`recovery code ${i + 1}`, value));
    // What the digests are made of: the code without its hyphens.
    for (const [i, value] of recoveryCodes.entries()) known(`recovery code ${i + 1} (compact)`, value.replace(/-/g, ''));
    expect((await send('MFA list', 'listMFA', { token: totpOtpToken })).body.data.mfa.recoveryCodesRemaining).toBe(10);
    const wrongRecovery = known('wrong recovery code', generateRecoveryCode(cryptoRandom));
    const recoveryLogin = { ...totpLogin, mfaMethod: 'RECOVERY' };
    expect((await send('MFA login RECOVERY', 'login', { body: { ...recoveryLogin, mfaCode: wrongRecovery } })).status).toBe(401);
    const recovered = await send('MFA login RECOVERY', 'login', { body: { ...recoveryLogin, mfaCode: recoveryCodes[0] } }, sessionIssued);
    expect(recovered.status).toBe(200);
    known('RECOVERY login refresh token', recovered.body.data.refreshToken);
    expect((await send('MFA login RECOVERY (reuse)', 'login', { body: { ...recoveryLogin, mfaCode: recoveryCodes[0] } })).status).toBe(401);
    const reauthenticated = await send(
      'MFA reauthenticate RECOVERY',
      'reauthenticate',
      { token: totpOtpToken, body: { password: totpUser.password, mfaMethod: 'RECOVERY', mfaCode: recoveryCodes[1] } },
      (r) => [r.body?.data?.token],
    );
    expect(reauthenticated.status).toBe(200);

    // MFA: SMS and EMAIL enable (code sent), verify (wrong and right), login (code sent, wrong, right)
    for (const [method, destination] of [
      ['SMS', `+1555${randomInt(1_000_000, 9_999_999)}`],
      ['EMAIL', `u${randomBytes(4).toString('hex')}@example.com`],
    ] as const) {
      const who = await mfaUser(`${method.toLowerCase()}-user`);
      expect((await send(`MFA enable ${method}`, 'enableMFA', { token: who.token, body: { method, secret: destination } })).status).toBe(
        200,
      );
      const enrolment = known(`${method} enrolment code`, (await deps.outbox.latest(tenantId, who.userId, method))?.code);
      expect(
        (
          await send(`MFA verify ${method}`, 'verifyMFA', {
            token: who.token,
            body: { method, code: known(`wrong ${method} code`, wrongCode(enrolment)) },
          })
        ).status,
      ).toBe(400);
      expect((await send(`MFA verify ${method}`, 'verifyMFA', { token: who.token, body: { method, code: enrolment } })).status).toBe(200);
      deps.clock.advance(31);
      const credentials = { username: `${method.toLowerCase()}-user`, password: who.password, ...tenant };
      expect((await send(`MFA login ${method}`, 'login', { body: credentials })).status).toBe(401);
      const loginCode = known(`${method} login code`, (await deps.outbox.latest(tenantId, who.userId, method))?.code);
      expect(
        (
          await send(`MFA login ${method}`, 'login', {
            body: { ...credentials, mfaCode: known(`wrong ${method} login code`, wrongCode(loginCode)) },
          })
        ).status,
      ).toBe(401);
      const loggedIn = await send(`MFA login ${method}`, 'login', { body: { ...credentials, mfaCode: loginCode } }, sessionIssued);
      expect(loggedIn.status).toBe(200);
      known(`${method} login refresh token`, loggedIn.body.data.refreshToken);
    }

    // OAuth: client creation, authorize, token (all three grants, both formats), introspect, revoke
    const clientId = `client-${randomBytes(4).toString('hex')}`;
    const clientSecret = known('client secret', randomBytes(32).toString('base64url'));
    const redirectUri = 'https://app.example.com/callback';
    const created = await send('OAuth client creation', 'createOAuth2Client', {
      token: adminToken,
      body: {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uri: redirectUri,
        grant_types: 'authorization_code refresh_token client_credentials',
        scope: 'orders:read orders:write',
        tenant_id: tenantId,
      },
    });
    expect(created.status).toBe(201);
    const wrongClientSecret = known('wrong client secret', randomBytes(32).toString('base64url'));
    const post = { client_id: clientId, client_secret: clientSecret };

    const authorize = async () => {
      const { verifier, challenge } = pkcePair();
      known('PKCE verifier', verifier);
      const state = randomBytes(8).toString('hex');
      const response = await send(
        'authorize',
        'oauth2Authorize',
        {
          token: adminToken,
          query: {
            response_type: 'code',
            client_id: clientId,
            redirect_uri: redirectUri,
            code_challenge: challenge,
            code_challenge_method: 'S256',
            state,
          },
        },
        (r) => [new URL(r.headers.Location ?? 'x:').searchParams.get('code') ?? undefined],
      );
      expect(response.status).toBe(302);
      const authCode = known('authorization code', new URL(response.headers.Location ?? '').searchParams.get('code') ?? undefined);
      return { verifier, authCode };
    };
    const oauthIssued = (r: Response) => {
      const data = r.body?.data ?? r.body;
      return [data?.access_token, data?.refresh_token];
    };

    // authorization_code, form, client_secret_post; a wrong verifier first (does not burn the code)
    const first = await authorize();
    const wrongVerifier = known('wrong PKCE verifier', pkcePair().verifier);
    expect(
      (
        await send(
          'token authorization_code',
          'oauth2Token',
          form({
            ...post,
            grant_type: 'authorization_code',
            code: first.authCode,
            redirect_uri: redirectUri,
            code_verifier: wrongVerifier,
          }),
        )
      ).status,
    ).toBe(400);
    const issued = await send(
      'token authorization_code',
      'oauth2Token',
      form({ ...post, grant_type: 'authorization_code', code: first.authCode, redirect_uri: redirectUri, code_verifier: first.verifier }),
      oauthIssued,
    );
    expect(issued.status).toBe(200);
    const oauthRefresh = known('OAuth refresh token', issued.body.refresh_token);
    const oauthAccess = known('OAuth access token', issued.body.access_token);
    known('OAuth refresh token secret part', String(oauthRefresh).split('.').at(-1));

    // docs/api.md 17.3: the grant's session ends; its logout is planned and its token made, and neither
    // the delivery nor anything stored or logged holds a secret (the token is sent only to the client).
    const withLogoutUri = await send('back-channel logout URI', 'updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId },
      body: { backchannel_logout_uri: 'https://app.example.com/bcl' },
    });
    expect(withLogoutUri.status).toBe(200);
    const adminIdentity = await app.identityOf(adminToken);
    const logouts = await backchannelLogoutPlanner(deps, [
      {
        ...newEvent(deps, {
          tenantId,
          type: 'identity.session.revoked',
          subject: adminIdentity?.userId ?? '',
          actor: { type: 'system', id: 'test' },
        }),
        data: { actor: { type: 'system', id: 'test' }, endedSessions: [adminIdentity?.sessionId ?? ''] },
      },
    ]);
    expect(logouts).toHaveLength(1);
    expect(secretsIn(JSON.stringify(logouts), secrets)).toEqual([]);
    const logoutBody = (await logoutRequest(deps, logouts[0] as Delivery))?.body;
    known('logout token', new URLSearchParams(logoutBody).get('logout_token') ?? undefined);

    // A public client (docs/api.md 16.1): its code by POST (16.2), its tokens with client_id alone, its refresh and revocation.
    const spaId = `spa-${tenantId}`;
    const spaCreated = await send('public client creation', 'createOAuth2Client', {
      token: adminToken,
      body: {
        client_id: spaId,
        token_endpoint_auth_method: 'none',
        redirect_uri: 'http://127.0.0.1/callback',
        grant_types: 'authorization_code refresh_token',
        scope: 'orders:read',
        tenant_id: tenantId,
        allowed_origins: 'https://spa.secrets.example',
      },
    });
    expect(spaCreated.status).toBe(201);
    const spaPkce = pkcePair();
    known('PKCE verifier', spaPkce.verifier);
    const spaRedirect = 'http://127.0.0.1:49152/callback';
    const byPost = await send(
      'authorize by POST',
      'oauth2Authorize',
      {
        method: 'POST',
        token: adminToken,
        ...form({
          response_type: 'code',
          client_id: spaId,
          redirect_uri: spaRedirect,
          code_challenge: spaPkce.challenge,
          code_challenge_method: 'S256',
        }),
      },
      (r) => [new URL(r.headers.Location ?? 'x:').searchParams.get('code') ?? undefined],
    );
    const spaCode = known('authorization code', new URL(byPost.headers.Location ?? '').searchParams.get('code') ?? undefined);
    const spaFrom = { ...form({}).headers, origin: 'https://spa.secrets.example' };
    const spaTokens = await send(
      'public client token authorization_code',
      'oauth2Token',
      {
        body: form({
          grant_type: 'authorization_code',
          client_id: spaId,
          code: spaCode,
          redirect_uri: spaRedirect,
          code_verifier: spaPkce.verifier,
        }).body,
        headers: spaFrom,
      },
      oauthIssued,
    );
    expect(spaTokens.status).toBe(200);
    const spaRefresh = known('OAuth refresh token', spaTokens.body.refresh_token);
    known('OAuth access token', spaTokens.body.access_token);
    const spaRefreshed = await send(
      'public client token refresh_token',
      'oauth2Token',
      { body: form({ grant_type: 'refresh_token', client_id: spaId, refresh_token: spaRefresh }).body, headers: spaFrom },
      oauthIssued,
    );
    expect(spaRefreshed.status).toBe(200);
    known('OAuth refresh token', spaRefreshed.body.refresh_token);
    // Presented by another client: refused, and the grant ends (its log line names no token).
    expect(
      (
        await send(
          'refresh token of another client',
          'oauth2Token',
          form({ ...post, grant_type: 'refresh_token', refresh_token: spaRefreshed.body.refresh_token }),
        )
      ).status,
    ).toBe(400);
    expect(
      (await send('public client revocation', 'revoke', form({ client_id: spaId, token: spaRefreshed.body.refresh_token }))).status,
    ).toBe(200);

    // authorization_code, JSON, HTTP Basic; then the code again (reuse)
    const second = await authorize();
    const json = await send(
      'token authorization_code',
      'oauth2Token',
      {
        body: { grant_type: 'authorization_code', code: second.authCode, redirect_uri: redirectUri, code_verifier: second.verifier },
        headers: { authorization: basic(clientId, clientSecret) },
      },
      oauthIssued,
    );
    expect(json.status).toBe(200);
    known('OAuth refresh token (JSON)', json.body.data.refresh_token);
    expect(
      (
        await send('token authorization_code (reuse)', 'oauth2Token', {
          body: {
            ...post,
            grant_type: 'authorization_code',
            code: second.authCode,
            redirect_uri: redirectUri,
            code_verifier: second.verifier,
          },
        })
      ).status,
    ).toBe(400);

    // refresh_token: rotate, present the retired one again (reuse), wrong client secret
    const rotated = await send(
      'token refresh_token',
      'oauth2Token',
      form({ ...post, grant_type: 'refresh_token', refresh_token: oauthRefresh }),
      oauthIssued,
    );
    expect(rotated.status).toBe(200);
    const rotatedRefresh = known('rotated OAuth refresh token', rotated.body.refresh_token);
    known('rotated OAuth access token', rotated.body.access_token);
    expect(
      (
        await send(
          'token refresh_token (wrong secret)',
          'oauth2Token',
          form({ client_id: clientId, client_secret: wrongClientSecret, grant_type: 'refresh_token', refresh_token: rotatedRefresh }),
        )
      ).status,
    ).toBe(401);
    // client_credentials, form and JSON
    const cc = await send('token client_credentials', 'oauth2Token', form({ ...post, grant_type: 'client_credentials' }), oauthIssued);
    expect(cc.status).toBe(200);
    const ccAccess = known('client_credentials access token', cc.body.access_token);
    const ccJson = await send(
      'token client_credentials',
      'oauth2Token',
      { body: { ...post, grant_type: 'client_credentials' } },
      oauthIssued,
    );
    expect(ccJson.status).toBe(200);
    // DPoP (docs/api.md 16.3): a bound token; the table keeps a digest of the proof's jti, never a token.
    const proof = await dpopProof(await dpopKey(), { htu: `${deps.config.issuer}/oauth2/token`, iat: Math.floor(deps.clock.now() / 1000) });
    const ccDpopForm = form({ ...post, grant_type: 'client_credentials' });
    const ccDpop = await send(
      'token client_credentials with DPoP',
      'oauth2Token',
      { ...ccDpopForm, headers: { ...ccDpopForm.headers, dpop: proof } },
      oauthIssued,
    );
    expect(ccDpop.body.token_type).toBe('DPoP');
    const dpopAccess = known('DPoP-bound access token', ccDpop.body.access_token);
    await send('introspect a DPoP-bound token', 'introspect', form({ ...post, token: dpopAccess }));

    // introspect and revoke each kind of token, by Basic and in the body
    const third = await authorize();
    const basicAuth = { authorization: basic(clientId, clientSecret) };
    for (const token of [rotatedRefresh, oauthAccess, ccAccess, third.authCode]) {
      const viaBasic = form({ token });
      expect((await send('introspect', 'introspect', { ...viaBasic, headers: { ...viaBasic.headers, ...basicAuth } })).status).toBe(200);
      expect((await send('introspect', 'introspect', form({ ...post, token }))).status).toBe(200);
    }
    expect(
      (
        await send(
          'introspect (wrong secret)',
          'introspect',
          form({ client_id: clientId, client_secret: wrongClientSecret, token: rotatedRefresh }),
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await send(
          'revoke (wrong secret)',
          'revoke',
          form({ client_id: clientId, client_secret: wrongClientSecret, token: rotatedRefresh }),
        )
      ).status,
    ).toBe(401);
    expect((await send('revoke', 'revoke', form({ ...post, token: rotatedRefresh, token_type_hint: 'refresh_token' }))).status).toBe(200);
    expect((await send('revoke', 'revoke', form({ ...post, token: ccAccess }))).status).toBe(200);
    expect(
      (
        await send(
          'token refresh_token (revoked)',
          'oauth2Token',
          form({ ...post, grant_type: 'refresh_token', refresh_token: rotatedRefresh }),
        )
      ).status,
    ).toBe(400);

    // The account routes (docs/api.md 8.3-8.5): listings of sessions and grants hold no token and no token hash.
    const fourth = await authorize();
    const live = await send(
      'token authorization_code',
      'oauth2Token',
      form({ ...post, grant_type: 'authorization_code', code: fourth.authCode, redirect_uri: redirectUri, code_verifier: fourth.verifier }),
      oauthIssued,
    );
    known('listed OAuth refresh token', live.body.refresh_token);
    known('listed OAuth access token', live.body.access_token);
    const listings = [
      await send('sessions', 'listSessions', { token: adminToken }),
      await send('grants', 'listGrants', { token: adminToken }),
      await send('account', 'getAccount', { token: adminToken }),
    ];
    expect(listings.map((listing) => listing.status)).toEqual([200, 200, 200]);
    expect(listings[0]?.body.data.sessions.length).toBeGreaterThan(0);
    expect(listings[1]?.body.data.grants.length).toBeGreaterThan(0);
    const families = (await scanTable(endpoint, identityTable)).filter((item) => item.sk === 'SESSION' || item.sk === 'GRANT');
    const hashes = families.flatMap((item) => [item.refreshHash, ...Object.values((item.retired as Record<string, string>) ?? {})]);
    expect(hashes.length).toBeGreaterThan(2);
    const listed = JSON.stringify(listings.map((listing) => listing.body));
    expect(hashes.filter((hash) => typeof hash === 'string' && listed.includes(hash))).toEqual([]);
    const revokedSession = await send('session revocation', 'revokeSession', {
      token: adminToken,
      pathParameters: { sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(revokedSession.status).toBe(404);

    // OAuth client lifecycle (docs/api.md 9.9-9.13): list, read, change, rotate (both secrets in use), delete.
    const clientPath = { clientId };
    expect((await send('OAuth client list', 'listOAuth2Clients', { token: adminToken })).status).toBe(200);
    expect((await send('OAuth client read', 'readOAuth2Client', { token: adminToken, pathParameters: clientPath })).status).toBe(200);
    const renamed = await send('OAuth client change', 'updateOAuth2Client', {
      token: adminToken,
      pathParameters: clientPath,
      body: { client_name: 'Secrets app', first_party: true },
    });
    expect(renamed.status).toBe(200);
    const rotatedSecret = known('rotated client secret', randomBytes(32).toString('base64url'));
    const weakSecret = known('refused weak client secret', 'abcdefgh'.repeat(5));
    expect(
      (
        await send('OAuth client secret rotation', 'rotateOAuth2ClientSecret', {
          token: adminToken,
          pathParameters: clientPath,
          body: { client_secret: weakSecret },
        })
      ).status,
    ).toBe(400);
    const secretRotated = await send('OAuth client secret rotation', 'rotateOAuth2ClientSecret', {
      token: adminToken,
      pathParameters: clientPath,
      body: { client_secret: rotatedSecret, previous_secret_expires_in: 600 },
    });
    expect(secretRotated.status).toBe(200);
    for (const secret of [clientSecret, rotatedSecret]) {
      const issued = await send(
        'token client_credentials',
        'oauth2Token',
        form({ client_id: clientId, client_secret: secret, grant_type: 'client_credentials' }),
        oauthIssued,
      );
      expect(issued.status).toBe(200);
      known('client_credentials access token after rotation', issued.body.access_token);
    }
    expect((await send('OAuth client read', 'readOAuth2Client', { token: adminToken, pathParameters: clientPath })).status).toBe(200);
    expect((await send('OAuth client list', 'listOAuth2Clients', { token: adminToken })).status).toBe(200);
    const stored = await deps.store.oauthClients.find(clientId);
    storedHashes.push(String(stored?.secretHash), String(stored?.previousSecretHash));
    expect((await send('OAuth client deletion', 'deleteOAuth2Client', { token: adminToken, pathParameters: clientPath })).status).toBe(200);
    expect(
      (
        await send(
          'token client_credentials (deleted client)',
          'oauth2Token',
          form({ client_id: clientId, client_secret: rotatedSecret, grant_type: 'client_credentials' }),
        )
      ).status,
    ).toBe(401);

    // Invitations (docs/api.md 13.1): the links, and the passwords chosen with them.
    const invitee = `i${randomBytes(4).toString('hex')}@example.com`;
    const invited = await send('invitation', 'adminCreateInvitation', { token: adminToken, body: { email: invitee, role: 'ANALYST' } });
    expect(invited.status).toBe(201);
    const linkIn = async (email: string) => /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1];
    const firstLink = known('invitation token (resent since)', await linkIn(invitee));
    const resent = await send('invitation', 'adminResendInvitation', {
      token: adminToken,
      pathParameters: { id: invited.body.data.invitation.id },
    });
    expect(resent.status).toBe(200);
    const link = known('invitation token', await linkIn(invitee));
    expect(link).not.toBe(firstLink);
    const pagePassword = known('invitation page password', passphrase());
    // The page carries its own link in the form's action: it is what the browser navigated to.
    const shown = await send('invitation page', 'hostedInvitationPage', { pathParameters: { token: link } }, () => [link]);
    expect(shown.status).toBe(200);
    const pageAccepted = await send('invitation page', 'hostedInvitationAccept', {
      pathParameters: { token: link },
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(deps.config.issuer).origin },
      body: new URLSearchParams({ username: 'invited-page', password: pagePassword }).toString(),
    });
    expect(pageAccepted.status).toBe(200);
    const jsonInvitee = `j${randomBytes(4).toString('hex')}@example.com`;
    expect(
      (await send('invitation', 'adminCreateInvitation', { token: adminToken, body: { email: jsonInvitee, role: 'ANALYST' } })).status,
    ).toBe(201);
    const jsonLink = known('invitation token (JSON)', await linkIn(jsonInvitee));
    const jsonPassword = known('invitation JSON password', passphrase());
    const jsonAccepted = await send(
      'invitation accept',
      'acceptInvitation',
      { body: { token: jsonLink, username: 'invited-json', password: jsonPassword } },
      sessionIssued,
    );
    expect(jsonAccepted.status).toBe(201);
    known('invitation session token', jsonAccepted.body.data.token);
    expect(
      (await send('invitation accept', 'acceptInvitation', { body: { token: jsonLink, username: 'again', password: jsonPassword } }))
        .status,
    ).toBe(400);
    expect((await send('invitation', 'adminListInvitations', { token: adminToken })).status).toBe(200);

    // The tenant console (docs/api.md 15.3.2): an invitation sent and sent again from its form; the
    // links go by email only, never into a page, a redirect or a cookie of the console.
    const tenantConsole = await consoleBrowser(app, new URL(deps.config.issuer).origin, tenantId, 'admin', adminPassword);
    const consoled = (label: string, response: Response) => {
      flows.add('tenant console');
      seen.push({ label: `tenant console ${label} (${response.status})`, response, issues: [] });
      return response;
    };
    const consoleInvitee = `console-${randomBytes(4).toString('hex')}@example.com`;
    consoled('invite', await tenantConsole.post('invitations', 'invite', { email: consoleInvitee, role: 'ANALYST', shopId: 'default' }));
    known('invitation token (console)', await linkIn(consoleInvitee));
    const consoleInvitation = (await app.request('adminListInvitations', { token: adminToken })).body.data.invitations.find(
      (each: { email: string }) => each.email === consoleInvitee,
    );
    consoled('resend', await tenantConsole.post('invitations', 'resend', { id: consoleInvitation.id }));
    known('invitation token (console, resent)', await linkIn(consoleInvitee));
    consoled('invitations page', await tenantConsole.page('invitations'));
    consoled('audit page', await tenantConsole.page('audit'));

    // Every flow of the issue ran.
    // Email verification and password reset (docs/api.md 8.7, 8.8), and the notifications they cause (8.9)
    const resetUser = await mfaUser('reset-user');
    const address = `r${randomBytes(4).toString('hex')}@example.com`;
    expect((await send('email set', 'emailSet', { token: resetUser.token, body: { email: address } })).status).toBe(200);
    const verifyCode = known('verification code', (await deps.outbox.latest(tenantId, resetUser.userId, 'EMAIL', 'verify-email'))?.code);
    const wrongVerify = known('wrong verification code', wrongCode(verifyCode));
    expect((await send('email verify', 'emailVerify', { token: resetUser.token, body: { code: wrongVerify } })).status).toBe(400);
    expect((await send('email verify', 'emailVerify', { token: resetUser.token, body: { code: verifyCode } })).status).toBe(200);
    expect((await send('password forgot', 'passwordForgot', { body: { username: 'reset-user', tenantId } })).status).toBe(202);
    const resetCode = known('reset code', (await deps.outbox.latest(tenantId, resetUser.userId, 'EMAIL', 'reset'))?.code);
    const newPassword = known('reset new password', passphrase());
    const resetBody = { username: 'reset-user', tenantId, newPassword };
    const wrongReset = known('wrong reset code', wrongCode(resetCode));
    expect((await send('password reset', 'passwordReset', { body: { ...resetBody, code: wrongReset } })).status).toBe(400);
    expect((await send('password reset', 'passwordReset', { body: { ...resetBody, code: resetCode } })).status).toBe(200);
    // The notifications (email bodies, plain text and HTML) carry none of the secrets.
    const notices = await deps.outbox.notifications(tenantId, resetUser.userId);
    expect(notices.map((notice) => notice.notification.event)).toEqual(['password-reset']);
    expect(secretsIn(JSON.stringify(notices), secrets)).toEqual([]);

    // SCIM (docs/api.md 13.3): the token is answered once; a password an IdP pushes is never kept.
    const scimCreated = await send('SCIM token', 'adminCreateScimToken', { token: adminToken, body: { name: 'Okta' } }, (r) => [
      r.body?.data?.token,
    ]);
    const scimToken = String(scimCreated.body.data.token);
    known('SCIM token secret part', scimToken.split('.').at(-1));
    expect((await send('SCIM token list', 'adminListScimTokens', { token: adminToken })).status).toBe(200);
    const scimHeaders = { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' };
    const pushed = known('SCIM pushed password', passphrase());
    expect(
      (await send('SCIM user', 'scimCreateUser', { headers: scimHeaders, body: { userName: 'scim-secret', password: pushed } })).status,
    ).toBe(201);
    expect(
      (await send('SCIM user', 'scimListUsers', { headers: scimHeaders, query: { filter: 'userName eq "scim-secret"' } })).status,
    ).toBe(200);
    const scimTokenId = String(scimCreated.body.data.scimToken.id);
    expect(
      (await send('SCIM token deletion', 'adminDeleteScimToken', { token: adminToken, pathParameters: { tokenId: scimTokenId } })).status,
    ).toBe(200);

    // Webhooks (docs/api.md 17.2): the signing secret is answered once, stored sealed, and
    // only its signatures leave (a test delivery to a loopback receiver).
    const receiver = await startWebhookReceiver();
    try {
      const hook = await send(
        'webhook',
        'adminCreateWebhook',
        { token: adminToken, body: { url: `${receiver.origin}/secrets`, events: ['identity.user.created'] } },
        (r) => [r.body?.data?.secret, String(r.body?.data?.secret).replace(/^whsec_/, '')],
      );
      const hookSecret = known('webhook secret', hook.body.data.secret);
      known('webhook secret key', hookSecret.replace(/^whsec_/, ''));
      const hookPath = { webhookId: String(hook.body.data.webhook.id) };
      expect((await send('webhook list', 'adminListWebhooks', { token: adminToken })).status).toBe(200);
      expect((await send('webhook read', 'adminReadWebhook', { token: adminToken, pathParameters: hookPath })).status).toBe(200);
      const changed = { token: adminToken, pathParameters: hookPath, body: { description: 'Billing' } };
      expect((await send('webhook change', 'adminUpdateWebhook', changed)).status).toBe(200);
      expect((await send('webhook test', 'adminTestWebhook', { token: adminToken, pathParameters: hookPath })).status).toBe(200);
      expect((await send('webhook deliveries', 'adminListWebhookDeliveries', { token: adminToken, pathParameters: hookPath })).status).toBe(
        200,
      );
      expect(secretsIn(JSON.stringify(receiver.received), secrets)).toEqual([]);
      expect((await send('webhook deletion', 'adminDeleteWebhook', { token: adminToken, pathParameters: hookPath })).status).toBe(200);
    } finally {
      await receiver.close();
    }

    // The tenant console (docs/api.md 15.3.6-15.3.8): a client secret and its rotation, a SCIM
    // token, shown once in the answer to the form; an IdP's client secret, never shown.
    const consolePassword = known('console ADMIN password', passphrase());
    const consoleAdmin = await send('register', 'register', {
      token: adminToken,
      body: { username: 'console-admin', password: consolePassword, role: 'ADMIN', tenantId },
    });
    expect(consoleAdmin.status).toBe(201);
    const origin = new URL(deps.config.issuer).origin;
    const { jar: consoleJar, page: consoleHome } = await signedInJar(app, origin, 'admin', {
      tenantId,
      username: 'console-admin',
      password: consolePassword,
    });
    const consoleCsrf = /name="csrf" value="([^"]+)"/.exec(String(consoleHome.body))?.[1] ?? '';
    const shownSecret = (r: Response) => [/<p class="secret" id="[a-z-]+">([^<]+)<\/p>/.exec(String(r.body))?.[1]];
    const consoleForm = async (
      section: string,
      action: string,
      fields: Record<string, string>,
      issues?: (r: Response) => Array<string | undefined>,
    ) =>
      consoleJar.take(
        await send(
          'console',
          'adminConsoleAction',
          {
            method: 'POST',
            path: '/admin/console/{section}/{action}',
            pathParameters: { section, action },
            headers: { 'content-type': FORM, origin, ...consoleJar.header() },
            body: new URLSearchParams({ csrf: consoleCsrf, ...fields }).toString(),
          },
          issues,
        ),
      );
    const consolePage = async (section: string, query: Record<string, string> = {}) =>
      consoleJar.take(
        await send('console', 'adminConsolePage', {
          method: 'GET',
          path: '/admin/console/{section}',
          pathParameters: { section },
          query,
          headers: consoleJar.header(),
        }),
      );
    const consoleClient = await consoleForm(
      'clients',
      'create',
      {
        client_id: 'console-client',
        redirect_uri: 'https://shop.example/cb',
        'grant_types:client_credentials': 'on',
        scope: 'orders:read',
      },
      shownSecret,
    );
    known('console client secret', shownSecret(consoleClient)[0]);
    const rotatedConsole = await consoleForm(
      'clients',
      'rotate',
      { clientId: 'console-client', previous_secret_expires_in: '3600' },
      shownSecret,
    );
    known('console rotated client secret', shownSecret(rotatedConsole)[0]);
    expect((await consolePage('clients')).status).toBe(200);
    expect((await consolePage('clients', { client: 'console-client' })).status).toBe(200);
    const consoleScim = await consoleForm('scim-tokens', 'create', { name: 'Console Okta' }, shownSecret);
    known('console SCIM token secret part', shownSecret(consoleScim)[0]?.split('.').at(-1));
    expect((await consolePage('scim-tokens')).status).toBe(200);
    const consoleIdpSecret = known('console IdP client secret', passphrase());
    const consoleIdp = await consoleForm('connections', 'create-oidc', {
      name: 'Console Okta',
      issuer: 'https://acme.okta.example',
      clientId: '0oa1console',
      clientSecret: consoleIdpSecret,
      domains: `console.${tenantId}.example`,
      defaultRole: 'ANALYST',
    });
    expect(consoleIdp.status).toBe(303);
    const consoleIdpId = new URL(consoleIdp.headers.Location ?? '', origin).searchParams.get('connection') ?? '';
    // Refused beside its field: the typed secret is not sent back.
    expect(
      (
        await consoleForm('connections', 'update', {
          id: consoleIdpId,
          type: 'oidc',
          name: 'x',
          issuer: 'ftp://x',
          clientId: 'x',
          clientSecret: consoleIdpSecret,
          domains: 'x.example',
          defaultRole: 'ANALYST',
        })
      ).status,
    ).toBe(400);
    expect((await consolePage('connections', { connection: consoleIdpId })).status).toBe(200);
    expect((await consoleForm('connections', 'delete', { id: consoleIdpId })).status).toBe(303);

    // SAML (docs/api.md 14.5): the federation cookie's secret and the signed response (a bearer
    // assertion until it expires) are never logged, stored or answered.
    const samlClient = await createClient(app, adminToken, tenantId);
    const idp = await makeSamlIdp();
    const saml = await samlConnectionOf(deps, tenantId, `${tenantId}.example`, {
      idpEntityId: idp.entityId,
      ssoUrl: 'https://idp.example.test/sso',
      signingCertificates: [idp.cert],
    });
    const samlJar = new CookieJar();
    const samlEmail = `federated@${tenantId}.example`;
    const samlStart = await startSamlSignIn(app, samlJar, samlClient, samlEmail);
    known('federation cookie secret', samlJar.cookies.get('__Host-federation'));
    // The pending request's key (the RelayState): the table keeps only its digest.
    known('SAML RelayState', samlStart.relayState);
    const samlResponse = idp.response({
      ...samlStart,
      inResponseTo: samlStart.requestId,
      nameId: 'federated',
      attributes: { email: [samlEmail] },
      now: deps.clock.now(),
    });
    known('SAML response', encodeXml(samlResponse));
    known('SAML signature value', /<ds:SignatureValue>([^<]+)</.exec(samlResponse)?.[1]);
    const acs = await send('SAML ACS', 'ssoSamlAcs', {
      pathParameters: { connectionId: saml.id },
      headers: { 'content-type': FORM, ...samlJar.header() },
      body: new URLSearchParams({ SAMLResponse: encodeXml(samlResponse), RelayState: samlStart.relayState }).toString(),
    });
    expect(acs.status).toBe(200);
    // An IdP connection (docs/api.md 14.1): its client secret is stored sealed, never answered, logged or audited.
    const idpSecret = known('IdP client secret', passphrase());
    const connection = await send('IdP connection', 'adminCreateConnection', {
      token: adminToken,
      body: oidcConnection([`${tenantId}.example`], { clientSecret: idpSecret }),
    });
    expect(connection.status).toBe(201);
    const connectionId = String(connection.body.data.connection.id);
    const rotatedIdpSecret = known('rotated IdP client secret', passphrase());
    const changed = await send('IdP connection', 'adminUpdateConnection', {
      token: adminToken,
      pathParameters: { id: connectionId },
      body: { clientSecret: rotatedIdpSecret },
    });
    expect(changed.status).toBe(200);
    expect((await send('IdP connection', 'adminListConnections', { token: adminToken })).status).toBe(200);
    expect((await send('IdP connection', 'adminReadConnection', { token: adminToken, pathParameters: { id: connectionId } })).status).toBe(
      200,
    );
    expect((await send('IdP connection', 'adminListAudit', { token: adminToken, query: { limit: '100' } })).status).toBe(200);

    // Enterprise sign-in over OIDC (docs/api.md 14.4): the IdP's client secret (stored sealed) and
    // the IdP's authorization code (in the callback's query) stay out of answers, output and table.
    const oidcIdp = await startOidcIdp({ redirectUri: `${deps.config.issuer}/sso/oidc/callback` });
    try {
      const domain = await verifiedDomain(deps, tenantId);
      known('IdP client secret (the test IdP)', oidcIdp.clientSecret);
      const fedConnection = await storedOidcConnection(deps, tenantId, oidcIdp);
      oidcIdp.accounts.set('fed-secret', { email: `fed-secret@${domain}`, email_verified: true });
      const fedClient = await createClient(app, adminToken, tenantId, { scope: 'openid orders:read' });
      const jar = new CookieJar();
      await browserAuthorize(app, jar, fedClient);
      const begun = jar.take(
        await send('federated sign-in (OIDC)', 'ssoBegin', {
          method: 'GET',
          headers: jar.header(),
          query: { connection: fedConnection.id },
        }),
      );
      const back = await signInAt(new URL(begun.headers.Location ?? ''), 'fed-secret');
      known('IdP authorization code', back.searchParams.get('code') ?? undefined);
      const query = Object.fromEntries(back.searchParams);
      const answered = await send('federated sign-in (OIDC)', 'ssoOidcCallback', { method: 'GET', headers: jar.header(), query });
      expect(answered.status).toBe(200);
    } finally {
      await oidcIdp.close();
    }

    // The account page (docs/api.md 15.2): a TOTP key and recovery codes in their POST's own
    // page only, a new password sent by its form; never in a cookie, a redirect or the log.
    const accountPassword = known('account page user password', passphrase());
    await send('account page user', 'register', {
      token: adminToken,
      body: { username: 'page-user', password: accountPassword, role: 'OPERATOR', tenantId },
    });
    const pageOrigin = new URL(deps.config.issuer).origin;
    const { jar: pageJar, page: accountPage } = await signedInJar(app, pageOrigin, 'account', {
      tenantId,
      username: 'page-user',
      password: accountPassword,
    });
    const pageForm = (section: string, action: string, fields: Record<string, string> = {}) => ({
      method: 'POST',
      path: '/account/{section}/{action}',
      pathParameters: { section, action },
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: pageOrigin, ...pageJar.header() },
      body: new URLSearchParams({ csrf: csrfOf(accountPage), ...fields }).toString(),
    });
    const totpPage = await send('account page TOTP', 'accountAction', pageForm('security', 'totp'), (r) => [
      /id="totp-secret"[^>]*>([A-Z2-7]+)</.exec(String(r.body))?.[1],
    ]);
    const pageTotp = known('account page TOTP secret', /id="totp-secret"[^>]*>([A-Z2-7]+)</.exec(String(totpPage.body))?.[1]);
    const pageCode = authenticator(deps, pageTotp);
    expect(
      (await send('account page verify', 'accountAction', pageForm('security', 'verify', { method: 'TOTP', code: pageCode() }))).status,
    ).toBe(303);
    deps.clock.advance(30);
    await send(
      'account page confirm',
      'accountAction',
      pageForm('security', 'confirm', { password: accountPassword, method: 'TOTP', code: pageCode() }),
    );
    const codesPage = await send('account page recovery codes', 'accountAction', pageForm('security', 'recovery-codes'), (r) =>
      [...String(r.body).matchAll(/<li>([0-9A-Za-z-]{8,})<\/li>/g)].map((match) => match[1]),
    );
    for (const [index, match] of [...String(codesPage.body).matchAll(/<li>([0-9A-Za-z-]{8,})<\/li>/g)].entries())
      known(`account page recovery code ${index}`, match[1]);
    const newPagePassword = known('account page new password', passphrase());
    expect(
      (
        await send(
          'account page password',
          'accountAction',
          pageForm('password', 'change', { currentPassword: accountPassword, newPassword: newPagePassword }),
        )
      ).status,
    ).toBe(303);
    // The device authorization grant (docs/api.md 16.4): the device code is the device's alone;
    // the user code is shown on the device and its page, and stored as a hash only.
    const scanner = await createClient(app, adminToken, tenantId, { grantTypes: `${DEVICE_GRANT} refresh_token`, scope: 'orders:read' });
    const codes = await send(
      'device authorization',
      'oauth2DeviceAuthorization',
      form({ client_id: scanner.clientId, client_secret: scanner.clientSecret }),
      (r) => [r.body.device_code],
    );
    known('device code', codes.body.device_code);
    const userCode = String(codes.body.user_code);
    const deviceJar = new CookieJar();
    const signInPage = deviceJar.take(await send('device page', 'hostedDevicePage', { method: 'GET', query: { tenant: tenantId } }));
    await postForm(app, deviceJar, 'hostedSignIn', { csrf: csrfOf(signInPage), username: 'admin', password: adminPassword }, origin);
    const devicePage = await send('device page', 'hostedDevicePage', { method: 'GET', headers: deviceJar.header() });
    const allowed = await send('device page', 'hostedDeviceForm', {
      headers: { 'content-type': FORM, origin, ...deviceJar.header() },
      body: new URLSearchParams({ csrf: csrfOf(devicePage), user_code: userCode, decision: 'allow' }).toString(),
    });
    expect(allowed.status).toBe(303);
    const deviceTokens = await send(
      'token device_code',
      'oauth2Token',
      tokenRequest(scanner, { grant_type: DEVICE_GRANT, device_code: codes.body.device_code }),
      (r) => [r.body.access_token, r.body.refresh_token],
    );
    expect(deviceTokens.status).toBe(200);
    known('device OAuth refresh token', deviceTokens.body.refresh_token);
    const storedText = JSON.stringify(await scanTable(endpoint, identityTable));
    expect(storedText).not.toContain(userCode.replace('-', ''));
    expect(`${deps.logText()}\n${output.text()}`).not.toContain(userCode.replace('-', ''));

    expect([...flows]).toEqual(
      expect.arrayContaining([
        'IdP connection',
        'federated sign-in (OIDC)',
        'login',
        'register',
        'refresh',
        'logout',
        'me',
        'MFA enable TOTP',
        'MFA verify TOTP',
        'MFA login TOTP',
        'MFA recovery codes',
        'MFA login RECOVERY',
        'MFA enable SMS',
        'MFA verify SMS',
        'MFA login SMS',
        'MFA enable EMAIL',
        'MFA verify EMAIL',
        'MFA login EMAIL',
        'OAuth client creation',
        'authorize',
        'token authorization_code',
        'token refresh_token',
        'token client_credentials',
        'introspect',
        'revoke',
        'OAuth client list',
        'OAuth client read',
        'OAuth client change',
        'OAuth client secret rotation',
        'OAuth client deletion',
        'sessions',
        'grants',
        'account',
        'email set',
        'email verify',
        'password forgot',
        'password reset',
        'invitation',
        'invitation page',
        'invitation accept',
        'SCIM token',
        'SCIM user',
        'import',
        'login (imported hash)',
        'SAML ACS',
        'device authorization',
        'device page',
        'token device_code',
        'tenant console',
        'console',
      ]),
    );
  }, 60_000);

  it('finds none of them in any response but the one that issues it', () => {
    expect(seen.length).toBeGreaterThan(50);
    const leaks: string[] = [];
    for (const { label, response, issues } of seen) {
      // The TOTP enrollment answer may hold the secret in its otpauth URI only.
      const body = structuredClone(response.body);
      if (body?.data?.otpauthUri) body.data.otpauthUri = '[checked: the enrollment URI]';
      const text = JSON.stringify({ status: response.status, headers: response.headers, body });
      const allowed = secrets.filter((secret) => issues.some((issued) => issued === secret.value || issued.endsWith(`.${secret.value}`)));
      for (const found of secretsIn(
        text,
        secrets.filter((secret) => !allowed.includes(secret)),
      ))
        leaks.push(`${found} in ${label}`);
      // The search finds what is there: each issued secret in its own answer.
      const unseen = allowed.filter((secret) => secret.label !== 'TOTP secret' && !containsSecret(text, secret.value));
      expect(
        unseen.map((secret) => secret.label),
        label,
      ).toEqual([]);
    }
    expect(leaks).toEqual([]);
  });

  it('finds none of them in the output: the service log and anything else written to stdout, stderr or the console', () => {
    output.stop();
    const text = `${deps.logText()}\n${output.text()}`;
    expect(deps.logs.length).toBeGreaterThan(40);
    expect(secretsIn(text, secrets)).toEqual([]);
  });

  it('finds no client-secret hash in any response or in the output', () => {
    // Hashes are stored (the table holds them) but never answered or logged: a hash of a
    // machine-made secret with the pepper allows checking guesses offline.
    expect(storedHashes).toEqual([expect.stringMatching(/^hmac-sha256\$/), expect.stringMatching(/^hmac-sha256\$/)]);
    const macs = storedHashes.map((hash) => ({ label: 'client secret hash', value: hash.split('$').at(-1) ?? hash }));
    const answers = JSON.stringify(seen.map(({ response }) => ({ headers: response.headers, body: response.body })));
    expect(secretsIn(`${answers}\n${deps.logText()}\n${output.text()}`, macs)).toEqual([]);
    expect(answers).not.toMatch(/hmac-sha256|secretHash|secret_hash/i);
  });

  it('finds no imported password hash in any response, in the output, or in the table once signed in', async () => {
    const digests = importedHashes.map((hash) => ({ label: 'imported password hash', value: hash.slice(29) }));
    expect(digests.map((digest) => digest.value)).toEqual([expect.stringMatching(/^.{31}$/), expect.stringMatching(/^.{31}$/)]);
    const answers = JSON.stringify(seen.map(({ response }) => ({ headers: response.headers, body: response.body })));
    expect(secretsIn(`${answers}\n${deps.logText()}\n${output.text()}`, digests)).toEqual([]);
    // The first sign-in replaced the imported hash; the refused one was never stored; the audit trail holds neither.
    expect(secretsIn(JSON.stringify(await scanTable(endpoint, identityTable)), digests)).toEqual([]);
  });

  it('finds none of them in a scan of the whole table', async () => {
    const items = await scanTable(endpoint, identityTable);
    expect(items.length).toBeGreaterThan(20);
    // Sets (the recovery codes' digests) written out, not as `{}`.
    const text = JSON.stringify(items, (_, value) => (value instanceof Set ? [...value] : value));
    expect(text).toContain('"sk":"RECOVERY"');
    // The events' outbox items (docs/events.md) are in the scan: of users, clients, invitations, tokens.
    for (const type of ['identity.user.created', 'identity.client.secret_rotated', 'identity.scim_token.created'])
      expect(text).toContain(`"type":"${type}"`);
    expect(secretsIn(text, secrets)).toEqual([]);
    // The search itself finds what is there: the outbox (SNS/SES stand-in) holds the codes it delivered.
    const outbox = JSON.stringify(await scanTable(endpoint, outboxTable));
    expect(
      secrets
        .filter((secret) => secret.label.endsWith('login code') && !secret.label.startsWith('wrong'))
        .every((secret) => containsSecret(outbox, secret.value)),
    ).toBe(true);
  });

  it('searched for every kind of secret the issue names', () => {
    const kinds = [
      'password',
      'refresh token',
      'TOTP secret',
      'code',
      'recovery code',
      'client secret',
      'authorization code',
      'IdP authorization code',
      'PKCE verifier',
      'OAuth refresh token',
      'reset code',
      'verification code',
      'SCIM token',
      'IdP client secret',
      'federation cookie secret',
      'SAML RelayState',
      'device code',
    ];
    for (const kind of kinds)
      expect(
        secrets.some((secret) => secret.label.includes(kind)),
        kind,
      ).toBe(true);
    if (process.env.SHOW_COUNTS) console.log({ secretsSearched: secrets.length, responses: seen.length, logLines: deps.logs.length });
  });
});

/**
 * The audit trail (docs/api.md 9.8) of sign-ins with wrong and right passwords and MFA
 * codes, a password change and a refresh-token reuse: no password, code or token in any
 * stored event, nor in the trail's answers.
 */
describe('secrets in the audit trail', () => {
  const tableName = `secrets-audit-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
  });

  it('holds none in its events or its answers', async () => {
    const tenantId = uniqueTenant('secrets-audit');
    const secrets: KnownSecret[] = [];
    const known = (label: string, value: string | undefined) => {
      if (!value) throw new Error(`no value for ${label}`);
      secrets.push({ label, value });
      return value;
    };
    const password = known('password', passphrase());
    const admin = await app.request('register', { body: { username: 'admin', password, role: 'ADMIN', tenantId } });
    known('bootstrap refresh token', admin.body.data.refreshToken);
    const login = (body: Record<string, unknown>) => app.request('login', { body: { username: 'admin', tenantId, ...body } });
    for (let i = 0; i < 3; i++) expect((await login({ password: known(`wrong password ${i}`, passphrase()) })).status).toBe(401);
    const first = await login({ password });
    const token = known('access token', first.body.data.token);
    const totpSecret = known('TOTP secret', newTotpSecret());
    await app.request('enableMFA', { token, body: { method: 'TOTP', secret: totpSecret } });
    const code = authenticator(deps, totpSecret);
    expect((await app.request('verifyMFA', { token, body: { method: 'TOTP', code: known('TOTP code', code()) } })).status).toBe(200);
    deps.clock.advance(30);
    const wrong = known('wrong TOTP code', wrongCode(code()));
    expect((await login({ password, mfaCode: wrong, mfaMethod: 'TOTP' })).status).toBe(401);
    const right = await login({ password, mfaCode: known('right TOTP code', code()) });
    expect(right.status).toBe(200);
    const refreshToken = known('refresh token', right.body.data.refreshToken);
    known('MFA access token', right.body.data.token);
    expect((await app.request('refreshToken', { body: { refreshToken } })).status).toBe(200);
    expect((await app.request('refreshToken', { body: { refreshToken } })).status).toBe(401);
    const next = await login({ password, mfaCode: code(1) });
    const newPassword = known('new password', passphrase());
    await app.request('changePassword', {
      token: next.body.data.token,
      body: { currentPassword: known('wrong current', passphrase()), newPassword },
    });
    await app.request('changePassword', { token: next.body.data.token, body: { currentPassword: password, newPassword } });

    const items = (await scanTable(endpoint, tableName)).filter((item) => String(item.pk).includes('#AUDIT#'));
    expect(items.length).toBeGreaterThan(10);
    expect(secretsIn(JSON.stringify(items), secrets)).toEqual([]);
    const answer = await app.request('adminListAudit', { token: next.body.data.token, query: { limit: '100' } });
    expect(answer.body.data.events).toHaveLength(items.length);
    expect(secretsIn(JSON.stringify(answer.body), secrets)).toEqual([]);
  });
});
