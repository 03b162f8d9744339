import { generate } from 'selfsigned';
import { expect } from 'vitest';
import type { App } from './app';
import type { TestDnsServer } from './dns-server';

/** An OIDC connection's body (docs/api.md 14.1) for the domains given, with a client secret tests can look for. */
export const oidcConnection = (domains: string[], overrides: Record<string, unknown> = {}) => ({
  type: 'oidc',
  name: 'Acme Okta',
  issuer: 'https://acme.okta.example',
  clientId: '0oa1acme',
  clientSecret: 'okta-client-secret-Zq7xW2pL9vB4nM6cK1',
  domains,
  roleClaim: 'groups',
  roleMapping: { 'Store Admins': 'ADMIN', Buyers: 'SOURCING' },
  defaultRole: 'ANALYST',
  jitProvisioning: true,
  ssoRequired: false,
  ...overrides,
});

let certificate: Promise<string> | undefined;
/** A self-signed certificate (PEM) of an IdP, made once per test file. */
export const idpCertificate = () => {
  certificate ??= generate([{ name: 'commonName', value: 'idp.acme.example' }], { keySize: 2048, algorithm: 'sha256' }).then(
    (pems) => pems.cert,
  );
  return certificate;
};

/** The base64 of a PEM certificate, as metadata carries it. */
export const certificateBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

/** SAML IdP metadata (SAML Metadata 2.0) as Okta or Entra ID hand it out. */
export function idpMetadata(pem: string, entityId = 'http://www.okta.com/exk1acme', ssoUrl = 'https://acme.okta.example/app/sso/saml') {
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${certificateBody(pem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

/** A SAML connection's body from metadata. */
export const samlConnection = async (domains: string[], overrides: Record<string, unknown> = {}) => ({
  type: 'saml',
  name: 'Acme Entra ID',
  metadataXml: idpMetadata(await idpCertificate()),
  domains,
  roleAttribute: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
  defaultRole: 'OPERATOR',
  jitProvisioning: false,
  ssoRequired: false,
  ...overrides,
});

/** Adds the domain to the ADMIN's tenant, publishes its TXT record on the test DNS server, verifies it. */
export async function verifiedDomain(app: App, dns: TestDnsServer, token: string, domain: string) {
  const added = await app.request('adminAddDomain', { token, body: { domain } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const { name, value } = added.body.data.verification;
  dns.txt.set(name, [value]);
  const verified = await app.request('adminVerifyDomain', { token, pathParameters: { domain } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
}

/** Creates a connection and answers its id. */
export async function connectionOf(app: App, token: string, body: Record<string, unknown>): Promise<string> {
  const created = await app.request('adminCreateConnection', { token, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.connection.id;
}
