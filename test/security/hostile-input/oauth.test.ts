import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { parseTotpSecret } from '../../../lib/mfa/totp';
import { type RouteName, registerAdmin, testApp } from '../../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { newTotpSecret } from '../../helpers/mfa';
import { basic, createClient, FORM, pkcePair, type TestClient } from '../../helpers/oauth';

/**
 * Issue 7, item 1, for the operations test/security/hostile-input/auth.test.ts leaves out
 * (enableMFA, verifyMFA, the OAuth metadata) and, at 1,000 cases each, the OAuth
 * endpoints: hostile values mixed with real ones (a real client's id and secret, a
 * real session, the registered redirect URI, a valid PKCE challenge) so that requests
 * get past the first checks, as JSON (prototype keys, duplicate keys), forms (repeated
 * parameters), raw text, huge bodies up to the size limit, and wrong content types.
 * Every answer is a 4xx in the envelope (or in RFC 6749 format for form requests to the
 * token, revocation and introspection endpoints), and nothing changes in the table but
 * the failed-attempt counters (which count rejected attempts by design).
 */
const RUNS = 1000;

const E164 = /^\+[1-9][0-9]{6,14}$/;
const hugeString = fc.integer({ min: 15_000, max: 17_000 }).map((n) => 'é'.repeat(Math.floor(n / 2)));
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', '__proto__', 'constructor', '#', 'T#x#GRANT#y', '%00', '\ud800', 'null', 'undefined', '0', '-1', '1e309', 'NaN', '{}', '[]', '<script>', "' OR 1=1 --", '${jndi:ldap://x}', '../../etc/passwd', 'a.0.b', 'eyJ.eyJ.x'),
  fc.integer({ min: 100, max: 5_000 }).map((n) => 'x'.repeat(n)),
  hugeString,
);
const anyValue = fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(nasty, { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }));
const prototypeKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf');
const contentType = fc.constantFrom(FORM, `${FORM}; charset=UTF-8`, 'application/json', 'application/json; charset=utf-16', 'text/plain', 'multipart/form-data; boundary=x', 'application/xml', '');

type Fields = Record<string, fc.Arbitrary<unknown>>;

/** A request body: the operation's fields (hostile or real values) in every encoding. */
function body(fields: Fields, required: string[] = [], nearValid?: Record<string, string>) {
  const names = Object.keys(fields).length ? Object.keys(fields) : ['x'];
  const values = fc.record(fields, { requiredKeys: required });
  const asString = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');
  // A request valid but for one field (changed or left out): these reach the last checks.
  const mutated = nearValid
    ? fc
        .tuple(fc.constantFrom(...Object.keys(nearValid)), fc.option(anyValue, { nil: undefined }), fc.boolean())
        .map(([field, value, asJson]) => {
          const record: Record<string, unknown> = { ...nearValid, [field]: value };
          if (value === undefined) delete record[field];
          return asJson ? JSON.stringify(record) : new URLSearchParams(Object.entries(record).map(([key, v]): [string, string] => [key, asString(v)])).toString();
        })
    : fc.constant(undefined);
  return fc.oneof(
    { weight: nearValid ? 4 : 0, arbitrary: mutated },
    { weight: 4, arbitrary: fc.tuple(values, fc.dictionary(prototypeKey, anyValue, { maxKeys: 2 })).map(([record, extra]) => {
      const text = JSON.stringify(record);
      const prefix = Object.entries(extra).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`);
      return prefix.length ? `{${prefix.join(',')}${text === '{}' ? '' : ','}${text.slice(1)}` : text;
    }) },
    { weight: 3, arbitrary: values.map((record) => new URLSearchParams(Object.entries(record).map(([key, value]): [string, string] => [key, asString(value)])).toString()) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), anyValue, anyValue).map(([field, x, y]) => `{${JSON.stringify(field)}:${JSON.stringify(x) ?? 'null'},${JSON.stringify(field)}:${JSON.stringify(y) ?? 'null'}}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), nasty, nasty).map(([field, x, y]) => new URLSearchParams([[field, x], [field, y]]).toString()) },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: nasty },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

interface Operation {
  route: RouteName;
  fields: () => Fields;
  /** Query parameters (hostile or real values). */
  query?: () => Fields;
  /** Authorization headers to try: none, garbage, real session tokens, real client credentials. */
  authorization: () => fc.Arbitrary<string | undefined>;
  /** Fields always present (so that more requests reach the later checks). */
  required?: string[];
  /** A request valid in shape that fails a late check; cases change or drop one field of it. */
  nearValid?: () => Record<string, string>;
  /** Answers form requests in RFC 6749 format. */
  rfc: boolean;
  /** Successful answers that are right for some of these requests (and change nothing). */
  alsoOk: number[];
}

describe('hostile input to enableMFA, verifyMFA, the metadata and the OAuth endpoints', () => {
  const tableName = `hostile-more-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  let deps: TestDeps;
  let app: ReturnType<typeof testApp>;
  let adminToken: string;
  let totpUserToken: string;
  let client: TestClient;
  const challenge = pkcePair().challenge;
  /** Whether an item is a failed-attempt counter: counting rejected attempts is their job. */
  const isCounter = (item: Record<string, unknown>) => String(item.pk).includes('#LOGIN#') || String(item.sk).startsWith('ATTEMPTS');
  const snapshot = async () => (await scanTable(endpoint, tableName)).filter((item) => !isCounter(item));

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = await testDeps({ TABLE_NAME: tableName });
    deps.clock.set(Math.floor(Date.now() / 1000) * 1000);
    app = testApp(deps);
    const tenantId = uniqueTenant('hostile');
    const admin = await registerAdmin(app, tenantId);
    adminToken = admin.token;
    const totpUser = await app.request('register', { token: adminToken, body: { username: 'totp-user', password: 'correct horse battery', role: 'OPERATOR', tenantId } });
    totpUserToken = totpUser.body.data.token;
    expect((await app.request('mfaEnable', { token: totpUserToken, body: { method: 'TOTP', secret: newTotpSecret() } })).status).toBe(200);
    client = await createClient(app, adminToken, tenantId);
  });

  const sessions = () =>
    fc.option(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(`Bearer ${adminToken}`, `Bearer ${totpUserToken}`) }, fc.string().map((s) => `Bearer ${s}`), fc.string()), { nil: undefined, freq: 5 });
  const clientAuth = () =>
    fc.option(
      fc.oneof(
        fc.constant(basic(client.clientId, client.clientSecret)),
        fc.tuple(fc.oneof(nasty, fc.constant(client.clientId)), nasty).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`),
        fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
        fc.string().map((s) => `Basic ${s}`),
        fc.constant(`Bearer ${adminToken}`),
        fc.string(),
      ),
      { nil: undefined },
    );
  /** A hostile value, or (as often) a real one, so that many requests get past validation. */
  const realOr = (...real: string[]) => fc.oneof(anyValue, { weight: 3, arbitrary: nasty }, { weight: 6, arbitrary: fc.constantFrom(...real) });
  /** A secret enableMFA must refuse for every method. */
  const invalidMfaSecret = anyValue.filter((value) => typeof value !== 'string' || (!parseTotpSecret(value) && !E164.test(value.trim()) && !z.email().safeParse(value.trim()).success));
  const invalidRedirect = fc.oneof(anyValue, fc.constantFrom('javascript:alert(1)', 'http://evil.example/cb', '//evil.example', 'https://app.example.com/cb#x', 'data:text/html,x', 'https://', 'ftp://app.example.com/cb')).filter((value) => typeof value !== 'string' || !/^https?:\/\/[^#]+$/.test(value) || value.startsWith('http://evil'));

  const operations: Operation[] = [
    { route: 'mfaEnable', fields: () => ({ method: fc.oneof(anyValue, fc.constantFrom('TOTP', 'SMS', 'EMAIL')), secret: invalidMfaSecret }), authorization: sessions, rfc: false, alsoOk: [] },
    {
      route: 'mfaVerify',
      fields: () => ({ method: fc.oneof(anyValue, fc.constantFrom('TOTP', 'SMS', 'EMAIL')), code: fc.oneof(anyValue, fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, '0'))) }),
      nearValid: () => ({ method: 'TOTP', code: '000000' }),
      authorization: sessions,
      rfc: false,
      alsoOk: [],
    },
    { route: 'oauth2Metadata', fields: () => ({ issuer: anyValue }), authorization: sessions, rfc: false, alsoOk: [200] },
    {
      route: 'oauth2Token',
      fields: () => ({
        // client_credentials with real credentials would rightly succeed: it is left out of the real values here.
        grant_type: fc.oneof(anyValue.filter((value) => value !== 'client_credentials'), fc.constantFrom('authorization_code', 'refresh_token', 'password', 'implicit')),
        client_id: realOr(client.clientId),
        client_secret: realOr(client.clientSecret),
        code: anyValue,
        redirect_uri: realOr(client.redirectUri),
        code_verifier: realOr(pkcePair().verifier),
        refresh_token: realOr('a'.repeat(22) + '.0.' + 'b'.repeat(43)),
        scope: realOr('orders:read', 'orders:read orders:write'),
      }),
      required: ['grant_type', 'client_id', 'client_secret'],
      // A code never issued: even unchanged, the request ends in invalid_grant.
      nearValid: () => ({ grant_type: 'authorization_code', client_id: client.clientId, client_secret: client.clientSecret, code: 'c'.repeat(43), redirect_uri: client.redirectUri, code_verifier: pkcePair().verifier }),
      authorization: clientAuth,
      rfc: true,
      alsoOk: [],
    },
    {
      route: 'oauth2Revoke',
      fields: () => ({ token: realOr(adminToken), token_type_hint: realOr('access_token', 'refresh_token'), client_id: realOr(client.clientId), client_secret: realOr(client.clientSecret) }),
      nearValid: () => ({ token: adminToken, token_type_hint: 'access_token', client_id: client.clientId, client_secret: client.clientSecret }),
      authorization: clientAuth,
      rfc: true,
      alsoOk: [200],
    },
    {
      route: 'oauth2Introspect',
      fields: () => ({ token: realOr(adminToken), token_type_hint: realOr('access_token', 'refresh_token'), client_id: realOr(client.clientId), client_secret: realOr(client.clientSecret) }),
      nearValid: () => ({ token: adminToken, token_type_hint: 'access_token', client_id: client.clientId, client_secret: client.clientSecret }),
      authorization: clientAuth,
      rfc: true,
      alsoOk: [200],
    },
    {
      route: 'oauth2CreateClient',
      fields: () => ({
        client_id: realOr('new-client', client.clientId),
        client_secret: realOr('s'.repeat(40)),
        redirect_uri: invalidRedirect,
        grant_types: realOr('authorization_code', 'client_credentials refresh_token'),
        scope: realOr('orders:read'),
        tenant_id: anyValue,
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
        client_id: realOr(client.clientId),
        redirect_uri: realOr(client.redirectUri, `${client.redirectUri}/`, 'https://evil.example/cb'),
        scope: realOr('orders:read'),
        state: anyValue,
        // Never a well-formed challenge: a valid request would rightly get a code.
        code_challenge: fc.oneof(anyValue, fc.constant(challenge.slice(1)), fc.constant(`${challenge}=`)).filter((value) => typeof value !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(value)),
        code_challenge_method: realOr('S256', 'plain'),
      }),
      authorization: sessions,
      rfc: false,
      alsoOk: [],
    },
  ];

  it.each(operations.map((operation) => [operation.route, operation] as const))('answers every malformed %s request with a 4xx and changes nothing', async (_, operation) => {
    const before = await snapshot();
    const statuses = new Map<number, number>();
    const errors = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        body(operation.fields(), operation.required, operation.nearValid?.()),
        contentType,
        operation.authorization(),
        fc.option(fc.record(operation.query?.() ?? { x: anyValue }, { requiredKeys: [] }), { nil: undefined }),
        async (text, type, authorization, query) => {
          const queryStrings = query && Object.fromEntries(Object.entries(query).map(([key, value]) => [key, (typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, 3000)]));
          const response = await app.request(operation.route, {
            ...(text === undefined ? {} : { body: text }),
            headers: { ...(type ? { 'content-type': type } : {}), ...(authorization ? { authorization } : {}) },
            ...(queryStrings ? { query: queryStrings } : {}),
          });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (process.env.SHOW_ERRORS) errors.set(String(response.body?.error_description ?? response.body?.error).slice(0, 60), (errors.get(String(response.body?.error_description ?? response.body?.error).slice(0, 60)) ?? 0) + 1);
          expect(response.status).toBeLessThan(500);
          if (operation.alsoOk.includes(response.status)) return;
          expect(response.status).toBeGreaterThanOrEqual(400);
          if (operation.rfc && type.startsWith(FORM)) {
            expect(response.body).toEqual({ error: expect.stringMatching(/^[a-z_]+$/), error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/) });
          } else {
            expect(response.body).toEqual({ success: false, error: expect.any(String) });
            expect(response.body.error).not.toMatch(/\n\s+at /);
          }
          expect(response.headers.Location).toBeUndefined();
        },
      ),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toEqual(before);
    if (process.env.SHOW_COUNTS) console.log(operation.route, Object.fromEntries(statuses), Object.fromEntries(errors));
    // The cases reached more than the first check: several distinct refusals.
    expect(statuses.size).toBeGreaterThan(1);
  }, 180_000);
});
