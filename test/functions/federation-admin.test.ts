import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config';
import { GetCommand } from '../../lib/store/commands';
import { createDynamo } from '../../lib/store/dynamo';
import { keys } from '../../lib/store/keys';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { failure } from '../helpers/failures';
import { certificateBody, idpCertificate, idpMetadata, oidcConnection, samlConnection, verifiedDomain } from '../helpers/federation-admin';

const PASSWORD = 'federation admin passphrase';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const noStore = expect.objectContaining({ 'Cache-Control': 'no-store' });
const answer = (status: number, data: unknown) => ({ status, headers: noStore, body: { success: true, data } });
const refused = (status: number, error: string) => ({ status, headers: expect.anything(), body: failure(error) });

describe('enterprise sign-in administration (docs/api.md 14.1, 14.2)', () => {
  let deps: TestDeps;
  let app: App;
  let dns: TestDnsServer;
  let tenantId: string;
  let token: string;
  let issuer: string;
  /** A domain no other test (or run) uses. */
  const newDomain = () => `${uniqueTenant('corp')}.example`;
  const newTenant = async () => {
    const tenant = uniqueTenant('fedadm');
    return { tenantId: tenant, token: (await registerAdmin(app, tenant, 'admin', PASSWORD)).token };
  };
  /** The connection's record as the table holds it, every attribute. */
  const storedConnection = async (id: string) => {
    const { Item } = await createDynamo({
      tableName: deps.config.tableName,
      region: deps.config.awsRegion,
      endpoint: deps.config.dynamodbEndpoint,
    }).doc.send(new GetCommand({ TableName: deps.config.tableName, Key: keys.connection(id) }));
    return (Item ?? {}) as Record<string, unknown> & { clientSecretSealed?: string };
  };

  beforeAll(async () => {
    dns = await startDnsServer();
    deps = nearRealTime(await testDeps({ DNS_SERVERS: dns.address }));
    app = testApp(deps);
    issuer = deps.config.issuer;
    ({ tenantId, token } = await newTenant());
  });
  afterAll(() => dns.close());

  describe('POST /admin/connections', () => {
    it('creates an OIDC connection: 201 with the redirect URI to give the IdP, never the client secret, which is stored sealed', async () => {
      const domain = newDomain();
      const body = oidcConnection([domain.toUpperCase(), `${domain}.`]);
      const created = await app.request('adminCreateConnection', { token, body });
      const connection = {
        id: expect.stringMatching(UUID),
        type: 'oidc',
        name: 'Acme Okta',
        domains: [domain],
        roleMapping: { 'Store Admins': 'ADMIN', Buyers: 'SOURCING' },
        defaultRole: 'ANALYST',
        jitProvisioning: true,
        ssoRequired: false,
        enabled: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        issuer: 'https://acme.okta.example',
        clientId: '0oa1acme',
        scopes: ['openid', 'email', 'profile'],
        roleClaim: 'groups',
        redirectUri: `${issuer}/sso/oidc/callback`,
      };
      expect(created).toEqual(answer(201, { connection }));
      const { id } = created.body.data.connection;
      expect(await app.request('adminReadConnection', { token, pathParameters: { id } })).toEqual(answer(200, { connection }));
      const stored = await storedConnection(id);
      expect(stored.clientSecretSealed).toMatch(/^v2\./);
      expect(JSON.stringify(stored)).not.toContain(body.clientSecret);
      expect(JSON.stringify(deps.logs)).not.toContain(body.clientSecret);
    });

    it('creates a SAML connection from metadata: the IdP’s entity id, HTTP-Redirect SSO URL and signing certificate, and the SP’s ACS URL and entity id', async () => {
      const domain = newDomain();
      const created = await app.request('adminCreateConnection', { token, body: await samlConnection([domain]) });
      const id = created.body.data.connection.id;
      expect(created).toEqual(
        answer(201, {
          connection: {
            id: expect.stringMatching(UUID),
            type: 'saml',
            name: 'Acme Entra ID',
            domains: [domain],
            defaultRole: 'OPERATOR',
            jitProvisioning: false,
            ssoRequired: false,
            enabled: true,
            createdAt: expect.stringMatching(ISO),
            updatedAt: expect.stringMatching(ISO),
            entityId: 'http://www.okta.com/exk1acme',
            ssoUrl: 'https://acme.okta.example/app/sso/saml',
            signingCertificates: [expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/)],
            roleAttribute: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
            acsUrl: `${issuer}/sso/saml/${id}/acs`,
            spEntityId: `${issuer}/sso/saml/${id}/metadata`,
            spMetadataUrl: `${issuer}/sso/saml/${id}/metadata`,
          },
        }),
      );
      expect(certificateBody(created.body.data.connection.signingCertificates[0])).toBe(certificateBody(await idpCertificate()));
    });

    it('creates a SAML connection from its entity id, SSO URL and certificates, and takes an OIDC connection’s scopes with openid first', async () => {
      const pem = await idpCertificate();
      const { metadataXml: _, ...saml } = await samlConnection([newDomain()]);
      const created = await app.request('adminCreateConnection', {
        token,
        body: { ...saml, entityId: 'urn:acme:idp', ssoUrl: 'https://idp.acme.example/sso', signingCertificates: [pem, pem] },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.connection).toMatchObject({ entityId: 'urn:acme:idp', ssoUrl: 'https://idp.acme.example/sso' });
      expect(created.body.data.connection.signingCertificates).toHaveLength(1);
      const oidc = await app.request('adminCreateConnection', {
        token,
        body: oidcConnection([newDomain()], { scopes: ['email', 'groups', 'email'], enabled: false }),
      });
      expect(oidc.body.data.connection).toMatchObject({ scopes: ['openid', 'email', 'groups'], enabled: false });
    });

    const domain = 'shop.example';
    it.each([
      [{ issuer: 'http://acme.okta.example' }, 'issuer: Invalid URL: expected an absolute https URL'],
      [{ issuer: 'acme.okta.example' }, 'issuer: Invalid URL: expected an absolute https URL'],
      [{ issuer: 'https://acme.okta.example/#x' }, 'issuer: Invalid URL: expected an absolute https URL'],
      [{ roleMapping: { Admins: 'ROOT' } }, expect.stringMatching(/^roleMapping\.Admins: Invalid option/)],
      [{ defaultRole: 'SUPERUSER' }, expect.stringMatching(/^defaultRole: Invalid option/)],
      [{ domains: [] }, 'domains: Too small: expected array to have >=1 items'],
      [
        { domains: ['not a domain'] },
        'domains.0: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        { domains: ['localhost'] },
        'domains.0: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        { domains: ['10.0.0.1'] },
        'domains.0: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        { domains: ['bücher.example'] },
        'domains.0: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [{ clientSecret: '' }, 'clientSecret: Too small: expected string to have >=1 characters'],
      [{ clientId: 'has space' }, 'clientId: Invalid value: expected printable ASCII without spaces'],
      [{ jitProvisioning: 'yes' }, 'jitProvisioning: Invalid input: expected boolean, received string'],
      [{ ssoRequired: undefined }, 'ssoRequired: Invalid input: expected boolean, received undefined'],
      [{ tenantId: 'other' }, expect.stringMatching(/^body: Unrecognized key/)],
      [{ type: 'ldap' }, "type: Invalid discriminator value. Expected 'oidc' | 'saml'"],
      [{ metadataXml: '<x/>' }, expect.stringMatching(/^body: Unrecognized key/)],
    ])('answers 400 for an OIDC connection with %j and stores nothing', async (change, error) => {
      const before = (await deps.store.connections.listByTenant(tenantId)).length;
      const response = await app.request('adminCreateConnection', { token, body: { ...oidcConnection([domain]), ...change } });
      expect(response).toEqual({
        status: 400,
        headers: expect.anything(),
        body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
      });
      expect(await deps.store.connections.listByTenant(tenantId)).toHaveLength(before);
    });

    it.each([
      ['no source', async () => ({ metadataXml: undefined }), 'metadataXml: Give metadataXml, or entityId, ssoUrl and signingCertificates'],
      [
        'metadata and fields',
        async () => ({ entityId: 'urn:x' }),
        'metadataXml: Give metadataXml, or entityId, ssoUrl and signingCertificates',
      ],
      [
        'a DOCTYPE',
        async () => ({ metadataXml: '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>' }),
        'metadataXml: Metadata must not contain a DOCTYPE or entities',
      ],
      [
        'not XML',
        async () => ({ metadataXml: 'not xml at all' }),
        'metadataXml: Metadata must describe exactly one identity provider (IDPSSODescriptor)',
      ],
      [
        'an http SSO URL',
        async () => ({ metadataXml: idpMetadata(await idpCertificate(), 'urn:x', 'http://idp.example/sso') }),
        'ssoUrl: Invalid URL: expected an absolute https URL',
      ],
      [
        'a certificate that is not one',
        async () => ({
          metadataXml: undefined,
          entityId: 'urn:x',
          ssoUrl: 'https://idp.example/sso',
          signingCertificates: ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'],
        }),
        'signingCertificates: Invalid certificate: expected an X.509 certificate in PEM',
      ],
      ['an OIDC field', async () => ({ issuer: 'https://x.example' }), expect.stringMatching(/^body: Unrecognized key/)],
    ])('answers 400 for a SAML connection with %s', async (_, change, error) => {
      const body = { ...(await samlConnection(['shop.example'])), ...(await change()) };
      const response = await app.request('adminCreateConnection', { token, body });
      expect(response).toEqual({
        status: 400,
        headers: expect.anything(),
        body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
      });
    });

    it('takes an IdP on http://localhost only where the stage allows it (npm start), never in a deployed stage', async () => {
      const local = oidcConnection([newDomain()], { issuer: 'http://127.0.0.1:9400/oidc' });
      expect((await app.request('adminCreateConnection', { token, body: local })).status).toBe(201);
      const deployed = testApp({ ...deps, config: { ...deps.config, loopbackIdentityProviders: false } });
      expect(await deployed.request('adminCreateConnection', { token, body: local })).toEqual(
        refused(400, 'issuer: Invalid URL: expected an absolute https URL'),
      );
      expect(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'f', ...LAMBDA }).loopbackIdentityProviders).toBe(false);
      expect(readConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).loopbackIdentityProviders).toBe(true);
    });
  });

  describe('GET, PATCH and DELETE /admin/connections/{id}', () => {
    it('lists the tenant’s connections, oldest first, without secrets', async () => {
      const other = await newTenant();
      const first = await app.request('adminCreateConnection', {
        token: other.token,
        body: oidcConnection([newDomain()], { name: 'First' }),
      });
      deps.clock.advance(1);
      await app.request('adminCreateConnection', { token: other.token, body: await samlConnection([newDomain()], { name: 'Second' }) });
      const listed = await app.request('adminListConnections', { token: other.token });
      expect(listed.status).toBe(200);
      expect(listed.body.data.connections.map((c: { name: string }) => c.name)).toEqual(['First', 'Second']);
      expect(listed.body.data.connections[0]).toEqual(first.body.data.connection);
      expect(JSON.stringify(listed.body)).not.toMatch(/clientSecret|Sealed/);
    });

    it('changes the fields given, replaces the client secret sealed, removes a role mapping set to null', async () => {
      const created = await app.request('adminCreateConnection', { token, body: oidcConnection([newDomain()]) });
      const { id } = created.body.data.connection;
      const sealed = (await storedConnection(id)).clientSecretSealed;
      deps.clock.advance(5);
      const domain = newDomain();
      const changed = await app.request('adminUpdateConnection', {
        token,
        pathParameters: { id },
        body: {
          name: 'Okta (new org)',
          domains: [domain],
          roleMapping: null,
          roleClaim: null,
          clientSecret: 'rotated-secret-Lk83hdQ',
          enabled: false,
          ssoRequired: true,
        },
      });
      const { roleMapping: _, roleClaim: __, ...rest } = created.body.data.connection;
      expect(changed).toEqual(
        answer(200, {
          connection: {
            ...rest,
            name: 'Okta (new org)',
            domains: [domain],
            enabled: false,
            ssoRequired: true,
            updatedAt: expect.stringMatching(ISO),
          },
        }),
      );
      expect(changed.body.data.connection.updatedAt).not.toBe(created.body.data.connection.updatedAt);
      const stored = await storedConnection(id);
      expect(stored.clientSecretSealed).toMatch(/^v2\./);
      expect(stored.clientSecretSealed).not.toBe(sealed);
      expect(JSON.stringify(stored)).not.toContain('rotated-secret-Lk83hdQ');
      expect(await deps.mfaSecrets.open(String(stored.clientSecretSealed), `federation client secret ${tenantId} ${id}`)).toBe(
        'rotated-secret-Lk83hdQ',
      );
    });

    it('changes a SAML connection’s IdP by new metadata', async () => {
      const { id } = (await app.request('adminCreateConnection', { token, body: await samlConnection([newDomain()]) })).body.data
        .connection;
      const metadataXml = idpMetadata(await idpCertificate(), 'urn:acme:new', 'https://new.acme.example/sso');
      const changed = await app.request('adminUpdateConnection', { token, pathParameters: { id }, body: { metadataXml } });
      expect(changed.body.data.connection).toMatchObject({ entityId: 'urn:acme:new', ssoUrl: 'https://new.acme.example/sso' });
      expect(await app.request('adminUpdateConnection', { token, pathParameters: { id }, body: { clientSecret: 'x' } })).toEqual(
        refused(400, 'clientSecret: Not a field of a saml connection'),
      );
      expect(await app.request('adminUpdateConnection', { token, pathParameters: { id }, body: {} })).toEqual(
        refused(400, 'body: Nothing to change'),
      );
    });

    it('deletes a connection; then it is not found, and deleting it again is 404', async () => {
      const { id } = (await app.request('adminCreateConnection', { token, body: oidcConnection([newDomain()]) })).body.data.connection;
      expect(await app.request('adminDeleteConnection', { token, pathParameters: { id } })).toEqual(
        answer(200, { message: 'Connection deleted' }),
      );
      const notFound = refused(404, 'Connection not found');
      expect(await app.request('adminReadConnection', { token, pathParameters: { id } })).toEqual(notFound);
      expect(await app.request('adminDeleteConnection', { token, pathParameters: { id } })).toEqual(notFound);
      expect(await app.request('adminUpdateConnection', { token, pathParameters: { id }, body: { name: 'x' } })).toEqual(notFound);
      expect(await deps.store.connections.find(id)).toBeUndefined();
    });

    it('audits every change with the connection’s id and name, never its secret', async () => {
      const { id } = (await app.request('adminCreateConnection', { token, body: oidcConnection([newDomain()], { name: 'Audited' }) })).body
        .data.connection;
      await app.request('adminUpdateConnection', { token, pathParameters: { id }, body: { clientSecret: 'audit-secret-Qw7eR' } });
      await app.request('adminDeleteConnection', { token, pathParameters: { id } });
      const events = (await app.request('adminListAudit', { token, query: { limit: '50' } })).body.data.events.filter(
        (event: { details: { connectionId?: string } }) => event.details.connectionId === id,
      );
      // Events of one millisecond are listed in no particular order.
      expect(events.map((event: { type: string; details: unknown }) => [event.type, event.details]).sort()).toEqual([
        ['connection_created', { connectionId: id, name: 'Audited' }],
        ['connection_deleted', { connectionId: id, name: 'Audited' }],
        ['connection_updated', { connectionId: id, name: 'Audited' }],
      ]);
      expect(JSON.stringify(events)).not.toContain('audit-secret-Qw7eR');
    });
  });

  describe('POST /admin/domains and verification', () => {
    it('adds a domain pending, with the TXT record to publish; verifies it once the record is there', async () => {
      const domain = newDomain();
      const added = await app.request('adminAddDomain', { token, body: { domain: ` ${domain.toUpperCase()}. ` } });
      expect(added).toEqual(
        answer(201, {
          domain,
          status: 'pending',
          verification: {
            type: 'dns-txt',
            name: `_identity-verification.${domain}`,
            value: expect.stringMatching(/^identity-verification=[\w-]{43}$/),
          },
          createdAt: expect.stringMatching(ISO),
        }),
      );
      const verify = () => app.request('adminVerifyDomain', { token, pathParameters: { domain } });
      expect(await verify()).toEqual(refused(400, 'Domain not verified'));
      dns.txt.set(added.body.data.verification.name, ['v=spf1 -all', 'identity-verification=wrong']);
      expect(await verify()).toEqual(refused(400, 'Domain not verified'));
      dns.txt.set(added.body.data.verification.name, ['v=spf1 -all', added.body.data.verification.value]);
      expect(await verify()).toEqual(answer(200, { domain, status: 'verified' }));
      // Asked again (a lost answer): verified, with no lookup.
      const asked = dns.queries.length;
      expect(await verify()).toEqual(answer(200, { domain, status: 'verified' }));
      expect(dns.queries).toHaveLength(asked);
      const listed = await app.request('adminListDomains', { token });
      expect(listed.body.data.domains).toContainEqual({
        domain,
        status: 'verified',
        createdAt: expect.stringMatching(ISO),
        verifiedAt: expect.stringMatching(ISO),
      });
      expect(await deps.store.domains.claimOf(domain)).toEqual({ tenantId, verifiedAt: expect.stringMatching(ISO) });
      expect(await app.request('adminAddDomain', { token, body: { domain } })).toEqual(refused(409, 'Domain already added'));
    });

    it('verifies a domain for one tenant only: 409 Domain already claimed to the others, at adding and at verifying', async () => {
      const domain = newDomain();
      const other = await newTenant();
      const pending = await app.request('adminAddDomain', { token: other.token, body: { domain } });
      expect(pending.status).toBe(201);
      await verifiedDomain(app, dns, token, domain);
      dns.txt.set(pending.body.data.verification.name, [pending.body.data.verification.value]);
      expect(await app.request('adminVerifyDomain', { token: other.token, pathParameters: { domain } })).toEqual(
        refused(409, 'Domain already claimed'),
      );
      const third = await newTenant();
      expect(await app.request('adminAddDomain', { token: third.token, body: { domain } })).toEqual(refused(409, 'Domain already claimed'));
      // Deleting it frees the claim: the other tenant verifies it now.
      expect(await app.request('adminDeleteDomain', { token, pathParameters: { domain } })).toEqual(
        answer(200, { message: 'Domain deleted' }),
      );
      expect(await deps.store.domains.claimOf(domain)).toBeUndefined();
      expect(await app.request('adminVerifyDomain', { token: other.token, pathParameters: { domain } })).toEqual(
        answer(200, { domain, status: 'verified' }),
      );
      expect(await app.request('adminDeleteDomain', { token, pathParameters: { domain } })).toEqual(refused(404, 'Domain not found'));
    });

    it('answers 503 within the lookup deadline when the DNS server does not answer, and changes nothing', async () => {
      const domain = newDomain();
      await app.request('adminAddDomain', { token, body: { domain } });
      dns.silent = true;
      const started = Date.now();
      try {
        const response = await app.request('adminVerifyDomain', { token, pathParameters: { domain } });
        expect(response).toEqual({
          status: 503,
          headers: expect.objectContaining({ 'Retry-After': '5' }),
          body: failure('Service unavailable'),
        });
      } finally {
        dns.silent = false;
      }
      expect(Date.now() - started).toBeLessThan(4000);
      expect((await deps.store.domains.find(tenantId, domain))?.status).toBe('pending');
    });

    it.each([
      ['', 'domain: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)'],
      [
        '-acme.example',
        'domain: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        'acme..example',
        'domain: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        '*.acme.example',
        'domain: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        'acme.example/x',
        'domain: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [
        `${'a'.repeat(64)}.example`,
        'domain: Invalid domain name: expected letters, digits, hyphens and dots (an internationalized name in its xn-- form)',
      ],
      [`${'abcdefghi.'.repeat(26)}example`, 'domain: Too big: expected string to have <=254 characters'],
    ])('answers 400 for the domain %j', async (domain, error) => {
      expect(await app.request('adminAddDomain', { token, body: { domain } })).toEqual(refused(400, error));
    });

    it('answers 404 Domain not found for a domain the tenant does not have', async () => {
      const domain = newDomain();
      expect(await app.request('adminVerifyDomain', { token, pathParameters: { domain } })).toEqual(refused(404, 'Domain not found'));
      expect(await app.request('adminDeleteDomain', { token, pathParameters: { domain } })).toEqual(refused(404, 'Domain not found'));
    });

    it('audits adding, verifying and deleting a domain', async () => {
      const domain = newDomain();
      await verifiedDomain(app, dns, token, domain);
      await app.request('adminDeleteDomain', { token, pathParameters: { domain } });
      const events = (await app.request('adminListAudit', { token, query: { limit: '50' } })).body.data.events.filter(
        (event: { details: { domain?: string } }) => event.details.domain === domain,
      );
      expect(events.map((event: { type: string }) => event.type).sort()).toEqual(['domain_added', 'domain_deleted', 'domain_verified']);
    });
  });

  it('answers 403 Permission denied to anyone but an ADMIN on every route', async () => {
    const manager = await registerStaff(app, token, { username: `manager-${Date.now()}`, password: PASSWORD, role: 'MANAGER', tenantId });
    const id = '00000000-0000-4000-8000-000000000000';
    const calls: Array<[string, Record<string, unknown>]> = [
      ['adminCreateConnection', { body: oidcConnection(['acme.example']) }],
      ['adminListConnections', {}],
      ['adminReadConnection', { pathParameters: { id } }],
      ['adminUpdateConnection', { pathParameters: { id }, body: { name: 'x' } }],
      ['adminDeleteConnection', { pathParameters: { id } }],
      ['adminAddDomain', { body: { domain: 'acme.example' } }],
      ['adminListDomains', {}],
      ['adminVerifyDomain', { pathParameters: { domain: 'acme.example' } }],
      ['adminDeleteDomain', { pathParameters: { domain: 'acme.example' } }],
    ];
    for (const [name, spec] of calls) {
      expect(await app.request(name, { ...spec, token: manager.token }), name).toEqual(refused(403, 'Permission denied'));
      expect(await app.request(name, spec), name).toEqual(refused(403, 'Permission denied'));
    }
  });
});

/** A Lambda environment complete enough for readConfig. */
const LAMBDA = {
  TABLE_NAME: 't',
  ISSUER: 'https://id.example.com',
  CORS_ALLOWED_ORIGINS: 'https://app.example.com',
  SIGNING_KEYS_SOURCE: 'secretsmanager',
  SIGNING_KEYS_SECRET_ID: 's',
  WEBAUTHN_RP_ID: 'example.com',
  WEBAUTHN_ORIGINS: 'https://app.example.com',
};
