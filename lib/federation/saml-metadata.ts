import { federationEndpoints, type SamlConnection } from './connection';

/*
 * The SAML service provider's metadata (docs/api.md 14.5), apart from lib/federation/saml.ts
 * so that the metadata function's bundle carries no XML signature library.
 */

export const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const NAMEID_PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** The NameID formats the SP metadata offers (persistent first: the subject that stays). */
export const SAML_NAMEID_FORMATS = [NAMEID_PERSISTENT, NAMEID_EMAIL] as const;

/** A value written into an XML attribute or text. */
export const escapeXml = (value: string) =>
  value.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The SP metadata of a connection (SAML metadata 2.4.4): what the merchant's IdP is configured with. */
export function samlSpMetadata(issuer: string, connection: Pick<SamlConnection, 'id'>): string {
  const { acsUrl, spEntityId } = federationEndpoints(issuer, connection.id);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${escapeXml(spEntityId)}">`,
    '  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    ...SAML_NAMEID_FORMATS.map((format) => `    <md:NameIDFormat>${format}</md:NameIDFormat>`),
    `    <md:AssertionConsumerService index="0" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(acsUrl)}"/>`,
    '  </md:SPSSODescriptor>',
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}
