import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';

/*
 * A SAML 2.0 identity provider made in the tests (docs/api.md 14.5): its key and X.509
 * certificate are generated at run time, its responses are written as XML and signed with
 * xml-crypto, and every field the service provider checks has a knob, so that each rule
 * can be broken on its own. `startSamlIdpServer` adds its HTTP-Redirect endpoint, which
 * answers with a page that posts the response back to the ACS, as a real IdP does.
 */

export const SAML = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  password: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
  twoFactor: 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract',
} as const;

export interface SigningKey {
  privateKey: string;
  cert: string;
}

/** A fresh RSA key and its self-signed certificate. */
export async function signingKey(commonName = 'Test IdP'): Promise<SigningKey> {
  const pems = await generate([{ name: 'commonName', value: commonName }], { keySize: 2048, algorithm: 'sha256' });
  return { privateKey: pems.private, cert: pems.cert };
}

/** What the IdP asserts and how it writes it: every field the SP checks can be set on its own. */
export interface ResponseOptions {
  /** The ACS URL: Destination and Recipient unless these are given. */
  acsUrl: string;
  /** The SP entity id: the Audience unless `audience` is given. */
  spEntityId: string;
  /** The AuthnRequest's ID; null for an unsolicited response (no InResponseTo at all). */
  inResponseTo: string | null;
  /** The assertion's SubjectConfirmationData InResponseTo, when it should differ from the response's. */
  subjectInResponseTo?: string;
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string[]>;
  authnContext?: string;
  /** The IdP's clock, in ms. */
  now: number;
  /** Validity from `now`, in ms: NotBefore (negative = in the past) and NotOnOrAfter. */
  notBeforeMs?: number;
  notOnOrAfterMs?: number;
  audience?: string;
  recipient?: string;
  /** The response's Destination; null to leave it out. */
  destination?: string | null;
  issuer?: string;
  assertionId?: string;
  /** Which element carries the signature. */
  sign?: 'response' | 'assertion' | 'both' | 'none';
  /** Sign with another key than the IdP's (a forger's). */
  key?: SigningKey;
}

const escapeXml = (value: string) => value.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface SamlIdp {
  entityId: string;
  key: SigningKey;
  /** The PEM certificate the connection lists. */
  cert: string;
  /** A signed Response as XML. */
  response(options: ResponseOptions): string;
  /** The same, base64 as the HTTP-POST binding carries it. */
  encodedResponse(options: ResponseOptions): string;
}

export async function makeSamlIdp(entityId = 'https://idp.example.test/saml'): Promise<SamlIdp> {
  const key = await signingKey();
  const response = (options: ResponseOptions) => signedResponse(entityId, key, options);
  return {
    entityId,
    key,
    cert: key.cert,
    response,
    encodedResponse: (options) => encodeXml(response(options)),
  };
}

export const encodeXml = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

function unsignedResponse(entityId: string, options: ResponseOptions): { xml: string; responseId: string; assertionId: string } {
  const responseId = `_r${randomUUID()}`;
  const assertionId = options.assertionId ?? `_a${randomUUID()}`;
  const issuer = escapeXml(options.issuer ?? entityId);
  const inResponseTo = options.inResponseTo === null ? '' : ` InResponseTo="${escapeXml(options.inResponseTo)}"`;
  const subjectInResponseTo = options.subjectInResponseTo ?? options.inResponseTo;
  const confirmationInResponseTo = subjectInResponseTo === null ? '' : ` InResponseTo="${escapeXml(subjectInResponseTo)}"`;
  const destination = options.destination === null ? '' : ` Destination="${escapeXml(options.destination ?? options.acsUrl)}"`;
  const notBefore = iso(options.now + (options.notBeforeMs ?? -30_000));
  const notOnOrAfter = iso(options.now + (options.notOnOrAfterMs ?? 5 * 60_000));
  const attributes = Object.entries(options.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeXml(name)}">${values.map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`).join('')}</saml:Attribute>`,
    )
    .join('');
  const xml =
    `<samlp:Response xmlns:samlp="${SAML.protocol}" xmlns:saml="${SAML.assertion}" ID="${responseId}" Version="2.0" IssueInstant="${iso(options.now)}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${SAML.success}"/></samlp:Status>` +
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${iso(options.now)}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${escapeXml(options.nameIdFormat ?? SAML.persistent)}">${escapeXml(options.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${escapeXml(options.recipient ?? options.acsUrl)}"${confirmationInResponseTo}/></saml:SubjectConfirmation>` +
    `</saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${escapeXml(options.audience ?? options.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(options.now)}" SessionIndex="${assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>${escapeXml(options.authnContext ?? SAML.password)}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion></samlp:Response>`;
  return { xml, responseId, assertionId };
}

/** Signs the element `xpath` selects with an enveloped signature placed after its Issuer (SAML core 5.4). */
export function signElement(xml: string, element: 'Response' | 'Assertion', key: SigningKey): string {
  const xpath = element === 'Response' ? "/*[local-name(.)='Response']" : "//*[local-name(.)='Assertion']";
  const signer = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `${xpath}/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signer.getSignedXml();
}

function signedResponse(entityId: string, idpKey: SigningKey, options: ResponseOptions): string {
  const { xml } = unsignedResponse(entityId, options);
  const key = options.key ?? idpKey;
  const sign = options.sign ?? 'assertion';
  const withAssertion = sign === 'assertion' || sign === 'both' ? signElement(xml, 'Assertion', key) : xml;
  return sign === 'response' || sign === 'both' ? signElement(withAssertion, 'Response', key) : withAssertion;
}

/** The fields of an AuthnRequest the IdP answers (SAML bindings 3.4.4.1: deflated, base64). */
export async function readAuthnRequest(samlRequest: string): Promise<{ id: string; acsUrl: string; issuer: string; xml: string }> {
  const xml = (await promisify(inflateRaw)(Buffer.from(samlRequest, 'base64'))).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1];
  const acsUrl = /\sAssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1];
  const issuer = /<saml:Issuer[^>]*>([^<]+)<\/saml:Issuer>/.exec(xml)?.[1];
  if (!id || !acsUrl || !issuer) throw new Error(`Not an AuthnRequest: ${xml}`);
  return { id, acsUrl: acsUrl.replaceAll('&amp;', '&'), issuer: issuer.replaceAll('&amp;', '&'), xml };
}

/** Who signs in at the IdP's endpoint, and how the IdP answers (defaults: a valid response). */
export interface IdpUser {
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string[]>;
  authnContext?: string;
  /** Change the response just before it is posted (an attack, a wrong field). */
  tamper?: (options: ResponseOptions) => ResponseOptions;
}

export interface SamlIdpServer {
  /** The SSO URL of the connection (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Who the next sign-in is. */
  user: IdpUser;
  /** The AuthnRequests received, newest last. */
  requests: Array<{ id: string; acsUrl: string; issuer: string; relayState: string | undefined }>;
  close(): Promise<void>;
}

/**
 * The IdP's HTTP-Redirect SSO endpoint on loopback: it reads the AuthnRequest, signs in
 * `server.user` without asking, and answers the auto-posting form of the HTTP-POST binding
 * (SAML bindings 3.5.4) to the request's ACS URL, RelayState returned as received.
 */
export async function startSamlIdpServer(idp: SamlIdp, user: IdpUser, clock: () => number = Date.now): Promise<SamlIdpServer> {
  const requests: SamlIdpServer['requests'] = [];
  const state = { user };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const samlRequest = url.searchParams.get('SAMLRequest');
    if (url.pathname !== '/sso' || !samlRequest) {
      response.writeHead(404).end();
      return;
    }
    const relayState = url.searchParams.get('RelayState') ?? undefined;
    readAuthnRequest(samlRequest).then(
      (authn) => {
        requests.push({ ...authn, relayState });
        const { tamper, ...asserted } = state.user;
        const options: ResponseOptions = {
          acsUrl: authn.acsUrl,
          spEntityId: authn.issuer,
          inResponseTo: authn.id,
          now: clock(),
          ...asserted,
        };
        const encoded = idp.encodedResponse(tamper ? tamper(options) : options);
        const relay = relayState === undefined ? '' : `<input type="hidden" name="RelayState" value="${escapeXml(relayState)}">`;
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<!doctype html><html><body onload="document.forms[0].submit()"><form method="post" action="${escapeXml(authn.acsUrl)}">` +
              `<input type="hidden" name="SAMLResponse" value="${encoded}">${relay}<noscript><button>Continue</button></noscript></form></body></html>`,
          );
      },
      () => response.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ssoUrl: `http://127.0.0.1:${port}/sso`,
    get user() {
      return state.user;
    },
    set user(next: IdpUser) {
      state.user = next;
    },
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
