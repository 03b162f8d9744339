import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, type RouteName, registerAdmin, testApp } from '../../helpers/app';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import { browserAuthorize, CookieJar, postForm } from '../../helpers/hosted';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, FORM, pkcePair, type TestClient, tokenRequest } from '../../helpers/oauth';
import { anyValue, assertRefusesHostileRequests, type HostileTenant, hostileTenant, type Operation, realOr } from './mixed-requests';

/**
 * Hostile input to the OAuth endpoints and the authorization server metadata, two ways:
 * hostile values mixed with real ones (a real client, session, redirect URI and PKCE
 * challenge; mixed-requests.ts says how), and random values in every field.
 */
describe('hostile input to the OAuth endpoints and the metadata, mixed with real values', () => {
  let tenant: HostileTenant;
  beforeAll(async () => {
    tenant = await hostileTenant(`hostile-oauth-${Date.now()}`);
  });
  const challenge = pkcePair().challenge;
  const invalidRedirect = fc
    .oneof(
      anyValue,
      fc.constantFrom(
        'javascript:alert(1)',
        'http://evil.example/cb',
        '//evil.example',
        'https://app.example.com/cb#x',
        'data:text/html,x',
        'https://',
        'ftp://app.example.com/cb',
      ),
    )
    .filter((value) => typeof value !== 'string' || !/^https?:\/\/[^#]+$/.test(value) || value.startsWith('http://evil'));
  const sessions = () => tenant.sessions();
  const clientAuth = () => tenant.clientAuth();

  const operations: Operation[] = [
    { route: 'metadata', fields: () => ({ issuer: anyValue }), authorization: sessions, rfc: false, alsoOk: [200] },
    {
      route: 'oauth2Token',
      fields: () => ({
        // client_credentials with real credentials would rightly succeed: it is left out of the real values here.
        grant_type: fc.oneof(
          anyValue.filter((value) => value !== 'client_credentials'),
          fc.constantFrom('authorization_code', 'refresh_token', 'password', 'implicit'),
        ),
        client_id: realOr(tenant.client.clientId),
        client_secret: realOr(tenant.client.clientSecret),
        code: anyValue,
        redirect_uri: realOr(tenant.client.redirectUri),
        code_verifier: realOr(pkcePair().verifier),
        refresh_token: realOr(`${'a'.repeat(22)}.0.${'b'.repeat(43)}`),
        scope: realOr('orders:read', 'orders:read orders:write'),
        // RFC 8707 (the hostile tenant's client has no resources registered).
        resource: realOr('https://api.example.com', 'https://api.example.com#x'),
      }),
      required: ['grant_type', 'client_id', 'client_secret'],
      // A code never issued: even unchanged, the request ends in invalid_grant.
      nearValid: () => ({
        grant_type: 'authorization_code',
        client_id: tenant.client.clientId,
        client_secret: tenant.client.clientSecret,
        code: 'c'.repeat(43),
        redirect_uri: tenant.client.redirectUri,
        code_verifier: pkcePair().verifier,
      }),
      authorization: clientAuth,
      rfc: true,
      alsoOk: [],
    },
    {
      route: 'revoke',
      fields: () => ({
        token: realOr(tenant.adminToken),
        token_type_hint: realOr('access_token', 'refresh_token'),
        client_id: realOr(tenant.client.clientId),
        client_secret: realOr(tenant.client.clientSecret),
      }),
      nearValid: () => ({
        token: tenant.adminToken,
        token_type_hint: 'access_token',
        client_id: tenant.client.clientId,
        client_secret: tenant.client.clientSecret,
      }),
      authorization: clientAuth,
      rfc: true,
      alsoOk: [200],
    },
    {
      route: 'introspect',
      fields: () => ({
        token: realOr(tenant.adminToken),
        token_type_hint: realOr('access_token', 'refresh_token'),
        client_id: realOr(tenant.client.clientId),
        client_secret: realOr(tenant.client.clientSecret),
      }),
      nearValid: () => ({
        token: tenant.adminToken,
        token_type_hint: 'access_token',
        client_id: tenant.client.clientId,
        client_secret: tenant.client.clientSecret,
      }),
      authorization: clientAuth,
      rfc: true,
      alsoOk: [200],
    },
    {
      route: 'createOAuth2Client',
      fields: () => ({
        client_id: realOr('new-client', tenant.client.clientId),
        client_secret: realOr('s'.repeat(40)),
        redirect_uri: invalidRedirect,
        grant_types: realOr('authorization_code', 'client_credentials refresh_token'),
        scope: realOr('orders:read'),
        tenant_id: anyValue,
        resources: realOr('https://api.example.com', 'https://api.example.com https://reports.example.com/v1'),
        introspect_any: fc.oneof(fc.boolean(), anyValue),
      }),
      authorization: sessions,
      rfc: false,
      alsoOk: [],
    },
    {
      route: 'oauth2Authorize',
      fields: () => ({}),
      query: () => ({
        response_type: realOr('code'),
        client_id: realOr(tenant.client.clientId),
        redirect_uri: realOr(tenant.client.redirectUri, `${tenant.client.redirectUri}/`, 'https://evil.example/cb'),
        scope: realOr('orders:read'),
        state: anyValue,
        // Never a well-formed challenge: a valid request would rightly get a code.
        code_challenge: fc
          .oneof(anyValue, fc.constant(challenge.slice(1)), fc.constant(`${challenge}=`))
          .filter((value) => typeof value !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(value)),
        code_challenge_method: realOr('S256', 'plain'),
        resource: realOr('https://api.example.com'),
      }),
      authorization: sessions,
      rfc: false,
      alsoOk: [],
    },
  ];

  it.each(operations.map((operation) => [operation.route, operation] as const))(
    'answers every malformed %s request with a 4xx and changes nothing',
    async (_, operation) => {
      await assertRefusesHostileRequests(tenant, operation);
    },
    180_000,
  );
});

/*
 * Random values in every field of the OAuth endpoints, as JSON or form bodies or
 * queries, with random content types and Authorization headers. Every answer is a 4xx,
 * in the envelope, or in RFC 6749 format for form requests to the token, revocation and
 * introspection endpoints, never cacheable; nothing in the table changes.
 */
const RANDOM_RUNS = 300;

const randomText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '__proto__',
    '#',
    'T#x#GRANT#y',
    '%00',
    '\ud800',
    'authorization_code',
    'client_credentials',
    'refresh_token',
    'S256',
    'code',
    'a.0.b',
    'eyJ.eyJ.x',
    'https://app.example.com/callback',
  ),
  fc.integer({ min: 100, max: 20_000 }).map((n) => 'x'.repeat(n)),
);
const randomValue = fc.oneof(randomText, fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
const randomContentType = fc.constantFrom(
  FORM,
  `${FORM}; charset=UTF-8`,
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  '',
);
const randomAuthorization = fc.option(
  fc.oneof(
    fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    fc.tuple(randomText, randomText).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`),
    fc.string().map((s) => `Basic ${s}`),
    fc.string().map((s) => `Bearer ${s}`),
    fc.string(),
  ),
);

function randomBody(fields: string[]) {
  const values = fc.record(Object.fromEntries(fields.map((field) => [field, randomValue])), { requiredKeys: [] });
  return fc.oneof(
    values.map((record) => JSON.stringify(record)),
    values.map((record) =>
      new URLSearchParams(Object.entries(record).map(([key, value]): [string, string] => [key, String(value)])).toString(),
    ),
    fc.tuple(fc.constantFrom(...fields), randomText, randomText).map(([field, a, b]) =>
      new URLSearchParams([
        [field, a],
        [field, b],
      ]).toString(),
    ),
    randomText,
    fc.constant(undefined),
  );
}

interface RandomOperation {
  route: RouteName;
  fields: string[];
  /** Answers form requests in RFC format. */
  rfc: boolean;
  withIdentity: boolean;
  /** The event of the route to call (oauth2Authorize by POST, docs/api.md 16.2); its first when absent. */
  method?: 'POST';
}

const RANDOM_OPERATIONS: RandomOperation[] = [
  {
    route: 'oauth2Token',
    fields: [
      'grant_type',
      'client_id',
      'client_secret',
      'code',
      'redirect_uri',
      'code_verifier',
      'refresh_token',
      'scope',
      'resource',
      'device_code',
    ],
    rfc: true,
    withIdentity: false,
  },
  // docs/api.md 16.4: form bodies only; random credentials never authenticate.
  { route: 'oauth2DeviceAuthorization', fields: ['client_id', 'client_secret', 'scope'], rfc: true, withIdentity: false },
  { route: 'revoke', fields: ['token', 'token_type_hint', 'client_id', 'client_secret'], rfc: true, withIdentity: false },
  { route: 'introspect', fields: ['token', 'token_type_hint', 'client_id', 'client_secret'], rfc: true, withIdentity: false },
  // Hostile values never make a valid registration: redirect URIs are checked first.
  {
    route: 'createOAuth2Client',
    fields: ['client_id', 'client_secret', 'redirect_uri', 'grant_types', 'scope', 'tenant_id', 'resources', 'introspect_any'],
    rfc: false,
    withIdentity: true,
  },
  { route: 'oauth2Authorize', fields: [], rfc: false, withIdentity: true },
  {
    route: 'oauth2Authorize',
    fields: ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource'],
    rfc: false,
    withIdentity: true,
    method: 'POST',
  },
];

describe('hostile input to the OAuth endpoints, random in every field', () => {
  let app: App;
  let token: string;
  const tableName = `oauth-hostile-${Date.now()}`;

  beforeAll(async () => {
    await createTable(inject('dynamodbEndpoint'), tableName);
    app = testApp(await testDeps({ TABLE_NAME: tableName }));
    token = (await registerAdmin(app, uniqueTenant())).token;
  });

  it.each(RANDOM_OPERATIONS)(
    'answers every malformed $route request with a 4xx and changes nothing',
    async (operation) => {
      // Failed client authentications count against the source by design (docs/api.md 10.1): counters are compared apart.
      const notCounter = (item: Record<string, unknown>) => !String(item.sk).startsWith('ATTEMPTS');
      const before = (await scanTable(inject('dynamodbEndpoint'), tableName)).filter(notCounter);
      const queryField = fc.constantFrom(
        'client_id',
        'redirect_uri',
        'response_type',
        'scope',
        'state',
        'code_challenge',
        'code_challenge_method',
        'x',
      );
      await fc.assert(
        fc.asyncProperty(
          randomBody(operation.fields.length ? operation.fields : ['x']),
          randomContentType,
          randomAuthorization,
          fc.boolean(),
          fc.option(
            fc.dictionary(
              queryField,
              randomText.map((value) => value.slice(0, 3000)),
              { maxKeys: 7 },
            ),
          ),
          async (text, type, auth, authenticated, query) => {
            const headers: Record<string, string> = {
              ...(type ? { 'content-type': type } : {}),
              ...(auth && !(operation.withIdentity && authenticated) ? { authorization: auth } : {}),
            };
            const response = await app.request(operation.route, {
              ...(text === undefined ? {} : { body: text }),
              headers,
              ...(query ? { query } : {}),
              ...(operation.withIdentity && authenticated ? { token } : {}),
              ...(operation.method ? { method: operation.method } : {}),
            });
            expect(response.status).toBeGreaterThanOrEqual(400);
            expect(response.status).toBeLessThan(500);
            const rfc = operation.rfc && type.startsWith(FORM);
            if (rfc) {
              expect(response.body).toEqual({
                error: expect.stringMatching(/^[a-z_]+$/),
                error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/),
              });
            } else {
              expect(isFailureEnvelope(response.body), JSON.stringify(response.body)).toBe(true);
            }
            expect(response.headers['Cache-Control']).toBe('no-store');
          },
        ),
        { numRuns: RANDOM_RUNS },
      );
      expect((await scanTable(inject('dynamodbEndpoint'), tableName)).filter(notCounter)).toEqual(before);
    },
    120_000,
  );
});

/*
 * RP-initiated logout (docs/api.md 11.12) with hostile values mixed with real ones (the
 * client, its post-logout URI, a valid ID token of another session), as a query and as a
 * form, to a browser that is signed in: never a 5xx, never a redirect but to the
 * registered URI, and the session never ends without its proof.
 */
describe('hostile input to RP-initiated logout', () => {
  const BYE = 'https://app.example.com/bye';
  let app: App;
  let deps: Awaited<ReturnType<typeof testDeps>>;
  let client: TestClient;
  let jar: CookieJar;
  let otherHint: string;
  let userToken: string;
  let sessionId: string;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    const tenantId = uniqueTenant('hostile-logout');
    const admin = await registerAdmin(app, tenantId, 'admin', 'a long unusual passphrase');
    client = await createClient(app, admin.token, tenantId, { scope: 'openid' });
    const body = { first_party: true, post_logout_redirect_uris: BYE };
    await app.request('updateOAuth2Client', { token: admin.token, pathParameters: { clientId: client.clientId }, body });
    const signIn = async () => {
      const browser = new CookieJar();
      const begun = await browserAuthorize(app, browser, client, { scope: 'openid' });
      const origin = new URL(deps.config.issuer).origin;
      const fields = { csrf: begun.csrf, username: 'admin', password: 'a long unusual passphrase' };
      const back = await postForm(app, browser, 'hostedSignIn', fields, origin);
      const code = new URL(back.headers.Location ?? '').searchParams.get('code') ?? '';
      const redeem = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: begun.verifier };
      const tokens = await app.request('oauth2Token', tokenRequest(client, redeem));
      return { browser, idToken: String(tokens.body.id_token) };
    };
    // The hint is of an earlier sign-in: valid, but not this browser's session.
    otherHint = (await signIn()).idToken;
    jar = (await signIn()).browser;
    sessionId = jar.cookies.get('__Host-session')?.split('.')[1] ?? '';
    userToken = admin.token;
  });

  it('answers every hostile logout with a page or the registered URI, never a 5xx, and ends no session', async () => {
    const text = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
    const parameter = (real: string[]) => fc.option(realOr(...real).map(text), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id_token_hint: parameter([otherHint, `${otherHint}x`, 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']),
          post_logout_redirect_uri: parameter([BYE, `${BYE}/`, 'https://evil.example/bye']),
          state: parameter(['s', '"><script>alert(1)</script>']),
          client_id: parameter([client.clientId, 'nobody']),
          csrf: parameter(['x'.repeat(43)]),
        }),
        fc.boolean(),
        async (record, asForm) => {
          const fields = Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined));
          const origin = new URL(deps.config.issuer).origin;
          const response = asForm
            ? await app.request('oauth2Logout', {
                method: 'POST',
                headers: { 'content-type': FORM, origin, ...jar.header() },
                body: new URLSearchParams(fields).toString(),
              })
            : await app.request('oauth2Logout', { method: 'GET', headers: jar.header(), query: fields });
          expect(response.status).toBeLessThan(500);
          expect(response.headers['Cache-Control']).toBe('no-store');
          const location = response.headers.Location;
          if (location !== undefined) expect(location.split('?')[0]).toBe(BYE);
          expect(String(response.body ?? '')).not.toContain('<script>');
        },
      ),
      { numRuns: 200 },
    );
    const listed = await app.request('listSessions', { token: userToken });
    expect(listed.body.data.sessions.map((session: { id: string }) => session.id)).toContain(sessionId);
  }, 120_000);
});
