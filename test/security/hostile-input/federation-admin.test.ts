import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectionPatch, METADATA_MAX_CHARS, newConnection, newDomain } from '../../../lib/federation/admin-input';
import { type App, type AppRequest, type RouteName, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server';
import { isFailureEnvelope } from '../../helpers/failures';
import { connectionOf, idpCertificate, idpMetadata, oidcConnection } from '../../helpers/federation-admin';
import { createTable, scanTable } from '../../helpers/isolated-table';
import { anyValue, asSent, asText, nasty } from './mixed-requests';

/**
 * Hostile bodies, metadata and path parameters to the connection and domain routes
 * (docs/api.md 14.1, 14.2), sent by a real ADMIN: every answer is a 4xx in the envelope
 * (a 200 for the listings), and the table does not change.
 */
const RUNS = 150;

/** Metadata an attacker would paste: entity bombs, external entities, deep nesting, wrong namespaces, huge values. */
const hostileXml = (pem: string) =>
  fc.oneof(
    nasty,
    fc.constantFrom(
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol1;</lolz>',
      '<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://169.254.169.254/latest/meta-data/"><x/>',
      '<x xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="file:///etc/passwd"/></x>',
      `${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}`,
      `<x a="${'y'.repeat(METADATA_MAX_CHARS)}"/>`,
      idpMetadata(pem).replace('urn:oasis:names:tc:SAML:2.0:metadata', 'urn:evil'),
      idpMetadata(pem).replace('https://acme.okta.example/app/sso/saml"', 'javascript:alert(1)"'),
      idpMetadata(pem).replace('https://acme.okta.example/app/sso/saml"', 'file:///etc/passwd"'),
      idpMetadata(pem).replace(/<ds:X509Certificate>/, '<ds:X509Certificate>!!'),
      `${idpMetadata(pem)}${idpMetadata(pem).replace('<?xml version="1.0" encoding="UTF-8"?>', '')}`,
      idpMetadata(pem).replace('<md:IDPSSODescriptor', '<md:SPSSODescriptor').replace('</md:IDPSSODescriptor', '</md:SPSSODescriptor'),
    ),
    fc.tuple(fc.integer({ min: 1, max: 5000 }), nasty).map(([depth, text]) => `${'<md:x>'.repeat(depth)}${text}`),
  );

/** Domains that look like domains and are not, or are not ours to take. */
const oddDomain = fc.oneof(
  nasty,
  fc.constantFrom(
    'localhost',
    'com',
    '127.0.0.1',
    '[::1]',
    'acme.example:443',
    'user@acme.example',
    'acme.example/',
    '.acme.example',
    'acme..example',
    'xn--.example',
    'ａｃｍｅ.example',
    'acme.example\u0000',
    '%61cme.example',
    `${'a.'.repeat(127)}example`,
  ),
);

describe('hostile input to the enterprise sign-in administration', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-federation-${Date.now()}`;
  let app: App;
  let dns: TestDnsServer;
  let token: string;
  let connectionId: string;
  let pem: string;

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    dns = await startDnsServer();
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName, DNS_SERVERS: dns.address }));
    app = testApp(deps);
    token = (await registerAdmin(app, uniqueTenant('hostile-fed'))).token;
    connectionId = await connectionOf(app, token, oidcConnection(['acme.example']));
    pem = await idpCertificate();
  });
  afterAll(() => dns.close());

  const connectionFields = [
    'type',
    'name',
    'issuer',
    'clientId',
    'clientSecret',
    'clientSecretSealed',
    'scopes',
    'domains',
    'roleClaim',
    'roleMapping',
    'defaultRole',
    'jitProvisioning',
    'ssoRequired',
    'metadataXml',
    'entityId',
    'ssoUrl',
    'signingCertificates',
    'tenantId',
    'id',
    '__proto__',
  ] as const;
  const samlBase = {
    type: 'saml',
    name: 'x',
    domains: ['acme.example'],
    defaultRole: 'ANALYST',
    jitProvisioning: false,
    ssoRequired: false,
  };
  const connectionId_ = () => fc.oneof(nasty, fc.uuid(), fc.constant(`${connectionId}#`), fc.constant(connectionId.toUpperCase()));

  const cases: Array<[RouteName, () => fc.Arbitrary<AppRequest>]> = [
    [
      'adminCreateConnection',
      () =>
        fc
          .oneof(
            fc.dictionary(fc.constantFrom(...connectionFields), anyValue, { maxKeys: 8 }),
            fc.record({
              ...Object.fromEntries(Object.entries(oidcConnection(['acme.example'])).map(([k, v]) => [k, fc.constant(v)])),
              issuer: nasty,
            }),
            fc.record({
              ...Object.fromEntries(Object.entries(oidcConnection(['acme.example'])).map(([k, v]) => [k, fc.constant(v)])),
              domains: fc.array(oddDomain, { minLength: 1, maxLength: 3 }),
            }),
            fc.record({
              ...Object.fromEntries(Object.entries(oidcConnection(['acme.example'])).map(([k, v]) => [k, fc.constant(v)])),
              roleMapping: fc.dictionary(nasty, anyValue, { maxKeys: 3 }),
            }),
            anyValue,
          )
          // A valid connection is not hostile: left to the functional tests.
          .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !newConnection.safeParse(asSent(body)).success)
          .map((body) => ({ body: asText(body) })),
    ],
    ['adminCreateConnection', () => hostileXml(pem).map((metadataXml) => ({ body: JSON.stringify({ ...samlBase, metadataXml }) }))],
    [
      'adminCreateConnection',
      () =>
        fc
          .record({
            entityId: fc.oneof(nasty, fc.constant('urn:x')),
            ssoUrl: fc.oneof(nasty, fc.constantFrom('http://idp.example/sso', 'https://idp.example/sso')),
            signingCertificates: fc.array(fc.oneof(nasty, fc.constant(pem.slice(0, 200))), { minLength: 0, maxLength: 3 }),
          })
          .map((idp) => ({ body: JSON.stringify({ ...samlBase, ...idp }) })),
    ],
    ['adminReadConnection', () => connectionId_().map((id) => ({ pathParameters: { id } }))],
    ['adminDeleteConnection', () => connectionId_().map((id) => ({ pathParameters: { id } }))],
    [
      'adminUpdateConnection',
      () =>
        fc
          .tuple(
            fc.oneof(fc.constant(connectionId), connectionId_()),
            fc.oneof(fc.dictionary(fc.constantFrom(...connectionFields), anyValue, { maxKeys: 4 }), anyValue),
          )
          // A valid change is not hostile: left to the functional tests.
          .filter(([, body]) => (typeof body !== 'string' || body.trim() !== '') && !connectionPatch.safeParse(asSent(body)).success)
          .map(([id, body]) => ({ pathParameters: { id }, body: asText(body) })),
    ],
    [
      'adminAddDomain',
      () =>
        fc
          .oneof(
            fc.record({ domain: oddDomain }),
            fc.dictionary(fc.constantFrom('domain', 'tenantId', 'status', '__proto__'), anyValue, { maxKeys: 3 }),
            anyValue,
          )
          .filter((body) => (typeof body !== 'string' || body.trim() !== '') && !newDomain.safeParse(asSent(body)).success)
          .map((body) => ({ body: asText(body) })),
    ],
    ['adminVerifyDomain', () => oddDomain.map((domain) => ({ pathParameters: { domain } }))],
    ['adminDeleteDomain', () => oddDomain.map((domain) => ({ pathParameters: { domain } }))],
  ];

  it.each(cases)(
    'answers every malformed %s request with a 4xx and changes nothing',
    async (route, requests) => {
      const before = await scanTable(endpoint, tableName);
      await fc.assert(
        fc.asyncProperty(requests(), async (request) => {
          const response = await app.request(route, { ...request, token });
          expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(isFailureEnvelope(response.body), JSON.stringify(response.body).slice(0, 300)).toBe(true);
        }),
        { numRuns: RUNS },
      );
      expect(await scanTable(endpoint, tableName)).toEqual(before);
      expect(dns.queries).toEqual([]);
    },
    180_000,
  );

  it('refuses a body past its size limit with 413, metadata included', async () => {
    const metadataXml = `<x>${'y'.repeat(400 * 1024)}</x>`;
    const response = await app.request('adminCreateConnection', { token, body: JSON.stringify({ ...samlBase, metadataXml }) });
    expect(response.status).toBe(413);
    const domain = await app.request('adminAddDomain', { token, body: JSON.stringify({ domain: `${'a'.repeat(20_000)}.example` }) });
    expect(domain.status).toBe(413);
  });
});
