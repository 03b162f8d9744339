import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { registerAdmin, type RouteName, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { createTable, scanTable } from '../helpers/isolated-table';
import { FORM } from '../helpers/oauth';

/**
 * Property-based hostile input for the OAuth endpoints (as test/security does for the
 * others): hostile values for their own fields, as JSON or form bodies or queries, with
 * random content types and Authorization headers. Every answer is a 4xx, in the
 * envelope, or in RFC 6749 format for form requests to the token, revocation and
 * introspection endpoints; nothing in the table changes.
 */
const RUNS = 300;

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', '__proto__', '#', 'T#x#GRANT#y', '%00', '\ud800', 'authorization_code', 'client_credentials', 'refresh_token', 'S256', 'code', 'a.0.b', 'eyJ.eyJ.x', 'https://app.example.com/callback'),
  fc.integer({ min: 100, max: 20_000 }).map((n) => 'x'.repeat(n)),
);
const anyValue = fc.oneof(nasty, fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
const contentType = fc.constantFrom(FORM, `${FORM}; charset=UTF-8`, 'application/json', 'text/plain', 'multipart/form-data; boundary=x', '');
const authorization = fc.option(
  fc.oneof(
    fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    fc.tuple(nasty, nasty).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`),
    fc.string().map((s) => `Basic ${s}`),
    fc.string().map((s) => `Bearer ${s}`),
    fc.string(),
  ),
);

function body(fields: string[]) {
  const values = fc.record(Object.fromEntries(fields.map((field) => [field, anyValue])), { requiredKeys: [] });
  return fc.oneof(
    values.map((record) => JSON.stringify(record)),
    values.map((record) => new URLSearchParams(Object.entries(record).map(([key, value]): [string, string] => [key, String(value)])).toString()),
    fc.tuple(fc.constantFrom(...fields), nasty, nasty).map(([field, a, b]) => new URLSearchParams([[field, a], [field, b]]).toString()),
    nasty,
    fc.constant(undefined),
  );
}

interface Operation {
  route: RouteName;
  fields: string[];
  /** Answers form requests in RFC format. */
  rfc: boolean;
  withIdentity: boolean;
}

const OPERATIONS: Operation[] = [
  { route: 'oauth2Token', fields: ['grant_type', 'client_id', 'client_secret', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope'], rfc: true, withIdentity: false },
  { route: 'oauth2Revoke', fields: ['token', 'token_type_hint', 'client_id', 'client_secret'], rfc: true, withIdentity: false },
  { route: 'oauth2Introspect', fields: ['token', 'token_type_hint', 'client_id', 'client_secret'], rfc: true, withIdentity: false },
  // Hostile values never make a valid registration: redirect URIs are checked first.
  { route: 'oauth2CreateClient', fields: ['client_id', 'client_secret', 'redirect_uri', 'grant_types', 'scope', 'tenant_id'], rfc: false, withIdentity: true },
  { route: 'oauth2Authorize', fields: [], rfc: false, withIdentity: true },
];

describe('hostile input to the OAuth endpoints', () => {
  let deps: TestDeps;
  let app: ReturnType<typeof testApp>;
  let token: string;
  const tableName = `oauth-hostile-${Date.now()}`;

  beforeAll(async () => {
    await createTable(inject('dynamodbEndpoint'), tableName);
    deps = await testDeps({ TABLE_NAME: tableName });
    app = testApp(deps);
    token = (await registerAdmin(app, uniqueTenant())).token;
  });

  it.each(OPERATIONS)('answers every malformed $route request with a 4xx and changes nothing', async (operation) => {
    const before = await scanTable(inject('dynamodbEndpoint'), tableName);
    const queryField = fc.constantFrom('client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'x');
    await fc.assert(
      fc.asyncProperty(
        body(operation.fields.length ? operation.fields : ['x']),
        contentType,
        authorization,
        fc.boolean(),
        fc.option(fc.dictionary(queryField, nasty.map((value) => value.slice(0, 3000)), { maxKeys: 7 })),
        async (text, type, auth, authenticated, query) => {
          const headers: Record<string, string> = { ...(type ? { 'content-type': type } : {}), ...(auth && !(operation.withIdentity && authenticated) ? { authorization: auth } : {}) };
          const response = await app.request(operation.route, {
            ...(text === undefined ? {} : { body: text }),
            headers,
            ...(query ? { query } : {}),
            ...(operation.withIdentity && authenticated ? { token } : {}),
          });
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          const rfc = operation.rfc && type.startsWith(FORM);
          if (rfc) {
            expect(response.body).toEqual({ error: expect.stringMatching(/^[a-z_]+$/), error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/) });
          } else {
            expect(response.body).toEqual({ success: false, error: expect.any(String) });
          }
          expect(response.headers['Cache-Control']).toBe('no-store');
        },
      ),
      { numRuns: RUNS },
    );
    expect(await scanTable(inject('dynamodbEndpoint'), tableName)).toEqual(before);
  }, 120_000);
});
