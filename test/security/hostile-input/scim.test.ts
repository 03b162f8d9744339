import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { userInput } from '../../../lib/scim/schema';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import type { Response } from '../../helpers/http';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { scimClient, scimTokenOf } from '../../helpers/scim';
import { anyValue, asSent, asText, nasty } from './mixed-requests';

/**
 * Hostile filters, ids and bodies to the SCIM routes (docs/api.md 13.3), sent with a real
 * SCIM token: never a 5xx; every refusal a 4xx in SCIM's error shape; a refused list or
 * creation changes nothing (but the token's request counter).
 */
const RUNS = 150;
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** A 4xx in RFC 7644 3.12's shape, or a success. */
function expectScimAnswer(response: Response) {
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
  if (response.status < 400) return;
  expect(response.body).toEqual({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: String(response.status),
    ...(response.body?.scimType !== undefined ? { scimType: expect.any(String) } : {}),
    detail: expect.any(String),
  });
}

const filters = fc.oneof(
  nasty,
  fc.constantFrom(
    'userName eq "a" or userName eq "b"',
    'emails[type eq "work"]',
    'userName pr',
    'not (userName eq "a")',
    '(',
    'userName eq "a" and (externalId eq "b" or displayName eq "c")',
    'meta.lastModified gt "2011-05-13T04:42:34Z"',
    'userName eq 1',
    'userName eq null',
    `userName eq "${'x'.repeat(2000)}"`,
    `userName eq "${'\uFDFA'.repeat(300)}"`,
    `emails.value eq "${'é'.repeat(900)}@x"`,
    `externalId eq "${'é'.repeat(900)}"`,
    'urn:ietf:params:scim:schemas:core:2.0:User:userName eq "admin"',
    'emails.value eq "a@b"',
  ),
);
const ops = fc.oneof(fc.constantFrom('add', 'Replace', 'REMOVE', 'move', 'copy', 'test', ''), nasty);
const paths = fc.oneof(
  fc.constantFrom(
    'active',
    'emails[type eq "work"].value',
    'emails[type eq].value',
    'emails[value eq "x"]',
    'name.givenName',
    'name.nope.deeper',
    'userName',
    'members',
    'members[value eq "x"]',
    'urn:ietf:params:scim:schemas:extension:commerce:2.0:User:shopId',
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
    '__proto__',
    'constructor.prototype',
  ),
  nasty,
);
const operation = fc.record({ op: ops, path: fc.option(paths, { nil: undefined }), value: anyValue }, { requiredKeys: ['op'] });
const patchBody = fc.oneof(
  fc.record({ schemas: fc.constant([PATCH_SCHEMA]), Operations: fc.array(operation, { maxLength: 4 }) }),
  fc.dictionary(fc.constantFrom('schemas', 'Operations', '__proto__'), anyValue, { maxKeys: 2 }),
  anyValue,
);

describe('hostile input to the SCIM routes', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-scim-${Date.now()}`;
  let app: App;
  let adminToken: string;
  let memberId: string;
  const withoutCounters = (items: Array<Record<string, unknown>>) => items.filter((item) => !String(item.sk).startsWith('REQUESTS#'));

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    const tenantId = uniqueTenant('hostile-scim');
    adminToken = (await registerAdmin(app, tenantId)).token;
    const member = await scimClient(app, (await scimTokenOf(app, adminToken)).token)('scimCreateUser', {
      body: { userName: 'member', externalId: 'member-ext', emails: [{ value: 'member@example.com', type: 'work' }] },
    });
    memberId = member.body.id;
  });

  /** A client with a token of its own: each property stays within a token's request budget. */
  const client = async () => scimClient(app, (await scimTokenOf(app, adminToken)).token);
  const userId = () => fc.oneof(nasty, fc.constant(memberId), fc.constant(memberId.toUpperCase()), fc.uuid());

  it('answers every filter, startIndex and count of GET /Users with a 200 or a SCIM 400, and changes nothing', async () => {
    const scim = await client();
    const before = withoutCounters(await scanTable(endpoint, tableName));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('filter', 'startIndex', 'count', 'attributes', '__proto__'), fc.oneof(filters, nasty), {
          minKeys: 1,
          maxKeys: 3,
        }),
        async (query) => expectScimAnswer(await scim('scimListUsers', { query })),
      ),
      { numRuns: RUNS },
    );
    expect(withoutCounters(await scanTable(endpoint, tableName))).toEqual(before);
  }, 120_000);

  it('answers every malformed POST /Users with a SCIM 4xx and changes nothing', async () => {
    const scim = await client();
    const before = withoutCounters(await scanTable(endpoint, tableName));
    const bodies = fc
      .oneof(
        fc.dictionary(fc.constantFrom('userName', 'emails', 'active', 'externalId', 'name', 'schemas', 'id', '__proto__'), anyValue, {
          maxKeys: 4,
        }),
        fc.record({ userName: fc.constantFrom('member', 'MEMBER', 'ｍｅｍｂｅｒ'), externalId: fc.constant('member-ext') }),
        anyValue,
      )
      .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !userInput.safeParse(asSent(body)).success);
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await scim('scimCreateUser', { body: asText(body) });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expectScimAnswer(response);
      }),
      { numRuns: RUNS },
    );
    // Taken names collide (409) and change nothing either.
    expectScimAnswer(await scim('scimCreateUser', { body: { userName: 'MEMBER' } }));
    expect(withoutCounters(await scanTable(endpoint, tableName))).toEqual(before);
  }, 120_000);

  it.each(['scimReadUser', 'scimDeleteUser'])('answers hostile ids of %s with a SCIM 404 or 400', async (route) => {
    const scim = await client();
    await fc.assert(
      fc.asyncProperty(
        userId().filter((id) => id !== memberId),
        async (id) => expectScimAnswer(await scim(route, { pathParameters: { userId: id } })),
      ),
      { numRuns: 50 },
    );
  });

  it('answers every PATCH /Users and PATCH /Groups body with a success or a SCIM 4xx, never a 5xx', async () => {
    const scim = await client();
    await fc.assert(
      fc.asyncProperty(userId(), patchBody, async (id, body) =>
        expectScimAnswer(await scim('scimPatchUser', { pathParameters: { userId: id }, body: asText(body) })),
      ),
      { numRuns: RUNS },
    );
    const groupScim = await client();
    const groupId = fc.oneof(fc.constantFrom('ADMIN', 'MANAGER', 'ANALYST', 'admin', 'NOPE'), nasty);
    await fc.assert(
      fc.asyncProperty(groupId, patchBody, async (id, body) =>
        expectScimAnswer(await groupScim('scimPatchGroup', { pathParameters: { groupId: id }, body: asText(body) })),
      ),
      { numRuns: RUNS },
    );
  }, 180_000);
});
