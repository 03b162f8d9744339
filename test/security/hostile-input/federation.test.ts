import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { storedConnection, verifiedDomain } from '../../helpers/federation';
import { browserAuthorize, CookieJar, continueLocation, postForm } from '../../helpers/hosted';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, type TestClient } from '../../helpers/oauth';
import { nasty } from './mixed-requests';

/**
 * Hostile input to home-realm discovery (docs/api.md 14.3): the identifier typed on the
 * first page of a tenant with a connection, and GET /sso/begin's query and cookies. Every
 * answer is a page (the password page, the page on to /sso/begin, or a 4xx error page),
 * never a 5xx, and nothing in the table changes.
 */
const RUNS = 150;

describe('hostile input to home-realm discovery', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-discovery-${Date.now()}`;
  let deps: TestDeps;
  let app: App;
  let client: TestClient;
  let connectionId: string;
  let domain: string;
  let origin: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    const tenantId = uniqueTenant('hostile-fed');
    const admin = await registerAdmin(app, tenantId);
    client = await createClient(app, admin.token, tenantId);
    domain = await verifiedDomain(deps, tenantId);
    connectionId = (await storedConnection(deps, tenantId)).id;
  });

  const identifiers = () =>
    fc.oneof(
      nasty,
      fc.string({ minLength: 1, maxLength: 400 }),
      fc.tuple(fc.oneof(nasty, fc.string({ maxLength: 80 })), fc.oneof(nasty, fc.string({ maxLength: 200 }))).map(([a, b]) => `${a}@${b}`),
      fc.constantFrom('@', '@@', 'a@', '@b', '\u0000@x', `x@${'a'.repeat(300)}`).map((value) => value),
      fc.oneof(nasty, fc.constantFrom('.', '\u202e', '%23', '#', 'Ｅ', '.')).map((suffix) => `pat@${domain}${suffix}`),
    );

  // The password page offers a passkey, with a WebAuthn challenge of its own (docs/api.md 11.11).
  const besidesChallenges = async () => (await scanTable(endpoint, tableName)).filter((item) => item.sk !== 'CHALLENGE');

  it('answers every hostile identifier with a page and writes nothing but passkey challenges', async () => {
    const jar = new CookieJar();
    const { csrf } = await browserAuthorize(app, jar, client);
    const before = await besidesChallenges();
    await fc.assert(
      fc.asyncProperty(identifiers(), async (username) => {
        const response = await postForm(app, jar, 'hostedSignIn', { csrf, username }, origin);
        expect([200, 400], `${response.status} for ${JSON.stringify(username)}`).toContain(response.status);
        const onward = continueLocation(response);
        if (onward !== undefined) expect(new URL(onward).pathname).toBe('/sso/begin');
      }),
      { numRuns: RUNS },
    );
    expect(await besidesChallenges()).toEqual(before);
  }, 120_000);

  it('answers every hostile GET /sso/begin with a 4xx error page and writes nothing', async () => {
    const jar = new CookieJar();
    await browserAuthorize(app, jar, client);
    const before = await scanTable(endpoint, tableName);
    const queries = fc.record(
      {
        connection: fc.oneof(
          nasty,
          fc.string({ maxLength: 300 }),
          fc.constant(connectionId).map((id) => `${id}#`),
        ),
        login_hint: fc.oneof(nasty, fc.string({ maxLength: 600 })),
      },
      { requiredKeys: [] },
    );
    const cookies = fc.oneof(
      fc.constant(jar.header().cookie ?? ''),
      fc.oneof(nasty, fc.string({ maxLength: 400 })).map((value) => `__Host-interaction=${value}`),
      fc.constant(''),
    );
    await fc.assert(
      fc.asyncProperty(queries, cookies, async (query, cookie) => {
        // A hostile query with the real cookie, or the real connection with a hostile cookie.
        const sane = query.connection === connectionId && cookie === jar.header().cookie;
        fc.pre(!sane);
        const response = await app.request('ssoBegin', {
          method: 'GET',
          headers: cookie ? { cookie } : {},
          query: Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<string, string>,
        });
        expect(response.status, JSON.stringify(query)).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(String(response.body)).toContain('role="alert"');
      }),
      { numRuns: RUNS },
    );
    expect(await scanTable(endpoint, tableName)).toEqual(before);
  }, 120_000);
});
