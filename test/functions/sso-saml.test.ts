import { beforeAll, describe, expect, it } from 'vitest';
import { federationEndpoints, type SamlConnection } from '../../lib/federation/connection';
import { samlSpMetadata } from '../../lib/federation/saml';
import { type App, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';

describe('SAML routes (docs/api.md 14.5)', () => {
  let deps: TestDeps;
  let app: App;
  let connection: SamlConnection;

  beforeAll(async () => {
    deps = await testDeps();
    app = testApp(deps);
    const now = new Date(deps.clock.now()).toISOString();
    connection = {
      id: deps.random.id(),
      tenantId: uniqueTenant('saml'),
      type: 'saml',
      name: 'Okta',
      domains: ['example.com'],
      defaultRole: 'ANALYST',
      jitProvisioning: false,
      ssoRequired: false,
      enabled: false,
      createdAt: now,
      updatedAt: now,
      createdBy: 'admin',
      idpEntityId: 'https://idp.example.com',
      ssoUrl: 'https://idp.example.com/sso',
      signingCertificates: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
    };
    await deps.store.connections.create(connection);
  });

  describe('GET /sso/saml/{connectionId}/metadata', () => {
    it('answers 200 with the SP metadata of the connection, even while it is disabled', async () => {
      const answer = await app.request('ssoSamlMetadata', { pathParameters: { connectionId: connection.id } });
      expect(answer).toEqual({
        status: 200,
        headers: expect.objectContaining({
          'Content-Type': 'application/samlmetadata+xml; charset=utf-8',
          'Cache-Control': 'public, max-age=300',
        }),
        body: samlSpMetadata(deps.config.issuer, connection),
      });
      const { acsUrl, spEntityId } = federationEndpoints(deps.config.issuer, connection.id);
      expect(answer.body).toContain(`entityID="${spEntityId}"`);
      expect(answer.body).toContain(`Location="${acsUrl}"`);
    });

    it('answers 404 Connection not found for an unknown connection', async () => {
      const answer = await app.request('ssoSamlMetadata', { pathParameters: { connectionId: 'no-such-connection' } });
      expect(answer).toEqual({ status: 404, headers: expect.anything(), body: failure('Connection not found') });
    });
  });
});
