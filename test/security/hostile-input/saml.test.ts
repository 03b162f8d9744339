import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { federationEndpoints, type SamlConnection } from '../../../lib/federation/connection';
import { FederationRefused } from '../../../lib/federation/refusal';
import { verifySamlResponse } from '../../../lib/federation/saml';
import { samlRequestId } from '../../../lib/federation/saml-request';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../../helpers/deps';
import { CookieJar } from '../../helpers/hosted';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { createClient } from '../../helpers/oauth';
import { encodeXml, makeSamlIdp, type ResponseOptions, type SamlIdp } from '../../helpers/saml-idp';
import { postSamlResponse, samlConnectionOf, startSamlSignIn } from '../../helpers/saml-sign-in';
import { nasty, PUBLISHED_REFUSALS, publishedSince } from './mixed-requests';

/**
 * Hostile SAML responses (docs/api.md 14.5). At the library: 300 documents made from a
 * valid signed response by flipping, cutting and inserting (entities, comments,
 * processing instructions, CDATA, another assertion, deep nesting), and random base64:
 * each is refused with FederationRefused, or, when the change left the signed bytes
 * alone, read as exactly the claims the IdP signed. At the ACS: 200 hostile forms,
 * each answered with a 4xx page (never a 5xx), the table unchanged but for the audit
 * events of the refusals.
 */
const RUNS = 300;

const HOSTILE_PIECES = [
  '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
  '<!---->',
  '<?x y?>',
  '<![CDATA[<saml:Assertion>]]>',
  '<saml:Assertion ID="_evil"><saml:Issuer>https://idp.example.test/saml</saml:Issuer></saml:Assertion>',
  '&amp;',
  '&#0;',
  '<a>'.repeat(2000),
  '\u0000',
  '"',
  '>',
];

describe('hostile SAML responses', () => {
  let idp: SamlIdp;
  let connection: SamlConnection;
  let valid: string;
  let options: ResponseOptions;
  const issuer = 'https://id.example.test';
  const pending = { key: 'hostileInputPending' };
  const deps = {
    config: { issuer },
    clock: { now: () => Date.now() },
    // Every run may use the one assertion ID again: the ledger accepts all (replays are not the subject here).
    store: { samlAssertions: { accept: async () => true } },
  };

  beforeAll(async () => {
    idp = await makeSamlIdp();
    connection = {
      id: 'hostile-saml',
      tenantId: 'hostile',
      type: 'saml',
      name: 'Hostile',
      domains: ['example.test'],
      defaultRole: 'ANALYST',
      jitProvisioning: false,
      ssoRequired: false,
      enabled: true,
      createdAt: '2026-11-25T00:00:00.000Z',
      updatedAt: '2026-11-25T00:00:00.000Z',
      createdBy: 'admin',
      idpEntityId: idp.entityId,
      ssoUrl: 'https://idp.example.test/sso',
      signingCertificates: [idp.cert],
      roleAttribute: 'groups',
    };
    const { acsUrl, spEntityId } = federationEndpoints(issuer, connection.id);
    options = {
      acsUrl,
      spEntityId,
      inResponseTo: samlRequestId(pending.key),
      nameId: 'employee-1',
      attributes: { email: ['jane@example.test'], groups: ['staff'] },
      now: Date.now(),
      notOnOrAfterMs: 3600_000,
    };
    valid = idp.response(options);
  });

  const mutated = () =>
    fc.oneof(
      fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...HOSTILE_PIECES)).map(([at, _, piece]) => {
        const i = at % valid.length;
        return valid.slice(0, i) + piece + valid.slice(i);
      }),
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 50 })).map(([at, length]) => {
        const i = at % valid.length;
        return valid.slice(0, i) + valid.slice(i + length);
      }),
      fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 1 })).map(([at, c]) => {
        const i = at % valid.length;
        return valid.slice(0, i) + c + valid.slice(i + 1);
      }),
    );

  it(`refuses ${RUNS} changed documents, or reads exactly the signed claims`, async () => {
    const signed = { subject: 'employee-1', email: 'jane@example.test', roles: ['staff'], mfa: false };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 9, arbitrary: mutated().map(encodeXml) }, { weight: 1, arbitrary: fc.base64String() }, nasty),
        async (SAMLResponse) => {
          try {
            expect(await verifySamlResponse(deps, connection, pending, { SAMLResponse })).toEqual(signed);
          } catch (error) {
            if (!(error instanceof FederationRefused)) throw error;
            expect(['invalid_response', 'replayed']).toContain(error.reason);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('hostile forms to the SAML ACS', () => {
  const tableName = `hostile-saml-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  let deps: TestDeps;
  let app: App;
  let tenantId: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
  });

  it('answers 200 hostile forms with a 4xx page, never a 5xx; only refusals are recorded', async () => {
    tenantId = uniqueTenant('hostile-saml');
    const domain = `${tenantId}.example`;
    const admin = await registerAdmin(app, tenantId);
    const [client, idp] = await Promise.all([createClient(app, admin.token, tenantId), makeSamlIdp()]);
    const saml = await samlConnectionOf(deps, tenantId, domain, {
      idpEntityId: idp.entityId,
      ssoUrl: 'https://idp.example.test/sso',
      signingCertificates: [idp.cert],
    });
    // One real pending sign-in with its cookie: a hostile form may find it, then fail the checks.
    const jar = new CookieJar();
    const start = await startSamlSignIn(app, jar, client, `victim@${domain}`);
    const before = await scanTable(endpoint, tableName);
    const field = fc.oneof(nasty, fc.base64String(), fc.constant(start.relayState));
    await fc.assert(
      fc.asyncProperty(
        fc.record({ SAMLResponse: field, RelayState: field }, { requiredKeys: [] }),
        fc.boolean(),
        async (form, otherConnection) => {
          const answer = await postSamlResponse(app, jar, otherConnection ? 'no-such-connection' : saml.id, form);
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expect(answer.status).toBeLessThan(500);
        },
      ),
      { numRuns: 200 },
    );
    const after = await scanTable(endpoint, tableName);
    const key = (item: Record<string, unknown>) => `${String(item.pk)} ${String(item.sk)}`;
    const known = new Set(before.map(key));
    const added = after.filter((item) => !known.has(key(item)));
    // Refusals only: audited, and published (docs/events.md) as refused sign-ins.
    expect(added.filter((item) => !/#(AUDIT|EVENTS)/.test(String(item.pk))).map(key)).toEqual([]);
    expect([...publishedSince(before, after)].filter((type) => !PUBLISHED_REFUSALS.includes(type))).toEqual([]);
    // The one pending sign-in was taken (once) by the first form that named it.
    expect(after.filter((item) => String(item.pk).startsWith('FEDREQ#')).map((item) => item.usedAt)).toEqual([expect.any(Number)]);
  });
});
