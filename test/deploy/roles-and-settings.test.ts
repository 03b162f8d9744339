import { execFileSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config';
import { federationEndpoints } from '../../lib/federation/connection';
import { samlRequestId } from '../../lib/federation/saml-request';
import { consoleBrowser } from '../console/console-browser';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { softwareAuthenticator } from '../helpers/authenticator';
import { type AwsUsage, recordingDeps } from '../helpers/aws-usage';
import { openPage, postAction, signedInJar } from '../helpers/console';
import { type TestDeps, uniqueTenant } from '../helpers/deps';
import { DEVICE_GRANT, deviceBrowser, deviceCodes, pollToken, postDeviceForm } from '../helpers/device';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { dpopKey, dpopProof } from '../helpers/dpop';
import { connectionOf, oidcConnection, samlConnection, verifiedDomain } from '../helpers/federation-admin';
import { browserAuthorize, CookieJar, continueLocation, csrfOf, postForm } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { LAMBDA_SETTINGS } from '../helpers/lambda-env';
import { activateDelivered, activateTotp, authenticator, newTotpSecret } from '../helpers/mfa';
import {
  authorizationCode,
  createClient,
  FORM,
  form,
  grantTokens,
  newSecret,
  pkcePair,
  redeemCode,
  type TestClient,
  tokenRequest,
} from '../helpers/oauth';
import { signInAt, startOidcIdp, storedOidcConnection } from '../helpers/oidc-idp';
import { verifiedEmail } from '../helpers/recovery';
import { makeSamlIdp } from '../helpers/saml-idp';
import { postSamlResponse, samlConnectionOf } from '../helpers/saml-sign-in';
import { startWebhookReceiver } from '../helpers/webhook-receiver';

/**
 * What serverless.yml gives each function against what the function does: every route is
 * driven through its flows on DynamoDB Local with each AWS call and each configuration read
 * noted against the function at work (test/helpers/aws-usage.ts); then each function's
 * role (serverless-iam-roles-per-function) must grant every operation it made, and its
 * environment (provider.environment and its own) must hold every setting it read. A
 * function that would answer 500 in AWS for want of a permission, or quietly fall back to
 * a local default, fails here.
 */

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
interface PrintedFunction {
  environment?: Record<string, string>;
  iamRoleStatements?: Statement[];
  events?: Array<{ httpApi?: { method: string; path: string } }>;
}
interface Printed {
  provider: { environment: Record<string, string> };
  functions: Record<string, PrintedFunction>;
}

/** The configuration read by the functions and the variables it comes from (lib/config.ts). */
const SETTINGS: Record<string, string[]> = {
  issuer: ['ISSUER'],
  accessTokenAudience: ['ACCESS_TOKEN_AUDIENCE'],
  oauthDefaultAudience: ['OAUTH_DEFAULT_AUDIENCE'],
  accessTokenTtlSeconds: ['ACCESS_TOKEN_TTL_SECONDS'],
  sessionMaxAgeSeconds: ['SESSION_MAX_AGE_SECONDS'],
  reauthMaxAgeSeconds: ['REAUTH_MAX_AGE_SECONDS'],
  defaultTenantId: ['DEFAULT_TENANT_ID'],
  defaultShopId: ['DEFAULT_SHOP_ID'],
  tableName: ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'AWS_REGION'],
  dynamodbEndpoint: ['DYNAMODB_ENDPOINT'],
  awsRegion: ['AWS_REGION'],
  corsAllowedOrigins: ['CORS_ALLOWED_ORIGINS'],
  signingKeys: [
    'SIGNING_KEYS_SOURCE',
    'SIGNING_KEYS_SECRET_ID',
    'SIGNING_PUBLIC_KEYS_SECRET_ID',
    'SIGNING_KEYS_FILE',
    'SIGNING_PUBLIC_KEYS_FILE',
  ],
  logLevel: ['LOG_LEVEL'],
  oauthClientSecretPepper: ['OAUTH_CLIENT_SECRET_PEPPER', 'OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID', 'OAUTH_CLIENT_SECRET_PEPPER_FILE'],
  'mfa.delivery': ['MFA_DELIVERY', 'MFA_EMAIL_FROM'],
  'mfa.dataKeys': ['MFA_KEY_SOURCE', 'KMS_KEY_ID', 'MFA_KEY_FILE'],
  'mfa.totpIssuer': ['TOTP_ISSUER'],
  'mfa.smsCountries': ['MFA_SMS_COUNTRIES'],
  audit: ['AUDIT_SHARDS'],
  sendQuotas: [
    'SEND_QUOTA_PER_DESTINATION',
    'SEND_QUOTA_PER_USER',
    'SEND_QUOTA_PER_TENANT',
    'SEND_QUOTA_GLOBAL',
    'SEND_QUOTA_PER_NEW_TENANT',
    'SEND_QUOTA_NEW_TENANTS',
    'NOTIFY_QUOTA_PER_USER',
    'NOTIFY_QUOTA_PER_DESTINATION',
    'NOTIFY_QUOTA_GLOBAL',
    'INVITE_QUOTA_PER_TENANT',
  ],
  loginFailuresPerSource: ['LOGIN_FAILURES_PER_SOURCE'],
  clientAuthFailuresPerSource: ['CLIENT_AUTH_FAILURES_PER_SOURCE'],
  webauthn: ['WEBAUTHN_RP_ID', 'WEBAUTHN_ORIGINS', 'WEBAUTHN_RP_NAME'],
  dnsServers: ['DNS_SERVERS'],
  loopbackIdentityProviders: ['DYNAMODB_ENDPOINT'],
  dpopNonceRequired: ['DPOP_REQUIRE_NONCE'],
  events: ['EVENT_BUS_NAME', 'EVENTS_FILE', 'DELIVERY_QUEUE_URL'],
};
/** Variables that say where the code runs rather than configure it. */
const RUNTIME = ['AWS_LAMBDA_FUNCTION_NAME'];

/** A statement's resource as the operations name it (test/helpers/aws-usage.ts). */
function resourceName(resource: unknown): string {
  if (resource === '*') return '*';
  const value = resource as Record<string, unknown>;
  const getAtt = value['Fn::GetAtt'] as string[] | undefined;
  if (getAtt) return getAtt[0] === 'IdentityTable' ? 'table' : String(getAtt[0]);
  if (typeof value.Ref === 'string') return value.Ref;
  const sub = value['Fn::Sub'];
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation !Sub string, not a template
  if (sub === '${IdentityTable.Arn}/index/*') return 'index';
  if (typeof sub === 'string' && /:ses:.*:identity\//.test(sub)) return 'SesIdentity';
  return JSON.stringify(resource);
}

/** The role's grants as `action@resource`. */
function grantsOf(fn: PrintedFunction): Set<string> {
  return new Set(
    (fn.iamRoleStatements ?? [])
      .filter((statement) => statement.Effect === 'Allow')
      .flatMap((statement) =>
        [statement.Action].flat().flatMap((action) => [statement.Resource].flat().map((r) => `${action}@${resourceName(r)}`)),
      ),
  );
}

const granted = (grants: Set<string>, operation: string) => grants.has(operation) || grants.has(`${operation.split('@')[0]}@*`);

const PASSWORD = 'correct horse battery staple';

describe('each function’s role and settings in serverless.yml against what it does', () => {
  let printed: Printed;
  /** serverless.yml's function of each route key (`POST /auth/login`), and `authorizer`. */
  const functionOf = new Map<string, string>([['authorizer', 'authorizer']]);
  let usage: AwsUsage;
  let dns: TestDnsServer;
  let deps: TestDeps;
  let app: App;
  const byFunction = (of: Map<string, Set<string>>) => {
    const out = new Map<string, Set<string>>();
    for (const [at, seen] of of) {
      const fn = functionOf.get(at);
      if (!fn) throw new Error(`no function of serverless.yml serves ${at}`);
      out.set(fn, new Set([...(out.get(fn) ?? []), ...seen]));
    }
    return out;
  };

  beforeAll(async () => {
    const env = { ...process.env };
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) delete env[name];
    const output = execFileSync(process.execPath, ['node_modules/.bin/serverless', 'print', '--stage', 'prod', '--format', 'json'], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    printed = JSON.parse(output.slice(output.indexOf('{')));
    for (const [name, fn] of Object.entries(printed.functions)) {
      for (const event of fn.events ?? [])
        if (event.httpApi) functionOf.set(`${event.httpApi.method.toUpperCase()} ${event.httpApi.path}`, name);
    }

    // Domain verification (docs/api.md 14.2) asks a DNS server of the test's.
    dns = await startDnsServer();
    const recording = await recordingDeps({ DNS_SERVERS: dns.address });
    usage = recording.usage;
    deps = recording;
    app = testApp(deps);
    await driveEveryRoute(app, deps, dns).catch((error: unknown) => {
      // What the functions logged of a failure says more than its status.
      console.error(deps.logs.filter((line) => line.level === 'error').slice(0, 3));
      throw error;
    });
  }, 240_000);
  afterAll(() => dns?.close());

  it('grants each function every AWS operation it performs', () => {
    const missing: string[] = [];
    for (const [fn, operations] of byFunction(usage.operations)) {
      const grants = grantsOf(printed.functions[fn] ?? {});
      for (const operation of operations) if (!granted(grants, operation)) missing.push(`${fn}: ${operation}`);
    }
    expect(missing).toEqual([]);
  });

  it('exercises every function with a route, and reports the grants no flow used', () => {
    const used = byFunction(usage.operations);
    const routed = Object.entries(printed.functions).filter(([, fn]) => (fn.events ?? []).some((event) => event.httpApi));
    const idle = routed.map(([name]) => name).filter((name) => !byFunction(usage.config).has(name) && !used.has(name));
    expect(idle).toEqual([]);
    const unused: string[] = [];
    for (const [name, fn] of [...routed, ['authorizer', printed.functions.authorizer ?? {}] as const]) {
      const operations = [...(used.get(name) ?? [])];
      for (const grant of grantsOf(fn)) {
        const [action, resource] = grant.split('@');
        const hit = operations.some((op) => (resource === '*' ? op.split('@')[0] === action : op === grant));
        if (!hit && !action?.startsWith('logs:')) unused.push(`${name}: ${grant}`);
      }
    }
    // A report, not a failure: a grant may serve a path no flow here takes.
    if (unused.length > 0) console.info(`Grants no flow used (${unused.length}):\n  ${unused.join('\n  ')}`);
    expect(routed.length).toBeGreaterThan(50);
  });

  it('gives each function every setting it reads that serverless.yml configures anywhere', () => {
    const configured = new Set([
      ...Object.keys(printed.provider.environment),
      ...Object.values(printed.functions).flatMap((fn) => Object.keys(fn.environment ?? {})),
    ]);
    const missing: string[] = [];
    for (const [fn, paths] of byFunction(usage.config)) {
      const given = new Set([...Object.keys(printed.provider.environment), ...Object.keys(printed.functions[fn]?.environment ?? {})]);
      for (const path of paths) {
        const variables = SETTINGS[path];
        if (!variables) {
          missing.push(`${fn}: ${path} is read but test/deploy/roles-and-settings.test.ts does not know its variables`);
          continue;
        }
        for (const variable of variables)
          if (configured.has(variable) && !given.has(variable)) missing.push(`${fn}: ${variable} (${path})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('knows every variable lib/config.ts reads', () => {
    const read = new Set<string>();
    const watching = (env: Record<string, string>) =>
      new Proxy(env, {
        get(target, name) {
          if (typeof name === 'string') read.add(name);
          return Reflect.get(target, name);
        },
      });
    readConfig(watching({}));
    readConfig(
      watching({
        ...LAMBDA_SETTINGS,
        AWS_LAMBDA_FUNCTION_NAME: 'f',
        OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID: 'p',
        MFA_DELIVERY: 'aws',
        MFA_EMAIL_FROM: 'a@example.com',
        MFA_KEY_SOURCE: 'kms',
        KMS_KEY_ID: 'k',
      }),
    );
    const known = new Set([...Object.values(SETTINGS).flat(), ...RUNTIME]);
    expect([...read].filter((name) => !known.has(name))).toEqual([]);
    expect([...known].filter((name) => !read.has(name))).toEqual([]);
  });
});

/** Every route of the service, through flows as callers run them (the answers checked on the way). */
async function driveEveryRoute(app: App, deps: TestDeps, dns: TestDnsServer) {
  const expectStatus = (response: Response, status: number, what: string) => {
    expect(response.status, `${what}: ${String(JSON.stringify(response.body)).slice(0, 300)}`).toBe(status);
    return response;
  };
  const tenantId = uniqueTenant('roles');
  const issuerOrigin = new URL(deps.config.issuer).origin;
  const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
  let adminToken = admin.token;
  let serial = 0;
  const newUser = async (role = 'OPERATOR') => {
    const username = `user-${serial++}`;
    const session = await registerStaff(app, adminToken, { username, password: PASSWORD, role, tenantId });
    return {
      username,
      token: session.token,
      refreshToken: session.refreshToken,
      userId: session.user.id,
      deviceToken: session.deviceToken,
    };
  };
  const signIn = async (username: string, extra: Record<string, string> = {}) =>
    expectStatus(await app.request('login', { body: { username, password: PASSWORD, tenantId, ...extra } }), 200, 'login').body.data;

  // Sessions: login (with a device token, a wrong password), refresh (and a reused token), logout, me, jwks.
  const alice = await newUser();
  await signIn(alice.username);
  await app.request('login', {
    body: { username: alice.username, password: PASSWORD, tenantId },
    headers: { 'x-device-token': alice.deviceToken },
  });
  expectStatus(
    await app.request('login', { body: { username: alice.username, password: 'wrong password', tenantId } }),
    401,
    'wrong password',
  );
  const refreshed = expectStatus(await app.request('refreshToken', { body: { refreshToken: alice.refreshToken } }), 200, 'refresh');
  expectStatus(await app.request('refreshToken', { body: { refreshToken: alice.refreshToken } }), 401, 'reused refresh token');
  const bob = await newUser();
  expectStatus(await app.request('me', { token: bob.token }), 200, 'me');
  expectStatus(await app.request('logout', { token: bob.token }), 200, 'logout');
  expectStatus(await app.request('jwks'), 200, 'jwks');
  expect(refreshed.body.data.refreshToken).toBeDefined();

  // Email, MFA and their notifications; the second factor at login and reauthentication.
  const carol = await newUser();
  await verifiedEmail(app, deps, carol.token, tenantId, carol.userId, 'carol@example.com');
  const { code } = await activateTotp(app, deps, carol.token);
  const carolOtp = (await signIn(carol.username, { mfaCode: code() })).token as string;
  expectStatus(
    await app.request('reauthenticate', { token: carolOtp, body: { password: PASSWORD, mfaCode: code(1) } }),
    200,
    'reauthenticate',
  );
  await activateDelivered(app, deps, carolOtp, carol.userId, 'SMS', '+15550001234');
  expectStatus(
    await app.request('login', { body: { username: carol.username, password: PASSWORD, tenantId, mfaMethod: 'SMS' } }),
    401,
    'SMS code',
  );
  const codes = expectStatus(await app.request('generateRecoveryCodes', { token: carolOtp }), 200, 'recovery codes').body.data
    .codes as string[];
  await signIn(carol.username, { mfaMethod: 'RECOVERY', mfaCode: String(codes[0]) });
  expectStatus(await app.request('listMFA', { token: carolOtp }), 200, 'list MFA');
  expectStatus(await app.request('disableMFA', { token: carolOtp, body: { method: 'SMS' } }), 200, 'disable SMS');
  expectStatus(await app.request('disableMFA', { token: carolOtp, body: { method: 'TOTP' } }), 200, 'disable the last method');
  expectStatus(
    await app.request('enableMFA', { token: carolOtp, body: { method: 'EMAIL', secret: 'carol@example.com' } }),
    200,
    'enable EMAIL',
  );
  expectStatus(
    await app.request('changePassword', { token: carolOtp, body: { currentPassword: PASSWORD, newPassword: `${PASSWORD} changed` } }),
    200,
    'password change',
  );

  // The forgotten password (by email), then its reset; an SMS-only account gets its code by SMS.
  const dave = await newUser();
  await verifiedEmail(app, deps, dave.token, tenantId, dave.userId, 'dave@example.com');
  expectStatus(await app.request('passwordForgot', { body: { username: dave.username, tenantId } }), 202, 'forgot');
  const reset = await deps.outbox.latest(tenantId, dave.userId, 'EMAIL', 'reset');
  expectStatus(
    await app.request('passwordReset', {
      body: { username: dave.username, tenantId, code: reset?.code, newPassword: `${PASSWORD} reset` },
    }),
    200,
    'reset',
  );
  const erin = await newUser();
  // TOTP first, then SMS from a session that passed it (a second method asks for one).
  const erinTotp = await activateTotp(app, deps, erin.token);
  const erinOtp = await signIn(erin.username, { mfaCode: erinTotp.code() });
  await activateDelivered(app, deps, erinOtp.token, erin.userId, 'SMS', '+15550005678');
  deps.clock.advance(30);
  expectStatus(await app.request('passwordForgot', { body: { username: erin.username, tenantId } }), 202, 'forgot by SMS');
  const smsReset = await deps.outbox.latest(tenantId, erin.userId, 'SMS', 'reset');
  const erinReset = { username: erin.username, tenantId, code: smsReset?.code, newPassword: `${PASSWORD} reset` };
  expectStatus(await app.request('passwordReset', { body: erinReset }), 401, 'reset asking for the second factor');
  // With it (not the SMS that carried the code): checked as at login, its budget cleared.
  expectStatus(
    await app.request('passwordReset', { body: { ...erinReset, mfaMethod: 'TOTP', mfaCode: erinTotp.code() } }),
    200,
    'reset with the second factor',
  );

  // Sessions and grants of the signed-in user; the account page.
  const frank = await newUser();
  const other = await signIn(frank.username);
  expectStatus(await app.request('listSessions', { token: frank.token }), 200, 'list sessions');
  expectStatus(
    await app.request('revokeSession', { token: frank.token, pathParameters: { sessionId: String(decodeJwt(other.token).sid) } }),
    200,
    'revoke session',
  );
  await signIn(frank.username);
  expectStatus(await app.request('revokeOtherSessions', { token: frank.token }), 200, 'revoke other sessions');
  expectStatus(await app.request('getAccount', { token: frank.token }), 200, 'account');

  // OAuth: clients, the code flow, tokens, introspection, revocation, userinfo, metadata.
  adminToken = (await signIn('admin')).token;
  const client = await createClient(app, adminToken, tenantId, { scope: 'openid profile orders:read' });
  const tokens = await grantTokens(app, frank.token, client);
  expectStatus(await app.request('listGrants', { token: frank.token }), 200, 'list grants');
  expectStatus(
    await app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })),
    200,
    'refresh grant',
  );
  expectStatus(
    await app.request('oauth2Token', tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })),
    400,
    'reused grant',
  );
  expectStatus(await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials' })), 200, 'client credentials');
  const issued = await authorizationCode(app, frank.token, client, { scope: 'openid profile' });
  const redeem = () => redeemCode(app, client, issued);
  const openid = expectStatus(await redeem(), 200, 'code').body;
  const bearer = { authorization: `Bearer ${openid.access_token}` };
  expectStatus(await app.request('userInfo', { headers: bearer }), 200, 'userinfo');
  expectStatus(await app.request('userInfo', { method: 'POST', headers: bearer }), 200, 'userinfo by POST');
  // DPoP (docs/api.md 16.3): a bound token, its proof's jti recorded at the token endpoint and at userinfo.
  const key = await dpopKey();
  const at = (path: string) => ({ htu: `${deps.config.issuer}${path}`, iat: Math.floor(deps.clock.now() / 1000) });
  const boundCode = await authorizationCode(app, frank.token, client, { scope: 'openid' });
  const boundForm = tokenRequest(client, {
    grant_type: 'authorization_code',
    code: boundCode.code,
    redirect_uri: client.redirectUri,
    code_verifier: boundCode.verifier,
  });
  const tokenProof = await dpopProof(key, at('/oauth2/token'));
  const bound = expectStatus(
    await app.request('oauth2Token', { ...boundForm, headers: { ...boundForm.headers, dpop: tokenProof } }),
    200,
    'DPoP code',
  );
  const userinfoProof = await dpopProof(key, { ...at('/oauth2/userinfo'), htm: 'GET', accessToken: bound.body.access_token });
  const dpopHeaders = { authorization: `DPoP ${bound.body.access_token}`, dpop: userinfoProof };
  expectStatus(await app.request('userInfo', { headers: dpopHeaders }), 200, 'userinfo with DPoP');
  // A code presented twice revokes what it gave (docs/api.md 4.7).
  expectStatus(await redeem(), 400, 'reused code');
  const fresh = await grantTokens(app, frank.token, client);
  expectStatus(await app.request('introspect', tokenRequest(client, { token: fresh.refresh_token })), 200, 'introspect');
  expectStatus(await app.request('introspect', tokenRequest(client, { token: fresh.access_token })), 200, 'introspect an access token');
  expectStatus(
    await app.request('introspect', {
      ...tokenRequest(client, { token: 'x' }),
      body: 'client_id=nobody&client_secret=wrong&token=x',
    }),
    401,
    'unknown client',
  );
  const grantId = String(fresh.refresh_token).split('.')[0] ?? '';
  expectStatus(await app.request('revokeGrant', { token: frank.token, pathParameters: { grantId } }), 200, 'revoke grant');
  const revocable = await grantTokens(app, frank.token, client);
  expectStatus(await app.request('revoke', tokenRequest(client, { token: revocable.refresh_token })), 200, 'revoke');
  expectStatus(await app.request('metadata'), 200, 'metadata');
  expectStatus(await app.request('openIdConfiguration'), 200, 'openid configuration');
  const clientPath = { clientId: client.clientId };
  expectStatus(await app.request('listOAuth2Clients', { token: adminToken }), 200, 'list clients');
  expectStatus(await app.request('readOAuth2Client', { token: adminToken, pathParameters: clientPath }), 200, 'read client');
  expectStatus(
    await app.request('updateOAuth2Client', { token: adminToken, pathParameters: clientPath, body: { client_name: 'Renamed' } }),
    200,
    'update client',
  );
  expectStatus(
    await app.request('rotateOAuth2ClientSecret', {
      token: adminToken,
      pathParameters: clientPath,
      body: { client_secret: newSecret() },
    }),
    200,
    'rotate secret',
  );
  const spare: TestClient = await createClient(app, adminToken, tenantId);
  expectStatus(
    await app.request('deleteOAuth2Client', { token: adminToken, pathParameters: { clientId: spare.clientId } }),
    200,
    'delete client',
  );

  // Public clients (docs/api.md 16.1) and per-client CORS (16.2): a single-page app on its own origin.
  const spaOrigin = 'https://spa.roles.example';
  const spaCreated = await app.request('createOAuth2Client', {
    token: adminToken,
    body: {
      client_id: `spa-${tenantId}`,
      token_endpoint_auth_method: 'none',
      redirect_uri: `${spaOrigin}/callback`,
      grant_types: 'authorization_code refresh_token',
      scope: 'openid profile',
      tenant_id: tenantId,
      allowed_origins: `${spaOrigin} https://other.roles.example`,
    },
  });
  const spa: TestClient = { clientId: `spa-${tenantId}`, clientSecret: '', redirectUri: `${spaOrigin}/callback`, tenantId };
  expectStatus(spaCreated, 201, 'create public client');
  const spaPkce = pkcePair();
  const byPost = await app.request('oauth2Authorize', {
    method: 'POST',
    token: frank.token,
    ...form({
      response_type: 'code',
      client_id: spa.clientId,
      redirect_uri: spa.redirectUri,
      scope: 'openid profile',
      code_challenge: spaPkce.challenge,
      code_challenge_method: 'S256',
    }),
  });
  const spaCode = new URL(expectStatus(byPost, 302, 'authorize by POST').headers.Location ?? '').searchParams.get('code') ?? '';
  const fromSpa = { ...form({}).headers, origin: spaOrigin };
  const spaTokens = expectStatus(
    await app.request('oauth2Token', {
      body: form({
        grant_type: 'authorization_code',
        client_id: spa.clientId,
        code: spaCode,
        redirect_uri: spa.redirectUri,
        code_verifier: spaPkce.verifier,
      }).body,
      headers: fromSpa,
    }),
    200,
    'public client code',
  ).body;
  expectStatus(
    await app.request('userInfo', { headers: { authorization: `Bearer ${spaTokens.access_token}`, origin: spaOrigin } }),
    200,
    'userinfo from a client origin',
  );
  expectStatus(
    await app.request('revoke', { body: form({ client_id: spa.clientId, token: spaTokens.refresh_token }).body, headers: fromSpa }),
    200,
    'revoke by a public client',
  );
  const corsPreflight = (path: string) =>
    app.request('corsPreflight', { method: 'OPTIONS', pathParameters: { proxy: path }, headers: { origin: spaOrigin } });
  expectStatus(await corsPreflight('oauth2/token'), 204, 'preflight per client');
  expectStatus(await corsPreflight('auth/login'), 204, 'preflight first-party');
  expectStatus(
    await app.request('updateOAuth2Client', {
      token: adminToken,
      pathParameters: { clientId: spa.clientId },
      body: { allowed_origins: spaOrigin },
    }),
    200,
    'update allowed origins',
  );
  expectStatus(
    await app.request('deleteOAuth2Client', { token: adminToken, pathParameters: { clientId: spa.clientId } }),
    200,
    'delete public client',
  );

  // Tenant administration: users, shops, the tenant, the audit trail.
  const grace = await newUser();
  // A user who enrolled a method: the list reads it by key (docs/decisions/027-bounded-admin-lists.md).
  expectStatus(
    await app.request('enableMFA', { token: grace.token, body: { method: 'TOTP', secret: newTotpSecret() } }),
    200,
    'enroll a method to be listed',
  );
  expectStatus(await app.request('adminListUsers', { token: adminToken, query: { limit: '100' } }), 200, 'list users');
  expectStatus(await app.request('adminReadUser', { token: adminToken, pathParameters: { userId: grace.userId } }), 200, 'read user');
  expectStatus(
    await app.request('adminUpdateUser', { token: adminToken, pathParameters: { userId: grace.userId }, body: { role: 'ANALYST' } }),
    200,
    'update user',
  );
  expectStatus(
    await app.request('adminSignOutUser', { token: adminToken, pathParameters: { userId: grace.userId } }),
    200,
    'sign out user',
  );
  expectStatus(await app.request('adminDeleteUser', { token: adminToken, pathParameters: { userId: grace.userId } }), 200, 'delete user');
  expectStatus(
    await app.request('adminCreateShop', { token: adminToken, body: { shopId: 'shop-roles', name: 'A shop' } }),
    201,
    'create shop',
  );
  expectStatus(await app.request('adminListShops', { token: adminToken }), 200, 'list shops');
  // An import (docs/api.md 13.2) into that shop, a row refused, a re-run; the first sign-in replaces the imported hash.
  const importedHash = bcrypt.hashSync('an imported passphrase', 4);
  const rows = [
    { username: 'imported-roles', role: 'ANALYST', shopId: 'shop-roles', email: 'imported@example.com', passwordHash: importedHash },
    { username: 'imported-elsewhere', role: 'ANALYST', shopId: 'no-such-shop' },
  ];
  const imported = await app.request('adminImportUsers', { token: adminToken, body: { users: rows } });
  expectStatus(imported, 200, 'import users');
  expect(imported.body.data).toEqual({ imported: 1, failed: [{ index: 1, error: 'Unknown shop' }] });
  expectStatus(await app.request('adminImportUsers', { token: adminToken, body: { users: rows } }), 200, 'import users again');
  expectStatus(
    await app.request('login', { body: { username: 'imported-roles', password: 'an imported passphrase', tenantId } }),
    200,
    'login with an imported hash',
  );
  expectStatus(await app.request('adminReadTenant', { token: adminToken }), 200, 'read tenant');
  expectStatus(await app.request('adminUpdateTenant', { token: adminToken, body: { displayName: 'Roles Ltd' } }), 200, 'update tenant');
  expectStatus(await app.request('adminListAudit', { token: adminToken, query: { limit: '5' } }), 200, 'audit');
  expectStatus(
    await app.request('adminListAudit', { token: adminToken, query: { limit: '5', userId: frank.userId } }),
    200,
    'audit of a user',
  );

  // SCIM provisioning (docs/api.md 13.3): tokens, users, groups, discovery.
  const scimCreated = await app.request('adminCreateScimToken', { token: adminToken, body: { name: 'Okta' } });
  expectStatus(scimCreated, 201, 'create SCIM token');
  expectStatus(await app.request('adminListScimTokens', { token: adminToken }), 200, 'list SCIM tokens');
  const scimHeaders = { authorization: `Bearer ${scimCreated.body.data.token}`, 'content-type': 'application/scim+json' };
  const scimUser = await app.request('scimCreateUser', {
    headers: scimHeaders,
    body: { userName: 'scim-roles', externalId: 'ext-roles', emails: [{ value: 'scim-roles@example.com', primary: true }] },
  });
  expectStatus(scimUser, 201, 'SCIM create user');
  const scimPath = { userId: scimUser.body.id };
  for (const filter of ['userName eq "scim-roles"', 'externalId eq "ext-roles"', 'emails.value eq "scim-roles@example.com"', undefined]) {
    expectStatus(await app.request('scimListUsers', { headers: scimHeaders, query: filter ? { filter } : {} }), 200, 'SCIM list users');
  }
  expectStatus(await app.request('scimReadUser', { headers: scimHeaders, pathParameters: scimPath }), 200, 'SCIM read user');
  expectStatus(
    await app.request('scimReplaceUser', {
      headers: scimHeaders,
      pathParameters: scimPath,
      body: { userName: 'scim-roles', externalId: 'ext-2' },
    }),
    200,
    'SCIM replace user',
  );
  const scimPatch = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] };
  expectStatus(
    await app.request('scimPatchUser', {
      headers: scimHeaders,
      pathParameters: scimPath,
      body: { ...scimPatch, Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
    }),
    200,
    'SCIM patch user',
  );
  expectStatus(await app.request('scimListGroups', { headers: scimHeaders }), 200, 'SCIM list groups');
  expectStatus(
    await app.request('scimPatchGroup', {
      headers: scimHeaders,
      pathParameters: { groupId: 'MANAGER' },
      body: { ...scimPatch, Operations: [{ op: 'add', path: 'members', value: [{ value: scimUser.body.id }] }] },
    }),
    204,
    'SCIM patch group',
  );
  expectStatus(
    await app.request('scimReadGroup', { headers: scimHeaders, pathParameters: { groupId: 'MANAGER' } }),
    200,
    'SCIM read group',
  );
  expectStatus(
    await app.request('scimFixedGroups', { method: 'POST', headers: scimHeaders, body: { displayName: 'X' } }),
    403,
    'SCIM new group',
  );
  expectStatus(await app.request('scimDeleteUser', { headers: scimHeaders, pathParameters: scimPath }), 204, 'SCIM delete user');
  for (const name of ['scimServiceProviderConfig', 'scimResourceTypes', 'scimSchemas']) expectStatus(await app.request(name), 200, name);
  expectStatus(
    await app.request('adminDeleteScimToken', { token: adminToken, pathParameters: { tokenId: scimCreated.body.data.scimToken.id } }),
    200,
    'delete SCIM token',
  );

  // Webhooks (docs/api.md 17.2): a receiver on a loopback port, allowed against DynamoDB Local.
  const receiver = await startWebhookReceiver();
  try {
    const webhook = await app.request('adminCreateWebhook', {
      token: adminToken,
      body: { url: `${receiver.origin}/roles`, events: ['identity.user.created'] },
    });
    expectStatus(webhook, 201, 'create webhook');
    const webhookPath = { webhookId: webhook.body.data.webhook.id };
    expectStatus(await app.request('adminListWebhooks', { token: adminToken }), 200, 'list webhooks');
    expectStatus(await app.request('adminReadWebhook', { token: adminToken, pathParameters: webhookPath }), 200, 'read webhook');
    expectStatus(
      await app.request('adminUpdateWebhook', { token: adminToken, pathParameters: webhookPath, body: { description: 'Roles' } }),
      200,
      'update webhook',
    );
    expectStatus(await app.request('adminTestWebhook', { token: adminToken, pathParameters: webhookPath }), 200, 'test webhook');
    expectStatus(
      await app.request('adminListWebhookDeliveries', { token: adminToken, pathParameters: webhookPath }),
      200,
      'webhook deliveries',
    );
    expectStatus(await app.request('adminDeleteWebhook', { token: adminToken, pathParameters: webhookPath }), 200, 'delete webhook');
  } finally {
    await receiver.close();
  }

  // Passkeys: registration, listing, sign-in, removal; an ADMIN's MFA reset erases them.
  const heidi = await newUser();
  const heidiKeys = softwareAuthenticator();
  const creation = expectStatus(await app.request('passkeyRegistrationOptions', { token: heidi.token, body: {} }), 200, 'creation options')
    .body.data.options;
  const registered = expectStatus(
    await app.request('passkeyRegistration', { token: heidi.token, body: { credential: heidiKeys.create(creation).response } }),
    201,
    'passkey registration',
  );
  expectStatus(await app.request('listPasskeys', { token: heidi.token }), 200, 'list passkeys');
  const request = expectStatus(
    await app.request('passkeyAuthenticationOptions', { body: { tenantId, username: heidi.username } }),
    200,
    'request options',
  ).body.data.options;
  expectStatus(
    await app.request('passkeyAuthentication', { body: { tenantId, credential: heidiKeys.get(request) } }),
    200,
    'passkey sign-in',
  );
  expectStatus(
    await app.request('removePasskey', { token: heidi.token, pathParameters: { id: registered.body.data.passkey.id } }),
    200,
    'remove passkey',
  );
  const second = expectStatus(await app.request('passkeyRegistrationOptions', { token: heidi.token, body: {} }), 200, 'creation options')
    .body.data.options;
  await app.request('passkeyRegistration', { token: heidi.token, body: { credential: heidiKeys.create(second).response } });
  expectStatus(await app.request('adminResetUserMfa', { token: adminToken, pathParameters: { userId: heidi.userId } }), 200, 'MFA reset');

  // The tenant console's shops, OAuth clients, connections and domains, SCIM tokens
  // (docs/api.md 15.3.5-15.3.8): every action through the console's functions.
  {
    const signedIn = await signedInJar(app, issuerOrigin, 'admin', { tenantId, username: 'admin', password: PASSWORD });
    const consoleJar = signedIn.jar;
    const consoleCsrf = csrfOf(signedIn.page);
    const at = async (section: string, query: Record<string, string> = {}) =>
      expectStatus(await openPage(app, consoleJar, 'admin', { section, query }), 200, `console ${section} page`);
    const act = async (section: string, action: string, fields: Record<string, string>, status = 303) =>
      expectStatus(
        await postAction(app, consoleJar, 'admin', { section, action }, { csrf: consoleCsrf, ...fields }, issuerOrigin),
        status,
        `console ${section}/${action}`,
      );
    await at('shops');
    await act('shops', 'create', { shopId: 'console-shop', name: 'Console shop' });
    await at('clients');
    const grants = { 'grant_types:client_credentials': 'on', scope: 'orders:read' };
    await act('clients', 'create', { client_id: 'console-app', redirect_uri: 'https://app.example.com/cb', ...grants }, 200);
    await at('clients', { client: 'console-app' });
    await act('clients', 'update', {
      clientId: 'console-app',
      redirect_uri: 'https://app.example.com/cb',
      client_name: 'Console',
      ...grants,
    });
    await act('clients', 'rotate', { clientId: 'console-app', previous_secret_expires_in: '0' }, 200);
    await act('clients', 'delete', { clientId: 'console-app' });
    const consoleDomain = `console.${tenantId}.example`;
    const added = await act('connections', 'add-domain', { domain: consoleDomain });
    expect(added.headers.Location).toBe('/admin/console/connections');
    const listed = await at('connections');
    dns.txt.set(`_identity-verification.${consoleDomain}`, [
      /<code>(identity-verification=[^<]+)<\/code>/.exec(String(listed.body))?.[1] ?? '',
    ]);
    await act('connections', 'verify-domain', { domain: consoleDomain });
    const oidcFields = {
      name: 'Console Okta',
      issuer: 'https://acme.okta.example',
      clientId: '0oa1',
      domains: consoleDomain,
      defaultRole: 'ANALYST',
    };
    const created = await act('connections', 'create-oidc', { ...oidcFields, clientSecret: 'console okta secret' });
    const consoleOidc = new URL(created.headers.Location ?? '', issuerOrigin).searchParams.get('connection') ?? '';
    await at('connections', { connection: consoleOidc });
    await act('connections', 'update', {
      id: consoleOidc,
      type: 'oidc',
      ...oidcFields,
      scopes: 'openid email',
      clientSecret: 'a new console secret',
    });
    await act('connections', 'disable', { id: consoleOidc });
    await act('connections', 'enable', { id: consoleOidc });
    const saml = await samlConnection([consoleDomain]);
    const consoleSaml = await act('connections', 'create-saml', {
      name: 'Console Entra',
      metadataXml: saml.metadataXml,
      domains: consoleDomain,
      defaultRole: 'ANALYST',
    });
    await act('connections', 'delete', {
      id: new URL(consoleSaml.headers.Location ?? '', issuerOrigin).searchParams.get('connection') ?? '',
    });
    await act('connections', 'delete', { id: consoleOidc });
    await act('connections', 'delete-domain', { domain: consoleDomain });
    await at('scim-tokens');
    await act('scim-tokens', 'create', { name: 'Console Okta' }, 200);
    const tokens = await app.request('adminListScimTokens', { token: adminToken });
    const consoleToken = tokens.body.data.scimTokens.find((token: { name: string }) => token.name === 'Console Okta');
    await act('scim-tokens', 'delete', { id: consoleToken.id });
  }

  // The hosted pages: sign-in, the second factor, consent, passkeys, RP-initiated logout.
  const ivan = await newUser();
  const jar = new CookieJar();
  const signInPage = await browserAuthorize(app, jar, client);
  expectStatus(signInPage.response, 200, 'sign-in page');
  // A wrong password shows the sign-in page again, its passkey button with it.
  expectStatus(
    await postForm(app, jar, 'hostedSignIn', { csrf: signInPage.csrf, username: ivan.username, password: 'wrong password' }, issuerOrigin),
    401,
    'hosted sign-in with a wrong password',
  );
  expectStatus(
    await postForm(app, jar, 'hostedSignIn', { csrf: signInPage.csrf, username: ivan.username, password: PASSWORD }, issuerOrigin),
    200,
    'hosted sign-in',
  );
  expectStatus(await postForm(app, jar, 'hostedConsent', { csrf: signInPage.csrf, decision: 'allow' }, issuerOrigin), 303, 'consent');
  const passkeysPage = expectStatus(await app.request('hostedPasskeysPage', { headers: jar.header() }), 200, 'passkeys page');
  const options = JSON.parse(unescapeHtml(/data-options="([^"]*)"/.exec(String(passkeysPage.body))?.[1] ?? '{}'));
  const ivanKeys = softwareAuthenticator();
  expectStatus(
    jar.take(
      await app.request('hostedPasskeyRegister', {
        headers: { 'content-type': FORM, origin: issuerOrigin, ...jar.header() },
        body: new URLSearchParams({ csrf: csrfOf(passkeysPage), credential: JSON.stringify(ivanKeys.create(options).response) }).toString(),
      }),
    ),
    303,
    'hosted passkey registration',
  );
  const passkeyJar = new CookieJar();
  const passkeySignInPage = await browserAuthorize(app, passkeyJar, client);
  const getOptions = JSON.parse(unescapeHtml(/data-options="([^"]*)"/.exec(String(passkeySignInPage.response.body))?.[1] ?? '{}'));
  expectStatus(
    passkeyJar.take(
      await app.request('hostedPasskeySignIn', {
        headers: { 'content-type': FORM, origin: issuerOrigin, ...passkeyJar.header() },
        body: new URLSearchParams({ csrf: passkeySignInPage.csrf, credential: JSON.stringify(ivanKeys.get(getOptions)) }).toString(),
      }),
    ),
    200,
    'hosted passkey sign-in',
  );
  const asked = expectStatus(await app.request('oauth2Logout', { method: 'GET', headers: jar.header(), query: {} }), 200, 'logout page');
  expectStatus(
    await app.request('oauth2Logout', {
      method: 'POST',
      headers: { 'content-type': FORM, origin: issuerOrigin, ...jar.header() },
      body: new URLSearchParams({ csrf: csrfOf(asked) }).toString(),
    }),
    200,
    'logout',
  );
  // A TOTP user through the hosted second factor; an SMS user gets a code sent.
  const judy = await newUser();
  const secret = newTotpSecret();
  await activateTotp(app, deps, judy.token, secret);
  const judyJar = new CookieJar();
  const judyPage = await browserAuthorize(app, judyJar, client);
  const factorPage = await postForm(
    app,
    judyJar,
    'hostedSignIn',
    { csrf: judyPage.csrf, username: judy.username, password: PASSWORD },
    issuerOrigin,
  );
  expectStatus(factorPage, 200, 'second-factor page');
  const totp = authenticator(deps, secret);
  expectStatus(
    await postForm(
      app,
      judyJar,
      'hostedSecondFactor',
      { csrf: csrfOf(factorPage) || judyPage.csrf, method: 'TOTP', code: totp() },
      issuerOrigin,
    ),
    200,
    'hosted second factor',
  );
  const kim = await newUser();
  await activateDelivered(app, deps, kim.token, kim.userId, 'SMS', '+15550009999');
  const kimJar = new CookieJar();
  const kimPage = await browserAuthorize(app, kimJar, client);
  const kimFactor = await postForm(
    app,
    kimJar,
    'hostedSignIn',
    { csrf: kimPage.csrf, username: kim.username, password: PASSWORD },
    issuerOrigin,
  );
  await postForm(app, kimJar, 'hostedSecondFactor', { csrf: csrfOf(kimFactor) || kimPage.csrf, method: 'SMS' }, issuerOrigin);
  // The JSON authorize of a signed-in caller.
  expect((await authorizationCode(app, frank.token, client)).code).toBeTruthy();

  // Invitations (docs/api.md 13.1): created, listed, resent, revoked, accepted by JSON and on the hosted page.
  const invite = async (email: string) =>
    expectStatus(await app.request('adminCreateInvitation', { token: adminToken, body: { email, role: 'ANALYST' } }), 201, 'invitation')
      .body.data.invitation.id as string;
  const linkOf = async (email: string) => /\/invitations\/(\S+)/.exec((await deps.outbox.emails(email)).at(-1)?.text ?? '')?.[1] ?? '';
  const invited = await invite(`kept@${tenantId}.example`);
  expectStatus(await app.request('adminListInvitations', { token: adminToken, query: { status: 'pending' } }), 200, 'invitations');
  expectStatus(await app.request('adminResendInvitation', { token: adminToken, pathParameters: { id: invited } }), 200, 'resend');
  expectStatus(await app.request('adminRevokeInvitation', { token: adminToken, pathParameters: { id: invited } }), 200, 'revoke');
  await invite(`json@${tenantId}.example`);
  expectStatus(
    await app.request('acceptInvitation', {
      body: { token: await linkOf(`json@${tenantId}.example`), username: 'invited-json', password: PASSWORD },
    }),
    201,
    'accept invitation',
  );
  await invite(`page@${tenantId}.example`);
  const invitationToken = await linkOf(`page@${tenantId}.example`);
  expectStatus(await app.request('hostedInvitationPage', { pathParameters: { token: invitationToken } }), 200, 'invitation page');
  expectStatus(
    await app.request('hostedInvitationAccept', {
      pathParameters: { token: invitationToken },
      headers: { 'content-type': FORM, origin: issuerOrigin },
      body: new URLSearchParams({ username: 'invited-page', password: PASSWORD }).toString(),
    }),
    200,
    'hosted invitation',
  );

  // Federation (docs/api.md 14): home-realm discovery sends an email of a connection's
  // verified domain on to its identity provider.
  const domain = `${tenantId}.example`;
  await deps.store.domains.create({ tenantId, domain, status: 'pending', token: 'roles', createdAt: new Date().toISOString() });
  await deps.store.domains.verify({ tenantId, domain }, new Date().toISOString());
  // SAML (docs/api.md 14.5): the SP metadata, the AuthnRequest, the signed response at the ACS.
  const idp = await makeSamlIdp();
  const connectionId = `roles-${tenantId}`;
  await samlConnectionOf(deps, tenantId, domain, {
    id: connectionId,
    createdBy: admin.user.id,
    idpEntityId: idp.entityId,
    ssoUrl: 'https://idp.example.test/sso',
    signingCertificates: [idp.cert],
  });
  expectStatus(await app.request('ssoSamlMetadata', { pathParameters: { connectionId } }), 200, 'SAML metadata');
  const ssoJar = new CookieJar();
  const ssoPage = await browserAuthorize(app, ssoJar, client);
  const discovered = await postForm(app, ssoJar, 'hostedSignIn', { csrf: ssoPage.csrf, username: `pat@${domain}` }, issuerOrigin);
  const begin = new URL(continueLocation(expectStatus(discovered, 200, 'home-realm discovery')) ?? '');
  const toIdp = ssoJar.take(
    expectStatus(
      await app.request('ssoBegin', { method: 'GET', headers: ssoJar.header(), query: Object.fromEntries(begin.searchParams) }),
      302,
      'sso begin',
    ),
  );
  const relayState = new URL(toIdp.headers.Location ?? '').searchParams.get('RelayState') ?? '';
  const { acsUrl, spEntityId } = federationEndpoints(deps.config.issuer, connectionId);
  const SAMLResponse = idp.encodedResponse({
    acsUrl,
    spEntityId,
    inResponseTo: samlRequestId(relayState),
    nameId: 'pat-at-the-idp',
    attributes: { email: [`pat@${domain}`] },
    now: deps.clock.now(),
  });
  expectStatus(await postSamlResponse(app, ssoJar, connectionId, { SAMLResponse, RelayState: relayState }), 200, 'SAML ACS');

  // Enterprise sign-in (docs/api.md 14.1, 14.2): connections and domains, and a login refused for SSO.
  const corp = `corp.${tenantId}.example`;
  expectStatus(await app.request('adminAddDomain', { token: adminToken, body: { domain: `pending.${corp}` } }), 201, 'add domain');
  await verifiedDomain(app, dns, adminToken, corp);
  expectStatus(await app.request('adminListDomains', { token: adminToken }), 200, 'domains');
  expectStatus(
    await app.request('adminDeleteDomain', { token: adminToken, pathParameters: { domain: `pending.${corp}` } }),
    200,
    'delete domain',
  );
  const oidcId = await connectionOf(app, adminToken, oidcConnection([corp], { ssoRequired: true }));
  const samlId = await connectionOf(app, adminToken, await samlConnection([corp]));
  expectStatus(await app.request('adminListConnections', { token: adminToken }), 200, 'connections');
  expectStatus(await app.request('adminReadConnection', { token: adminToken, pathParameters: { id: samlId } }), 200, 'connection');
  expectStatus(
    await app.request('adminUpdateConnection', {
      token: adminToken,
      pathParameters: { id: oidcId },
      body: { clientSecret: 'a new client secret' },
    }),
    200,
    'update connection',
  );
  expectStatus(await app.request('login', { body: { username: `ada@${corp}`, password: PASSWORD, tenantId } }), 403, 'SSO required');
  expectStatus(await app.request('adminDeleteConnection', { token: adminToken, pathParameters: { id: samlId } }), 200, 'delete connection');

  // The device authorization grant (docs/api.md 16.4): the codes, a pending poll, the device
  // page's sign-in, a wrong code, the app shown, the approval, the tokens.
  const scanner = await createClient(app, adminToken, tenantId, {
    grantTypes: `${DEVICE_GRANT} refresh_token`,
    scope: 'openid orders:read',
  });
  const scannerCodes = await deviceCodes(app, scanner);
  expectStatus(await pollToken(app, scanner, scannerCodes.device_code), 400, 'device poll, pending');
  const deviceUser = await newUser();
  const deviceJar = await deviceBrowser(app, issuerOrigin, tenantId, deviceUser.username, PASSWORD);
  const deviceForm = { csrf: deviceJar.csrf, user_code: scannerCodes.user_code };
  expectStatus(
    await postDeviceForm(app, deviceJar.jar, issuerOrigin, { ...deviceForm, user_code: 'BBBB-BBBB' }),
    400,
    'device page, wrong code',
  );
  expectStatus(await postDeviceForm(app, deviceJar.jar, issuerOrigin, deviceForm), 200, 'device page, the app shown');
  expectStatus(await postDeviceForm(app, deviceJar.jar, issuerOrigin, { ...deviceForm, decision: 'allow' }), 303, 'device page, allowed');
  deps.clock.set(deps.clock.now() + 5_000);
  expectStatus(await pollToken(app, scanner, scannerCodes.device_code), 200, 'device poll, tokens');
  // The tenant console's staff, invitations, audit trail and settings (docs/api.md 15.3.1-15.3.4):
  // each page, and each action through the console's functions.
  const tenantConsole = await consoleBrowser(app, issuerOrigin, tenantId, 'admin', PASSWORD);
  const leaver = await newUser();
  for (const [section, query] of [
    ['staff', { q: 'user', role: 'OPERATOR', status: 'active' }],
    ['staff', { user: leaver.userId }],
    ['staff', { user: leaver.userId, confirm: 'delete' }],
    ['invitations', {}],
    ['audit', { user: 'admin', type: 'admin_user_changed' }],
    ['settings', {}],
  ] as const)
    expectStatus(await tenantConsole.page(section, query), 200, `console ${section} page`);
  const consoleActions: Array<[string, string, Record<string, string>]> = [
    ['staff', 'role-shop', { userId: leaver.userId, role: 'ANALYST', shopId: 'default' }],
    ['staff', 'sign-out', { userId: leaver.userId }],
    ['staff', 'reset-mfa', { userId: leaver.userId }],
    ['staff', 'status', { userId: leaver.userId, status: 'disabled' }],
    ['staff', 'delete', { userId: leaver.userId }],
    ['invitations', 'invite', { email: `console@${tenantId}.example`, role: 'ANALYST', shopId: 'default' }],
    ['settings', 'save', { displayName: 'Roles Shop', logoUrl: 'https://cdn.example.com/logo.png', accentColor: '#0f766e' }],
  ];
  for (const [section, action, fields] of consoleActions)
    expectStatus(await tenantConsole.post(section, action, fields), 303, `console ${section}/${action}`);
  const consoleInvitation = (await app.request('adminListInvitations', { token: adminToken })).body.data.invitations.find(
    (each: { email: string }) => each.email === `console@${tenantId}.example`,
  );
  expectStatus(await tenantConsole.post('invitations', 'resend', { id: consoleInvitation.id }), 303, 'console invitations/resend');
  expectStatus(await tenantConsole.post('invitations', 'revoke', { id: consoleInvitation.id }), 303, 'console invitations/revoke');
  // A refusal shows the form again: the section's page, read by the action's function.
  expectStatus(
    await tenantConsole.post('invitations', 'invite', { email: 'not an address', role: 'ANALYST', shopId: 'default' }),
    400,
    'console refusal',
  );

  // The OIDC upstream (docs/api.md 14.4): a real IdP on loopback; its answer provisions a user just in time.
  const oidcIdp = await startOidcIdp({ redirectUri: `${deps.config.issuer}/sso/oidc/callback` });
  try {
    oidcIdp.accounts.set('quinn', { email: `quinn@${domain}`, email_verified: true, groups: ['staff'] });
    const oidc = await storedOidcConnection(deps, tenantId, oidcIdp, { createdBy: admin.user.id });
    const oidcJar = new CookieJar();
    await browserAuthorize(app, oidcJar, client);
    const toIdp = oidcJar.take(await app.request('ssoBegin', { method: 'GET', headers: oidcJar.header(), query: { connection: oidc.id } }));
    const back = await signInAt(new URL(expectStatus(toIdp, 302, 'sso begin (oidc)').headers.Location ?? ''), 'quinn');
    const answered = await app.request('ssoOidcCallback', {
      method: 'GET',
      headers: oidcJar.header(),
      query: Object.fromEntries(back.searchParams),
    });
    expect([200, 303], 'sso oidc callback').toContain(answered.status);
  } finally {
    await oidcIdp.close();
  }

  // The account page and the tenant console (docs/api.md 15): every section shown, every action posted.
  const pat = await newUser();
  const { jar: patJar, page: patPage } = await signedInJar(app, issuerOrigin, 'account', {
    tenantId,
    username: pat.username,
    password: PASSWORD,
  });
  const patCsrf = csrfOf(patPage);
  const act = async (section: string, action: string, fields: Record<string, string>, status: number) =>
    expectStatus(
      await postAction(app, patJar, 'account', { section, action }, { csrf: patCsrf, ...fields }, issuerOrigin),
      status,
      `account ${section}/${action}`,
    );
  for (const section of ['profile', 'password', 'security', 'passkeys', 'sessions', 'apps'])
    expectStatus(await openPage(app, patJar, 'account', { section }), 200, `account ${section}`);
  await act('language', 'set', { language: 'de', returnTo: '/account' }, 303);
  await act('profile', 'email', { email: 'pat@example.com' }, 303);
  const patEmail = await deps.outbox.latest(tenantId, pat.userId, 'EMAIL', 'verify-email');
  await act('profile', 'verify-email', { code: patEmail?.code ?? '' }, 303);
  const passkeyPage = await openPage(app, patJar, 'account', { section: 'passkeys' });
  const patKeys = softwareAuthenticator();
  const patCreation = JSON.parse(unescapeHtml(/data-options="([^"]*)"/.exec(String(passkeyPage.body))?.[1] ?? '{}'));
  await act('passkeys', 'add', { credential: JSON.stringify(patKeys.create(patCreation).response), name: 'Key' }, 303);
  const passkeyId =
    /name="id" value="([^"]+)"/.exec(String((await openPage(app, patJar, 'account', { section: 'passkeys' })).body))?.[1] ?? '';
  // An old sign-in confirmed with the passkey (docs/api.md 15.2): a malformed one refused, then the passkey's assertion.
  deps.clock.advance(deps.config.reauthMaxAgeSeconds + 1);
  const confirmPage = await openPage(app, patJar, 'account', { section: 'profile' });
  const patRequest = JSON.parse(unescapeHtml(/data-passkey="get" data-options="([^"]*)"/.exec(String(confirmPage.body))?.[1] ?? '{}'));
  await act('profile', 'confirm-passkey', { credential: '{}' }, 401);
  await act('profile', 'confirm-passkey', { credential: JSON.stringify(patKeys.get(patRequest)) }, 303);
  await act('passkeys', 'remove', { id: passkeyId }, 303);
  const totpPage = await act('security', 'totp', {}, 200);
  const totpSecret =
    new URL(unescapeHtml(/data-otpauth="([^"]+)"/.exec(String(totpPage.body))?.[1] ?? '')).searchParams.get('secret') ?? '';
  const patCode = authenticator(deps, totpSecret);
  await act('security', 'verify', { method: 'TOTP', code: patCode() }, 303);
  deps.clock.advance(30);
  await act('security', 'confirm', { password: PASSWORD, method: 'TOTP', code: patCode() }, 303);
  await act('security', 'recovery-codes', {}, 200);
  await act('security', 'sms', { phone: '+15550009876' }, 303);
  await act('security', 'email', { email: 'pat.codes@example.com' }, 303);
  await act('security', 'verify', { method: 'SMS', code: (await deps.outbox.latest(tenantId, pat.userId, 'SMS'))?.code ?? '' }, 303);
  await act('security', 'disable', { method: 'SMS' }, 303);
  await act('apps', 'revoke', { grantId: 'none-of-pats' }, 404);
  await signIn(pat.username, { mfaCode: patCode(1) });
  const otherSession =
    /name="sessionId" value="([^"]+)"/.exec(String((await openPage(app, patJar, 'account', { section: 'sessions' })).body))?.[1] ?? '';
  await act('sessions', 'revoke', { sessionId: otherSession }, 303);
  await act('sessions', 'revoke-others', {}, 303);
  await act('password', 'change', { currentPassword: PASSWORD, newPassword: 'a changed passphrase' }, 303);
  const { jar: consoleJar, page: consolePage } = await signedInJar(app, issuerOrigin, 'admin', {
    tenantId,
    username: 'admin',
    password: PASSWORD,
  });
  expectStatus(await openPage(app, consoleJar, 'admin', { section: 'overview' }), 200, 'console overview');
  expectStatus(
    await postAction(
      app,
      consoleJar,
      'admin',
      { section: 'language', action: 'set' },
      { csrf: csrfOf(consolePage), language: 'de', returnTo: '/admin' },
      issuerOrigin,
    ),
    303,
    'console language',
  );
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
