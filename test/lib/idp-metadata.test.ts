import { describe, expect, it } from 'vitest';
import { METADATA_MAX_CHARS } from '../../lib/federation/admin-input';
import { MetadataError, parseIdpMetadata, pemCertificate } from '../../lib/federation/metadata';
import { certificateBody, idpCertificate, idpMetadata } from '../helpers/federation-admin';

const refused = (xml: string) => {
  try {
    parseIdpMetadata(xml);
  } catch (error) {
    if (error instanceof MetadataError) return error.message;
    throw error;
  }
  throw new Error('metadata taken');
};

describe('SAML IdP metadata (docs/api.md 14.1)', () => {
  it('reads the entity id, the HTTP-Redirect SSO URL and the signing certificates', async () => {
    const pem = await idpCertificate();
    expect(parseIdpMetadata(idpMetadata(pem))).toEqual({
      entityId: 'http://www.okta.com/exk1acme',
      ssoUrl: 'https://acme.okta.example/app/sso/saml',
      signingCertificates: [pemCertificate(pem)],
    });
  });

  it('takes keys for signing or of no use, not those for encryption, inside an EntitiesDescriptor too', async () => {
    const body = certificateBody(await idpCertificate());
    const key = (use: string) =>
      `<md:KeyDescriptor ${use}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    const xml = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
      <md:EntityDescriptor entityID="urn:sp"><md:SPSSODescriptor/></md:EntityDescriptor>
      <md:EntityDescriptor entityID="urn:idp"><md:IDPSSODescriptor>${key('use="encryption"')}${key('')}
        <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>
      </md:IDPSSODescriptor></md:EntityDescriptor></md:EntitiesDescriptor>`;
    expect(parseIdpMetadata(xml)).toMatchObject({
      entityId: 'urn:idp',
      signingCertificates: [expect.stringContaining('BEGIN CERTIFICATE')],
    });
    expect(refused(xml.replace(key(''), ''))).toBe('Metadata has no signing certificate');
  });

  it.each([
    [
      'an entity expansion bomb',
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><x>&lol2;</x>',
      'Metadata must not contain a DOCTYPE or entities',
    ],
    [
      'an external entity',
      '<?xml version="1.0"?><!doctype x [<!entity xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>',
      'Metadata must not contain a DOCTYPE or entities',
    ],
    ['text', 'metadata', 'Metadata must describe exactly one identity provider (IDPSSODescriptor)'],
    ['nothing', '', 'Metadata is not well-formed XML'],
    ['two roots', '<a/><b/>', 'Metadata is not well-formed XML'],
    [
      'no IdP',
      '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>',
      'Metadata must describe exactly one identity provider (IDPSSODescriptor)',
    ],
    [
      'an IdP of another namespace',
      '<EntityDescriptor entityID="x"><IDPSSODescriptor/></EntityDescriptor>',
      'Metadata must describe exactly one identity provider (IDPSSODescriptor)',
    ],
    ['too much', `<x>${' '.repeat(METADATA_MAX_CHARS)}</x>`, `Metadata too large: at most ${METADATA_MAX_CHARS} characters`],
  ])('refuses %s', (_, xml, message) => {
    expect(refused(xml)).toBe(message);
  });

  it('refuses metadata without an entity id, an HTTP-Redirect service, or with a certificate that is not one', async () => {
    const xml = idpMetadata(await idpCertificate());
    expect(refused(xml.replace('entityID="http://www.okta.com/exk1acme"', 'entityID=""'))).toBe('Metadata has no entityID');
    expect(refused(xml.replace('bindings:HTTP-Redirect', 'bindings:HTTP-Artifact'))).toBe(
      'Metadata has no SingleSignOnService with the HTTP-Redirect binding',
    );
    expect(refused(xml.replace(/<ds:X509Certificate>[^<]+/, '<ds:X509Certificate>QUJD'))).toBe(
      'Invalid certificate: expected an X.509 certificate in PEM',
    );
  });
});
