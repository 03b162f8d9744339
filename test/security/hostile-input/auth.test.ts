import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Identity } from '../../../lib/tokens/access-token';
import { type App, type RouteName, registerAdmin, testApp } from '../../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { expanding, PUBLISHED_REFUSALS, publishedSince } from './mixed-requests';

/**
 * Property-based hostile input to the /auth routes and the JWKS (mfa.test.ts and
 * oauth.test.ts beside this file cover the other routes): random and malformed bodies
 * and queries, wrong types, empty, huge and unicode strings, prototype keys, duplicate
 * keys and wrong content types. Every answer is the envelope with a 4xx and a message,
 * never a 5xx, and rejected requests change nothing in the table.
 */
const RUNS = 1000;

const hugeString = fc.integer({ min: 15_000, max: 17_000 }).map((n) => 'ü'.repeat(Math.floor(n / 2)));
const nastyString = fc.oneof(
  expanding,
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', '__proto__', 'constructor', '#', 'T#x#USER#y', '../../etc/passwd', '%00', '\ud800', 'null', 'ADMIN'),
  hugeString,
);
const anyValue = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string()),
  fc.dictionary(fc.string(), fc.string()),
);
const contentType = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json; charset=utf-16',
);

/** A body for an operation: its own field names with hostile values, plus hostile keys. */
function bodyFor(fields: string[], poison: Record<string, fc.Arbitrary<unknown>>) {
  const fieldValues = Object.fromEntries(fields.map((field) => [field, anyValue]));
  const structured = fc
    .tuple(
      fc.record(fieldValues, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'), anyValue),
      fc.record(poison),
    )
    .map(([values, prototypeKeys, poisoned]) => {
      const text = JSON.stringify({ ...values, ...poisoned });
      const extra = Object.entries(prototypeKeys).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
      return extra.length ? text.replace(/^\{/, `{${extra.join(',')}${text === '{}' ? '' : ','}`) : text;
    });
  const duplicateKeys = fc
    .tuple(fc.constantFrom(...fields), anyValue, anyValue)
    .map(([field, a, b]) => `{${JSON.stringify(field)}:${JSON.stringify(a)},${JSON.stringify(field)}:${JSON.stringify(b)}}`);
  return fc.oneof(
    { weight: 6, arbitrary: structured },
    { weight: 1, arbitrary: duplicateKeys },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

interface Operation {
  route: RouteName;
  fields: string[];
  /** Values that make the request invalid whatever else it carries. */
  poison: Record<string, fc.Arbitrary<unknown>>;
  /** Send a valid identity with some requests (only where that cannot change data). */
  withIdentity: boolean;
  /** Answers that are fine for this operation besides 4xx. */
  alsoOk: number[];
}

const OPERATIONS: Operation[] = [
  { route: 'login', fields: ['username', 'password', 'tenantId', 'mfaCode', 'mfaMethod'], poison: {}, withIdentity: false, alsoOk: [] },
  { route: 'refreshToken', fields: ['refreshToken'], poison: {}, withIdentity: false, alsoOk: [] },
  {
    route: 'register',
    fields: ['username', 'password', 'role', 'tenantId', 'shopId', 'email'],
    poison: {
      role: fc.oneof(
        nastyString.filter((r) => !['ADMIN', 'MANAGER', 'OPERATOR', 'FINANCE', 'SOURCING', 'LOGISTICS', 'ANALYST'].includes(r)),
        fc.integer(),
      ),
    },
    withIdentity: true,
    alsoOk: [],
  },
  { route: 'logout', fields: ['all'], poison: {}, withIdentity: false, alsoOk: [] },
  { route: 'me', fields: ['user'], poison: {}, withIdentity: true, alsoOk: [200] },
  // Never the right password: no session changes; failures only count (login counters are not compared).
  { route: 'reauthenticate', fields: ['password', 'mfaCode', 'mfaMethod'], poison: {}, withIdentity: true, alsoOk: [] },
  { route: 'changePassword', fields: ['currentPassword', 'newPassword'], poison: {}, withIdentity: true, alsoOk: [] },
  { route: 'jwks', fields: ['keys'], poison: {}, withIdentity: false, alsoOk: [200] },
  // Forgotten password and email (docs/api.md 8.7, 8.8). A valid forgot request waits 400 ms:
  // the tenant is invalid but for a duplicated key, which may pass (202, a reset record of nobody).
  {
    route: 'passwordForgot',
    fields: ['username', 'tenantId'],
    poison: { tenantId: fc.oneof(fc.integer(), fc.constant(''), fc.string({ minLength: 129, maxLength: 300 })) },
    withIdentity: false,
    alsoOk: [202],
  },
  // Never a code that was sent: only the reset attempt counters change (not compared).
  {
    route: 'passwordReset',
    fields: ['username', 'tenantId', 'code', 'newPassword', 'mfaCode', 'mfaMethod'],
    poison: {},
    withIdentity: false,
    alsoOk: [],
  },
  // A valid address would be stored: the address is always invalid here.
  {
    route: 'emailSet',
    fields: ['email'],
    poison: {
      email: fc.oneof(
        fc.integer(),
        nastyString.filter((value) => !value.includes('@')),
      ),
    },
    withIdentity: true,
    alsoOk: [],
  },
  { route: 'emailVerify', fields: ['code'], poison: {}, withIdentity: true, alsoOk: [] },
  // Passkeys (docs/api.md 12): never a credential for an issued challenge; refusals are audited.
  { route: 'passkeyRegistration', fields: ['credential', 'name'], poison: {}, withIdentity: true, alsoOk: [] },
  { route: 'passkeyAuthentication', fields: ['credential', 'tenantId'], poison: {}, withIdentity: false, alsoOk: [] },
];

describe('hostile input to login, refresh, register, logout, me, reauthenticate, password change, forgot/reset, email and the JWKS', () => {
  let deps: TestDeps;
  let app: App;
  let identity: Identity;
  let token: string;
  const tableName = `hostile-${Date.now()}`;

  beforeAll(async () => {
    await createTable(inject('dynamodbEndpoint'), tableName);
    deps = await testDeps({ TABLE_NAME: tableName });
    app = testApp(deps);
    const admin = await registerAdmin(app, uniqueTenant());
    token = admin.token;
    const seen = await app.identityOf(token);
    if (!seen) throw new Error('no identity');
    identity = seen;
  });

  it.each(OPERATIONS)(
    'answers every malformed $route request with a 4xx envelope and changes nothing',
    async (operation) => {
      // What a hostile request may change by design, compared apart: failed-login counters, the
      // reset records of a username (its failed-reset counter; a forgot request's code, of
      // nobody for an unknown username), and the audit events of refusals (docs/api.md 9.8)
      // with their published events (docs/events.md).
      // A refused passkey sign-in counts against its source address like a failed login (docs/api.md 12.6).
      const counted = (item: Record<string, unknown>) => /#(LOGIN|AUDIT|RESET|EVENTS)#|^SOURCE#/.test(String(item.pk));
      const scannedBefore = await scanTable(inject('dynamodbEndpoint'), tableName);
      const before = scannedBefore.filter((item) => !counted(item));
      const eventsBefore = new Set(scannedBefore.map((item) => item.id));
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          bodyFor(operation.fields, operation.poison),
          contentType,
          fc.boolean(),
          fc.option(fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 50 }), { maxKeys: 4 })),
          async (body, type, authenticated, query) => {
            const response = await app.request(operation.route, {
              body,
              headers: type ? { 'content-type': type } : {},
              ...(query ? { query } : {}),
              ...(operation.withIdentity && authenticated ? { token } : {}),
            });
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            expect(response.status).toBeLessThan(500);
            if (operation.alsoOk.includes(response.status)) return;
            expect(response.status).toBeGreaterThanOrEqual(400);
            expect(isFailureEnvelope(response.body), JSON.stringify(response.body)).toBe(true);
            expect(response.body.error.length).toBeGreaterThan(0);
            expect(response.body.error).not.toMatch(/\n\s+at /);
          },
        ),
        { numRuns: RUNS },
      );
      if (process.env.SHOW_COUNTS) console.log(operation.route, Object.fromEntries(statuses));
      const scanned = await scanTable(inject('dynamodbEndpoint'), tableName);
      expect(scanned.filter((item) => !counted(item))).toEqual(before);
      // The only events a malformed request may leave are refusals.
      const events = scanned.filter((item) => String(item.pk).includes('#AUDIT#') && !eventsBefore.has(item.id));
      const refusals = [
        'login_failed',
        'login_locked',
        'password_change_failed',
        'reauthentication_failed',
        'password_reset_failed',
        'email_verification_failed',
        'passkey_registration_failed',
      ];
      expect(events.filter((event) => event.outcome !== 'failure' || !refusals.includes(String(event.type)))).toEqual([]);
      expect([...publishedSince(scannedBefore, scanned)].filter((type) => !PUBLISHED_REFUSALS.includes(type))).toEqual([]);
      // The session the authenticated cases ran with is still the same, valid one.
      expect(await app.identityOf(token)).toEqual(identity);
    },
    180_000,
  );
});
