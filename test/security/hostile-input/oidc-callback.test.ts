import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { OidcConnection } from '../../../lib/federation/connection';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { setOff, verifiedDomain } from '../../helpers/federation';
import { browserAuthorize, CookieJar } from '../../helpers/hosted';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, type TestClient } from '../../helpers/oauth';
import { startOidcIdp, storedOidcConnection, type TestIdp } from '../../helpers/oidc-idp';
import { nasty } from './mixed-requests';

/**
 * Hostile answers at GET /sso/oidc/callback (docs/api.md 14.4): any query (a `state` of
 * nobody's, or of a real pending sign-in with a hostile `code`, `iss`, `error` or more),
 * any cookie. Every answer is a 4xx error page, never a 5xx; no user and no session is
 * made; the only writes are the pending sign-ins taken and the refusals' audit events.
 */
const RUNS = 100;

describe('hostile input to the OIDC callback', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-oidc-${Date.now()}`;
  let deps: TestDeps;
  let app: App;
  let client: TestClient;
  let connection: OidcConnection;
  let idp: TestIdp;
  const jar = new CookieJar();

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    const tenantId = uniqueTenant('hostile-oidc');
    const admin = await registerAdmin(app, tenantId);
    client = await createClient(app, admin.token, tenantId);
    const domain = await verifiedDomain(deps, tenantId);
    idp = await startOidcIdp({ redirectUri: `${deps.config.issuer}/sso/oidc/callback` });
    connection = await storedOidcConnection(deps, tenantId, idp, { domains: [domain] });
    await browserAuthorize(app, jar, client);
  });

  afterAll(async () => {
    await idp?.close();
  });

  const made = async () =>
    (await scanTable(endpoint, tableName)).filter((item) => ['PROFILE', 'USERNAME', 'SESSION'].includes(String(item.sk))).length;

  it('answers every hostile callback with a 4xx error page and makes no user and no session', async () => {
    const before = await made();
    const hostile = fc.oneof(nasty, fc.string({ maxLength: 600 }));
    const answers = fc.record(
      {
        realState: fc.boolean(),
        state: hostile,
        code: hostile,
        iss: fc.oneof(hostile, fc.constant(idp.issuer)),
        error: hostile,
        session_state: hostile,
      },
      { requiredKeys: ['realState'] },
    );
    await fc.assert(
      fc.asyncProperty(answers, fc.boolean(), async ({ realState, ...query }, withCookie) => {
        if (realState) query.state = (await setOff(deps, jar, connection)).key;
        const response = await app.request('ssoOidcCallback', {
          method: 'GET',
          headers: withCookie ? jar.header() : {},
          query: Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<string, string>,
        });
        expect(response.status, JSON.stringify(query)).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(String(response.body)).toContain('role="alert"');
      }),
      { numRuns: RUNS },
    );
    expect(await made()).toBe(before);
    expect(deps.logs.filter((line) => line.level === 'error')).toEqual([]);
  }, 120_000);
});
