import fc from 'fast-check';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { UNPAIRED_SURROGATE } from '../../../lib/sessions/device';
import { type App, type AppRequest, type RouteName, registerAdmin, registerStaff, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient, grantTokens } from '../../helpers/oauth';
import { nasty } from './mixed-requests';

/**
 * Hostile path ids to the session and grant revocations (docs/api.md 8.3, 8.4), sent by a
 * signed-in user at another user's records: huge, Unicode, `../`, key separators, the
 * other user's ids with something appended. Every answer is a 4xx in the envelope and
 * nothing in the table changes. Hostile user agents at sign-in are stored bounded.
 */
const RUNS = 300;
const PASSWORD = 'a hostile passphrase';

describe('hostile input to the session and grant routes', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-sessions-${Date.now()}`;
  let deps: TestDeps;
  let app: App;
  let tenantId: string;
  let token: string;
  let victimSession: string;
  let victimGrant: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    tenantId = uniqueTenant('hostile-sessions');
    const admin = await registerAdmin(app, tenantId, 'admin', PASSWORD);
    const client = await createClient(app, admin.token, tenantId);
    const grant = await grantTokens(app, admin.token, client);
    victimSession = String(decodeJwt(admin.token).sid);
    victimGrant = grant.refresh_token.split('.')[0] ?? '';
    token = (await registerStaff(app, admin.token, { username: 'member', password: PASSWORD, role: 'OPERATOR', tenantId })).token;
  });

  const id = (victim: () => string) =>
    fc.oneof(
      nasty,
      fc.string({ minLength: 65, maxLength: 5000 }),
      fc.constantFrom('../', '..%2F..%2F', '%23', 'a/b', 'ü', '\u202e', '　'),
      fc.constantFrom('#', '%', '/', '.', ' ', '\u0000').map((suffix) => `${victim()}${suffix}`),
      fc.constant(0).map(() => victim().toLowerCase()),
    );
  const cases: Array<[RouteName, () => fc.Arbitrary<AppRequest>]> = [
    ['revokeSession', () => id(() => victimSession).map((sessionId) => ({ pathParameters: { sessionId } }))],
    ['revokeGrant', () => id(() => victimGrant).map((grantId) => ({ pathParameters: { grantId } }))],
  ];

  it.each(cases)(
    'answers every hostile %s request with a 4xx and changes nothing',
    async (route, requests) => {
      const before = await scanTable(endpoint, tableName);
      await fc.assert(
        fc.asyncProperty(requests(), async (request) => {
          const response = await app.request(route, { ...request, token });
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(isFailureEnvelope(response.body), JSON.stringify(response.body)).toBe(true);
        }),
        { numRuns: RUNS },
      );
      expect(await scanTable(endpoint, tableName)).toEqual(before);
    },
    180_000,
  );

  it('stores any user agent bounded to 256 characters, without control characters, and lists it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(nasty, fc.string({ unit: 'binary', maxLength: 4000 })), async (userAgent) => {
        const login = await app.request('login', {
          body: { username: 'member', password: PASSWORD, tenantId },
          headers: { 'user-agent': userAgent },
        });
        expect(login.status).toBe(200);
        const listed = await app.request('listSessions', { token: login.body.data.token });
        expect(listed.status).toBe(200);
        const current = listed.body.data.sessions.find((session: { current: boolean }) => session.current);
        const stored: string | null = current.userAgent;
        if (stored === null) return;
        expect(stored.length).toBeGreaterThan(0);
        expect(stored.length).toBeLessThanOrEqual(256);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters must be gone
        expect(stored).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(stored).not.toMatch(new RegExp(UNPAIRED_SURROGATE.source));
      }),
      { numRuns: 50 },
    );
  }, 120_000);
});
