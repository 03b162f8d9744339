import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { MAX_SIGNING_CERTIFICATES, METADATA_MAX_CHARS } from './admin-input';

/*
 * SAML 2.0 IdP metadata (SAML Metadata 2.0, 2.4.3) as a tenant's ADMIN pastes it
 * (docs/api.md 14.1): the entity id, where AuthnRequests go by HTTP-Redirect, and the
 * certificates whose keys may sign. Metadata comes from whoever has an ADMIN's session:
 * it is parsed with no DTD (so no entity expansion, no external entity), bounded in size,
 * and every certificate must parse as X.509.
 */

const METADATA = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What a SAML connection keeps of its IdP's metadata. */
export interface IdpMetadata {
  entityId: string;
  /** The HTTP-Redirect SingleSignOnService's location. */
  ssoUrl: string;
  /** PEM, as crypto.X509Certificate prints them. */
  signingCertificates: string[];
}

/** The metadata was refused; the message says why, for the ADMIN. */
export class MetadataError extends Error {
  override name = 'MetadataError';
}

/** A certificate in PEM (or its bare base64 DER, as metadata carries it) as PEM; throws MetadataError when it does not parse. */
export function pemCertificate(text: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (body.length === 0 || body.length > 16 * 1024 || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw new MetadataError('Invalid certificate: expected an X.509 certificate in PEM');
  }
  try {
    return new X509Certificate(Buffer.from(body, 'base64')).toString();
  } catch {
    throw new MetadataError('Invalid certificate: expected an X.509 certificate in PEM');
  }
}

/** Elements of a namespace and local name under `parent`, in document order. */
function elements(parent: { getElementsByTagNameNS(ns: string, name: string): ArrayLike<unknown> }, ns: string, name: string) {
  return Array.from(parent.getElementsByTagNameNS(ns, name)) as Element[];
}

/** Parses IdP metadata; throws MetadataError naming what is wrong or missing. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  if (xml.length > METADATA_MAX_CHARS) throw new MetadataError(`Metadata too large: at most ${METADATA_MAX_CHARS} characters`);
  // A DTD is what entity expansion ("billion laughs") and external entities need: none is taken.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new MetadataError('Metadata must not contain a DOCTYPE or entities');
  const notXml = () => new MetadataError('Metadata is not well-formed XML');
  const fail = () => {
    throw notXml();
  };
  let document: ReturnType<DOMParser['parseFromString']>;
  try {
    document = new DOMParser({ errorHandler: { warning: () => undefined, error: fail, fatalError: fail } }).parseFromString(
      xml,
      'application/xml',
    );
  } catch {
    throw notXml();
  }
  const entity = elements(document, METADATA, 'EntityDescriptor').filter(
    (candidate) => elements(candidate, METADATA, 'IDPSSODescriptor').length > 0,
  );
  if (entity.length !== 1 || !entity[0]) throw new MetadataError('Metadata must describe exactly one identity provider (IDPSSODescriptor)');
  const entityId = entity[0].getAttribute('entityID')?.trim() ?? '';
  if (entityId.length === 0 || entityId.length > 1024) throw new MetadataError('Metadata has no entityID');

  const idp = elements(entity[0], METADATA, 'IDPSSODescriptor')[0] as Element;
  const redirect = elements(idp, METADATA, 'SingleSignOnService').find((service) => service.getAttribute('Binding') === HTTP_REDIRECT);
  const ssoUrl = redirect?.getAttribute('Location')?.trim() ?? '';
  if (!ssoUrl) throw new MetadataError('Metadata has no SingleSignOnService with the HTTP-Redirect binding');

  // Keys for signing: those marked `signing`, and those of no `use` (both uses).
  const signing = elements(idp, METADATA, 'KeyDescriptor').filter((key) => {
    const use = key.getAttribute('use');
    return !use || use === 'signing';
  });
  const certificates = signing.flatMap((key) => elements(key, DSIG, 'X509Certificate').map((node) => node.textContent ?? ''));
  if (certificates.length === 0) throw new MetadataError('Metadata has no signing certificate');
  if (certificates.length > MAX_SIGNING_CERTIFICATES) throw new MetadataError('Metadata has too many signing certificates');
  return { entityId, ssoUrl, signingCertificates: [...new Set(certificates.map(pemCertificate))] };
}
