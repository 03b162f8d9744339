import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { failure, isFailureEnvelope } from '../../helpers/failures';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, FORM, pkcePair, type TestClient } from '../../helpers/oauth';

const RUNS = 200;

/**
 * Hostile input to what OpenID Connect adds (docs/api.md 11): the `nonce` of an
 * otherwise valid authorization request, and anything at all at userinfo and discovery.
 * Never a 500, never a code for a bad nonce, nothing written.
 */
describe('hostile input to OpenID Connect', () => {
  let app: App;
  let token: string;
  let client: TestClient;
  const tableName = `oidc-hostile-${Date.now()}`;
  const table = () => scanTable(inject('dynamodbEndpoint'), tableName);

  beforeAll(async () => {
    await createTable(inject('dynamodbEndpoint'), tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    const tenantId = uniqueTenant('oidc-hostile');
    token = (await registerAdmin(app, tenantId)).token;
    client = await createClient(app, token, tenantId, { scope: 'openid profile email' });
  });

  const invalidNonce = fc
    .oneof(
      fc.string({ unit: 'binary', maxLength: 600 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.integer({ min: 513, max: 5000 }).map((n) => 'n'.repeat(n)),
      fc.constantFrom('', '\u0000', 'a\r\nb', '\t', '\u007f', '\ud800', 'ñ', '\u2028'),
    )
    .filter((nonce) => !/^[\x20-\x7E]{1,512}$/.test(nonce));

  it('answers every invalid nonce of an otherwise valid request with 400 Invalid nonce, and issues no code', async () => {
    const before = await table();
    await fc.assert(
      fc.asyncProperty(invalidNonce, async (nonce) => {
        const answer = await app.request('oauth2Authorize', {
          token,
          query: {
            response_type: 'code',
            client_id: client.clientId,
            redirect_uri: client.redirectUri,
            scope: 'openid',
            code_challenge: pkcePair().challenge,
            code_challenge_method: 'S256',
            nonce,
          },
        });
        expect([answer.status, answer.body, answer.headers.Location]).toEqual([400, failure('Invalid nonce'), undefined]);
      }),
      { numRuns: RUNS },
    );
    expect(await table()).toEqual(before);
  });

  const anyText = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      'bearer x',
      'Bearer a b',
      'Bearer eyJ.eyJ.x',
      'Basic YTpi',
      'Bearer ==',
      `Bearer ${'a'.repeat(9000)}`,
    ),
  );

  it('answers anything at userinfo, GET or POST, with a 4xx in the envelope (a challenge on 401), never cached, nothing written', async () => {
    const before = await table();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST'),
        fc.option(anyText, { nil: undefined }),
        fc.option(anyText, { nil: undefined }),
        fc.constantFrom(FORM, 'application/json', 'text/plain', ''),
        fc.option(fc.dictionary(fc.constantFrom('access_token', 'scope', 'x'), fc.string()), { nil: undefined }),
        async (method, authorization, body, type, query) => {
          const answer = await app.request('userInfo', {
            method,
            headers: { ...(authorization === undefined ? {} : { authorization }), ...(type ? { 'content-type': type } : {}) },
            ...(body === undefined || method === 'GET' ? {} : { body }),
            ...(query ? { query } : {}),
          });
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expect(answer.status).toBeLessThan(500);
          expect(isFailureEnvelope(answer.body), JSON.stringify(answer.body)).toBe(true);
          if (answer.status === 401)
            expect(answer.headers['WWW-Authenticate']).toMatch(/^Bearer( error="invalid_token"|, DPoP algs="[^"]+")?$/);
          expect(answer.headers['Cache-Control']).toBe('no-store');
        },
      ),
      { numRuns: RUNS },
    );
    expect(await table()).toEqual(before);
  });

  it('answers the same discovery document whatever the query and headers', async () => {
    const expected = (await app.request('openIdConfiguration')).body;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.string()), anyText, async (query, authorization) => {
        const answer = await app.request('openIdConfiguration', { query, headers: { authorization } });
        expect([answer.status, answer.body]).toEqual([200, expected]);
      }),
      { numRuns: 50 },
    );
  });
});
