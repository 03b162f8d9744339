import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { body as rotateBody } from '../../../functions/rotate-oauth2-client-secret';
import { body as updateBody } from '../../../functions/update-oauth2-client';
import { isBackchannelLogoutUri, parseAllowedOrigins } from '../../../lib/oauth/client';
import { type App, type AppRequest, type RouteName, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, newSecret } from '../../helpers/oauth';
import { anyValue, asSent, asText, nasty } from './mixed-requests';

/**
 * Hostile path parameters, queries and bodies to the OAuth client lifecycle (docs/api.md
 * 9.9-9.13), sent by a real ADMIN next to a real client: every answer is a 4xx in the
 * envelope (or, for the listing without parameters, a 200), and the table does not change.
 */
const RUNS = 300;

describe('hostile input to the OAuth client lifecycle', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-clients-${Date.now()}`;
  let app: App;
  let token: string;
  let clientId: string;
  let tenantId: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    tenantId = uniqueTenant('hostile-clients');
    token = (await registerAdmin(app, tenantId)).token;
    clientId = (await createClient(app, token, tenantId)).clientId;
  });

  /** Ids near the real one (never it: a valid request at the real client is not hostile). */
  const hostileId = () =>
    fc
      .oneof(
        nasty,
        fc.constantFrom(`${clientId}#`, clientId.toUpperCase(), `${clientId} `, `CLIENT#${clientId}`, `${clientId}%23`, 'c'.repeat(129)),
      )
      .filter((id) => id !== clientId);
  const realOrHostileId = () => fc.oneof(fc.constant(clientId), hostileId());
  const hostileBody = (keys: string[], schema: { safeParse(value: unknown): { success: boolean } }) =>
    fc
      .oneof(fc.dictionary(fc.constantFrom(...keys, 'secretHash', 'tenantId', '__proto__'), anyValue, { maxKeys: 4 }), anyValue)
      // A valid body (an empty one is none for PATCH) is left to the functional tests.
      .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !schema.safeParse(asSent(body)).success)
      .map(asText);

  const cases: Array<[RouteName, () => fc.Arbitrary<AppRequest>]> = [
    [
      'listOAuth2Clients',
      () =>
        fc
          .dictionary(fc.constantFrom('tenantId', 'limit', 'cursor', '__proto__'), nasty, { minKeys: 1, maxKeys: 3 })
          .map((query) => ({ query })),
    ],
    ['readOAuth2Client', () => hostileId().map((id) => ({ pathParameters: { clientId: id } }))],
    ['deleteOAuth2Client', () => hostileId().map((id) => ({ pathParameters: { clientId: id } }))],
    [
      'updateOAuth2Client',
      () =>
        fc
          .tuple(
            realOrHostileId(),
            hostileBody(
              [
                'redirect_uri',
                'grant_types',
                'scope',
                'client_name',
                'first_party',
                'post_logout_redirect_uris',
                'allowed_origins',
                'backchannel_logout_uri',
                'backchannel_logout_session_required',
              ],
              updateBody,
            ),
          )
          .map(([id, body]) => ({ pathParameters: { clientId: id }, body })),
    ],
    [
      'rotateOAuth2ClientSecret',
      () =>
        fc
          .tuple(
            realOrHostileId(),
            fc.oneof(
              hostileBody(['client_secret', 'previous_secret_expires_in'], rotateBody),
              // Well-formed but refused by the rules: short, plainly not random.
              fc.constantFrom('x'.repeat(31), 'ab'.repeat(40), 'a'.repeat(512)).map((secret) => JSON.stringify({ client_secret: secret })),
            ),
          )
          .map(([id, body]) => ({ pathParameters: { clientId: id }, body })),
    ],
    [
      'rotateOAuth2ClientSecret',
      () => hostileId().map((id) => ({ pathParameters: { clientId: id }, body: JSON.stringify({ client_secret: newSecret() }) })),
    ],
    // docs/api.md 16.2: origins that are not origins, well-formed JSON otherwise.
    [
      'updateOAuth2Client',
      () =>
        fc
          .oneof(
            nasty,
            fc.constantFrom(
              '*',
              'null',
              'https://a.example/',
              'HTTPS://A.EXAMPLE',
              'https://a.example:443',
              'http://a.example',
              'file://x',
            ),
            fc.webUrl(),
          )
          // What would pass (an empty part, a real origin) is left to the functional tests.
          .filter((origins) => parseAllowedOrigins(`https://ok.example ${origins}`) === undefined)
          .map((origins) => ({ pathParameters: { clientId }, body: JSON.stringify({ allowed_origins: `https://ok.example ${origins}` }) })),
    ],
    // docs/api.md 17.3: back-channel logout URIs that are not one, well-formed JSON otherwise.
    [
      'updateOAuth2Client',
      () =>
        fc
          .oneof(
            nasty,
            fc.constantFrom(
              'https://rp.example/bcl#x',
              'http://rp.example/bcl',
              'https://u:p@rp.example/bcl',
              'https://rp.example/a https://rp.example/b',
              'javascript:alert(1)',
              '//rp.example/bcl',
              `https://rp.example/${'a'.repeat(2000)}`,
            ),
            fc.webUrl({ withFragments: true, withQueryParameters: true }),
          )
          // The empty string (removal) and a valid URI are left to the functional tests.
          .filter((uri) => uri !== '' && !isBackchannelLogoutUri(uri, true))
          .map((uri) => ({ pathParameters: { clientId }, body: JSON.stringify({ backchannel_logout_uri: uri }) })),
    ],
    // docs/api.md 16.1: a public client's registration with a hostile field, under a fresh id.
    [
      'createOAuth2Client',
      () =>
        fc
          .tuple(
            fc.constantFrom('redirect_uri', 'allowed_origins', 'client_secret', 'grant_types', 'token_endpoint_auth_method'),
            fc.oneof(
              nasty,
              fc.constantFrom(
                'myapp:/cb',
                'com.example.app:',
                'com.example.app:/cb#x',
                'client_credentials',
                'private_key_jwt',
                newSecret(),
              ),
            ),
            fc.nat(),
          )
          // An empty or valid list of origins is a valid registration.
          .filter(([field, value]) => field !== 'allowed_origins' || typeof value !== 'string' || parseAllowedOrigins(value) === undefined)
          .map(([field, value, n]) => ({
            body: JSON.stringify({
              client_id: `hostile-public-${n}`,
              token_endpoint_auth_method: 'none',
              redirect_uri: 'com.example.app:/cb',
              grant_types: 'authorization_code',
              scope: 'orders:read',
              tenant_id: tenantId,
              allowed_origins: 'https://ok.example',
              [field]: value,
            }),
          })),
    ],
  ];

  it.each(cases)(
    'answers every malformed %s request with a 4xx and changes nothing',
    async (route, requests) => {
      const before = await scanTable(endpoint, tableName);
      await fc.assert(
        fc.asyncProperty(requests(), async (request) => {
          const response = await app.request(route, { ...request, token });
          expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(isFailureEnvelope(response.body), JSON.stringify(response.body)).toBe(true);
        }),
        { numRuns: RUNS },
      );
      expect(await scanTable(endpoint, tableName)).toEqual(before);
    },
    180_000,
  );
});
