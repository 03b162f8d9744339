import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { body as createInvitationBody } from '../../../functions/admin-create-invitation';
import { body as createShopBody } from '../../../functions/admin-create-shop';
import { body as importBody } from '../../../functions/admin-import-users';
import { body as updateTenantBody } from '../../../functions/admin-update-tenant';
import { body as updateBody } from '../../../functions/admin-update-user';
import { importRow } from '../../../lib/admin/import';
import { importedHashError } from '../../../lib/crypto/hash-formats';
import { type App, type AppRequest, type RouteName, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { anyValue, asSent, asText, nasty } from './mixed-requests';

/**
 * Hostile path parameters, queries and bodies to the tenant administration (docs/api.md
 * 9), sent by a real ADMIN at real users: every answer is a 4xx in the envelope (or, for a
 * well-formed listing, a 200), and the table does not change.
 */
const RUNS = 300;
const queryValue = fc.oneof(nasty, fc.constantFrom('0', '101', '-1', '1.5', 'ADMIN', 'active', 'e30', 'eyJ0IjoieCJ9'));

describe('hostile input to the tenant administration', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-admin-${Date.now()}`;
  let app: App;
  let token: string;
  let memberId: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    const tenantId = uniqueTenant('hostile-admin');
    token = (await registerAdmin(app, tenantId)).token;
    const member = await app.request('register', {
      token,
      body: { username: 'member', password: 'a member passphrase', role: 'OPERATOR', tenantId },
    });
    memberId = member.body.data.user.id;
  });

  const userId = () => fc.oneof(nasty, fc.constant(memberId.toUpperCase()), fc.constant(`${memberId}#`), fc.uuid());
  const cases: Array<[RouteName, () => fc.Arbitrary<AppRequest>]> = [
    [
      'adminListUsers',
      () =>
        fc
          .dictionary(fc.constantFrom('limit', 'cursor', 'role', 'status', 'tenantId', '__proto__'), queryValue, { minKeys: 1, maxKeys: 4 })
          .map((query) => ({ query })),
    ],
    ['adminReadUser', () => userId().map((id) => ({ pathParameters: { userId: id } }))],
    ['adminDeleteUser', () => userId().map((id) => ({ pathParameters: { userId: id } }))],
    ['adminResetUserMfa', () => userId().map((id) => ({ pathParameters: { userId: id } }))],
    ['adminSignOutUser', () => userId().map((id) => ({ pathParameters: { userId: id } }))],
    [
      'adminUpdateUser',
      () =>
        fc
          .tuple(
            fc.oneof(fc.constant(memberId), userId()),
            fc.oneof(
              fc.dictionary(fc.constantFrom('role', 'shopId', 'status', 'passwordHash', 'sessionEpoch', '__proto__'), anyValue, {
                maxKeys: 3,
              }),
              anyValue,
            ),
          )
          // A valid change (an empty body is none) is not hostile: left to the functional tests.
          .filter(([, body]) => (typeof body !== 'string' || body.trim() !== '') && !updateBody.safeParse(asSent(body)).success)
          .map(([id, body]) => ({ pathParameters: { userId: id }, body: asText(body) })),
    ],
    [
      'adminListAudit',
      () =>
        fc
          .dictionary(
            fc.constantFrom('limit', 'cursor', 'userId', 'type', 'tenantId', '__proto__'),
            fc.oneof(queryValue, fc.constantFrom('login_failed', memberId, 'RVZFTlQjMDAw')),
            { minKeys: 1, maxKeys: 4 },
          )
          .map((query) => ({ query })),
    ],
    [
      'adminCreateShop',
      () =>
        fc
          .oneof(fc.dictionary(fc.constantFrom('shopId', 'name', 'tenantId', '__proto__'), anyValue, { maxKeys: 3 }), anyValue)
          // A valid shop is not hostile: left to the functional tests.
          .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !createShopBody.safeParse(asSent(body)).success)
          .map((body) => ({ body: asText(body) })),
    ],
    // Invitations (docs/api.md 13.1).
    [
      'adminCreateInvitation',
      () =>
        fc
          .oneof(
            fc.dictionary(fc.constantFrom('email', 'role', 'shopId', 'username', 'tenantId', '__proto__'), anyValue, { maxKeys: 4 }),
            fc.record({
              email: fc.oneof(nasty, fc.constantFrom('a@b', '@example.com', `${'x'.repeat(250)}@e.co`)),
              role: fc.constant('ANALYST'),
            }),
            anyValue,
          )
          // A valid invitation is not hostile: left to the functional tests.
          .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !createInvitationBody.safeParse(asSent(body)).success)
          .map((body) => ({ body: asText(body) })),
    ],
    [
      'adminListInvitations',
      () =>
        fc
          .dictionary(fc.constantFrom('status', 'limit', 'cursor', 'tenantId', '__proto__'), queryValue, { minKeys: 1, maxKeys: 4 })
          .map((query) => ({ query })),
    ],
    ['adminRevokeInvitation', () => fc.oneof(nasty, fc.uuid()).map((id) => ({ pathParameters: { id } }))],
    ['adminResendInvitation', () => fc.oneof(nasty, fc.uuid()).map((id) => ({ pathParameters: { id } }))],
    [
      'acceptInvitation',
      () =>
        fc
          .oneof(
            fc.dictionary(fc.constantFrom('token', 'username', 'password', 'tenantId', '__proto__'), anyValue, { maxKeys: 4 }),
            fc.record({ token: nasty, username: fc.constant('someone'), password: fc.constant('a fine passphrase') }),
            anyValue,
          )
          .filter((body) => typeof body !== 'string' || body.trim() !== '')
          .map((body) => ({ body: asText(body) })),
    ],
    [
      'adminImportUsers',
      () =>
        fc
          .oneof(fc.dictionary(fc.constantFrom('users', 'tenantId', '__proto__'), anyValue, { maxKeys: 2 }), anyValue)
          // A list of rows is answered row by row: below.
          .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !importBody.safeParse(asSent(body)).success)
          .map((body) => ({ body: asText(body) })),
    ],
    [
      'adminUpdateTenant',
      () =>
        fc
          .oneof(
            fc.dictionary(fc.constantFrom('displayName', 'tenantId', 'createdAt', '__proto__'), anyValue, { maxKeys: 3 }),
            fc.record({ displayName: fc.oneof(nasty, fc.constantFrom('', '   ', 'a\nb', 'a\u202eb', 'x'.repeat(101))) }),
            anyValue,
          )
          // A valid name is not hostile: left to the functional tests.
          .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !updateTenantBody.safeParse(asSent(body)).success)
          .map((body) => ({ body: asText(body) })),
    ],
  ];

  /** Hashes that look like the formats of docs/api.md 13.2 with hostile costs, lengths and characters. */
  const hostileHash = fc.oneof(
    nasty,
    fc
      .tuple(fc.constantFrom('2a', '2b', '2y', '2x', '2'), fc.integer({ min: -1, max: 99 }), nasty)
      .map(([v, cost, rest]) => `$${v}$${cost}$${rest}`),
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), nasty, nasty).map(([n, salt, digest]) => `$pbkdf2-sha256$${n}$${salt}$${digest}`),
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), nasty).map(([n, digest]) => `pbkdf2_sha256$${n}$salt$${digest}`),
    fc
      .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 2 ** 31 }))
      .map(([ln, r, p]) => `$scrypt$ln=${ln},r=${r},p=${p}$${'a'.repeat(22)}$${'a'.repeat(43)}`),
    fc
      .tuple(fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 2 ** 31 }))
      .map(([n, r, p]) => `scrypt$${n}$salt$${r}$${p}$${'a'.repeat(86)}==`),
    fc
      .tuple(fc.integer({ min: 0, max: 2 ** 32 }), fc.integer({ min: 0, max: 2 ** 32 }), fc.integer({ min: 0, max: 300 }))
      .map(([m, t, p]) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${'a'.repeat(22)}$${'a'.repeat(43)}`),
  );
  const hostileRow = fc.oneof(
    anyValue,
    fc.record(
      {
        username: fc.oneof(nasty, fc.constant('member')),
        role: fc.oneof(anyValue, fc.constantFrom('ADMIN', 'OPERATOR')),
        shopId: fc.oneof(nasty, fc.constantFrom('default', 'other-tenants-shop')),
        email: anyValue,
        emailVerified: anyValue,
        passwordHash: hostileHash,
        __proto__: anyValue,
      },
      { requiredKeys: ['passwordHash'] },
    ),
  );
  /** A row that would create a user: not hostile (the functional tests import those). */
  const wouldCreate = (row: unknown) => {
    const parsed = importRow.safeParse(row);
    return parsed.success && (parsed.data.passwordHash === undefined || importedHashError(parsed.data.passwordHash) === undefined);
  };

  it('answers lists of hostile rows row by row, 200 with every row failed by its index, and creates no one', async () => {
    const users = async () => (await scanTable(endpoint, tableName)).filter((item) => !String(item.pk).includes('#AUDIT#'));
    const before = await users();
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileRow, { minLength: 1, maxLength: 20 }).filter((rows) => !rows.some(wouldCreate)),
        async (rows) => {
          const body = JSON.stringify({ users: rows });
          const response = await app.request('adminImportUsers', { token, body });
          // A `__proto__` key anywhere refuses the whole body (the JSON parser's prototype guard, docs/api.md 2).
          if (body.includes('"__proto__":')) {
            expect(response.status, JSON.stringify(response.body)).toBe(400);
            expect(isFailureEnvelope(response.body)).toBe(true);
            return;
          }
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          expect(response.body.data.imported).toBe(0);
          expect(response.body.data.failed.map((failure: { index: number }) => failure.index)).toEqual(rows.map((_, i) => i));
        },
      ),
      { numRuns: 200 },
    );
    // 1,000 odd rows in one body near 1 MiB: answered in time, row by row.
    const huge = Array.from({ length: 1000 }, (_, i) => ({
      username: `huge-${i}`,
      role: 'ANALYST',
      passwordHash: `$pbkdf2-sha256$1000$${'a'.repeat(900)}$${'a'.repeat(44)}`,
    }));
    const started = Date.now();
    const answer = await app.request('adminImportUsers', { token, body: JSON.stringify({ users: huge }) });
    expect(answer.body.data.failed).toHaveLength(1000);
    expect(answer.body.data.failed[999]).toEqual({ index: 999, error: 'Unsupported password hash' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await users()).toEqual(before);
  }, 180_000);

  it.each(cases)(
    'answers every malformed %s request with a 4xx and changes nothing',
    async (route, requests) => {
      const before = await scanTable(endpoint, tableName);
      await fc.assert(
        fc.asyncProperty(requests(), async (request) => {
          const response = await app.request(route, { ...request, token });
          if ((route === 'adminListUsers' || route === 'adminListAudit' || route === 'adminListInvitations') && response.status === 200)
            return;
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

  it('answers every hostile invitation link on the hosted page with the 400 page and changes nothing (docs/api.md 13.1)', async () => {
    const before = await scanTable(endpoint, tableName);
    await fc.assert(
      fc.asyncProperty(nasty, async (link) => {
        const response = await app.request('hostedInvitationPage', { pathParameters: { token: link } });
        expect(response.status).toBe(400);
        expect(String(response.headers['Content-Type'])).toContain('text/html');
      }),
      { numRuns: RUNS },
    );
    expect(await scanTable(endpoint, tableName)).toEqual(before);
  }, 180_000);
});
