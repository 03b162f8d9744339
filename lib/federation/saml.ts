import { type Profile, SAML, type SamlConfig, SamlStatusError, ValidateInResponseTo } from '@node-saml/node-saml';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { SamlAssertionStore } from '../store/federation';
import { type FederatedClaims, federationEndpoints, type SamlConnection } from './connection';
import { type FederationFailure, FederationRefused } from './refusal';
import { NAMEID_EMAIL } from './saml-metadata';
import { type SamlPending, samlRequestId } from './saml-request';

/*
 * SAML 2.0 Web SSO, the service provider's side (docs/api.md 14.5; the library and its
 * settings: docs/decisions/014-saml-library.md). node-saml verifies the XML signature and
 * hands back only what the signature covers; the rules of the profile that it leaves to
 * its caller, or checks with the system clock, are checked here on that signed assertion.
 */

/** How far the IdP's clock may be from ours (docs/api.md 14.5). */
export const SAML_CLOCK_SKEW_MS = 3 * 60 * 1000;

/**
 * The most elements a response may have (docs/api.md 14.5): one with 500 group values has
 * about 1,000. The signature check's cost grows faster than the document (its XPath
 * lookups), so a 64 KiB form of empty elements would cost seconds of CPU.
 */
export const SAML_MAX_ELEMENTS = 2_000;

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** The attributes an IdP commonly puts the email address in, when the NameID is not one. */
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];

/** Authentication context classes that mean more than one factor (SAML authn context, REFEDS MFA, Microsoft's). */
const MULTI_FACTOR_CONTEXTS = new Set([
  'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract',
  'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorUnregistered',
  'urn:oasis:names:tc:SAML:2.0:ac:classes:TimeSyncToken',
  'urn:oasis:names:tc:SAML:2.0:ac:classes:SmartcardPKI',
  'https://refeds.org/profile/mfa',
  'http://schemas.microsoft.com/claims/multipleauthn',
]);
/** Entra ID and AD FS also list the methods in this attribute. */
const AUTHN_METHODS_ATTRIBUTE = 'http://schemas.microsoft.com/claims/authnmethodsreferences';

export interface SamlDeps {
  config: Pick<Config, 'issuer'>;
  clock: Clock;
  store: { samlAssertions: SamlAssertionStore };
}

/** The fields the IdP posts to the ACS (SAML bindings 3.5.4, HTTP-POST). */
export interface SamlPost {
  SAMLResponse?: string | undefined;
  RelayState?: string | undefined;
}

/** node-saml set up for one connection and one pending request (exported for the tests' attack table). */
export function samlFor(issuer: string, connection: SamlConnection, requestId: string) {
  const { acsUrl, spEntityId } = federationEndpoints(issuer, connection.id);
  const options: SamlConfig = {
    issuer: spEntityId,
    callbackUrl: acsUrl,
    entryPoint: connection.ssoUrl,
    audience: spEntityId,
    idpCert: connection.signingCertificates,
    // Either signature will do (docs/api.md 14.5): a signed response covers its assertion.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    // InResponseTo and the times are checked below, against the pending request and our clock.
    validateInResponseTo: ValidateInResponseTo.never,
    acceptedClockSkewMs: -1,
    generateUniqueId: () => requestId,
    identifierFormat: null,
    // Asking for a class (node-saml asks for PasswordProtectedTransport) would keep an IdP from asking for more.
    disableRequestedAuthnContext: true,
  };
  return new SAML(options);
}

/**
 * Checks a SAML response posted to the ACS for the pending request and reads the person
 * from it (docs/api.md 14.5): a valid signature of one of the connection's certificates
 * over the response or its one assertion, claims only from the signed bytes, the IdP's
 * entity id as issuer, our SP entity id as audience, our ACS URL as recipient (and as
 * destination when given), the pending request's ID as InResponseTo, the times within 3
 * minutes of skew, and an assertion ID never seen before. Throws {@link FederationRefused}
 * (`invalid_response`, `replayed`), whose detail names the rule for the log.
 */
export async function verifySamlResponse(
  deps: SamlDeps,
  connection: SamlConnection,
  pending: SamlPending,
  form: SamlPost,
): Promise<FederatedClaims> {
  const { acsUrl } = federationEndpoints(deps.config.issuer, connection.id);
  const requestId = samlRequestId(pending.key);
  const encoded = form.SAMLResponse ?? refuse('invalid_response', 'no SAMLResponse');
  const xml = decodeResponse(encoded);
  checkShape(xml);
  checkEnvelope(xml, { acsUrl, requestId });

  const profile = await verifiedProfile(deps.config.issuer, connection, requestId, encoded);
  const assertion = signedAssertion(profile);
  if (text(assertion.Issuer) !== connection.idpEntityId) refuse('invalid_response', 'issuer is not the connection entity id');
  const now = deps.clock.now();
  const confirmedUntil = checkSubjectConfirmation(assertion, { acsUrl, requestId, now });
  const validUntil = checkConditions(assertion, now);

  const assertionId = attribute(assertion, 'ID');
  if (!assertionId) refuse('invalid_response', 'assertion without ID');
  const expiresAt = Math.min(confirmedUntil, validUntil ?? confirmedUntil) + SAML_CLOCK_SKEW_MS;
  if (!(await deps.store.samlAssertions.accept(connection.id, assertionId, Math.ceil(expiresAt / 1000)))) {
    refuse('replayed', 'assertion ID already used');
  }
  return claimsOf(profile, assertion, connection);
}

function refuse(reason: Extract<FederationFailure, 'invalid_response' | 'replayed'>, detail: string): never {
  throw new FederationRefused(reason, detail);
}

function decodeResponse(encoded: string): string {
  if (!/^[A-Za-z0-9+/\s]+=*\s*$/.test(encoded)) refuse('invalid_response', 'SAMLResponse is not base64');
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * What a SAML response never needs and attacks use: a DOCTYPE or entity (entity expansion,
 * IDs made of entities), CDATA, comments and processing instructions (xml-crypto's
 * canonical form reads around them, so a signed value could be read otherwise by another
 * parser), more than one response, or assertion, element anywhere (signature wrapping),
 * more elements than {@link SAML_MAX_ELEMENTS} (a denial of service). A
 * `<` in text or attribute values is always escaped, so counting `<` constructs is exact.
 */
function checkShape(xml: string) {
  const body = xml.replace(/^\uFEFF?\s*<\?xml\s[^?]*\?>/, '');
  if (body.includes('<!') || body.includes('<?')) refuse('invalid_response', 'DOCTYPE, CDATA, comment or processing instruction');
  if ((body.match(/<[A-Za-z_]/g)?.length ?? 0) > SAML_MAX_ELEMENTS) refuse('invalid_response', 'too many elements');
  const count = (name: string) => body.match(new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${name}[\\s/>]`, 'g'))?.length ?? 0;
  if (count('Response') !== 1) refuse('invalid_response', 'not exactly one Response element');
  // None is an IdP's error status, which node-saml reads (its status then logged).
  if (count('Assertion') > 1) refuse('invalid_response', 'more than one Assertion element');
  if (count('EncryptedAssertion') !== 0) refuse('invalid_response', 'encrypted assertions are not supported');
}

/**
 * The response's own Destination and InResponseTo, when present (they are signed only
 * when the response is): the signed assertion's recipient and InResponseTo are checked
 * in any case.
 */
function checkEnvelope(xml: string, expected: { acsUrl: string; requestId: string }) {
  const start = /<(?:[A-Za-z_][\w.-]*:)?Response((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(xml);
  if (!start) refuse('invalid_response', 'no Response element');
  const attributes = new Map<string, string>();
  for (const [, name, value] of (start[1] ?? '').matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    attributes.set(name ?? '', unescapeXml(value ?? ''));
  }
  const destination = attributes.get('Destination');
  if (destination !== undefined && destination !== expected.acsUrl) refuse('invalid_response', 'Destination is not our ACS URL');
  const inResponseTo = attributes.get('InResponseTo');
  if (inResponseTo !== undefined && inResponseTo !== expected.requestId)
    refuse('invalid_response', 'InResponseTo is not the pending request');
}

function unescapeXml(value: string): string {
  return value.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, entity: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (named[entity]) return named[entity];
    const code = entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
    return String.fromCodePoint(code);
  });
}

async function verifiedProfile(issuer: string, connection: SamlConnection, requestId: string, encoded: string): Promise<Profile> {
  let result: Awaited<ReturnType<SAML['validatePostResponseAsync']>>;
  try {
    result = await samlFor(issuer, connection, requestId).validatePostResponseAsync({ SAMLResponse: encoded });
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'unreadable response';
    refuse('invalid_response', error instanceof SamlStatusError ? `the IdP answered ${detail}` : detail);
  }
  if (!result.profile || result.loggedOut) refuse('invalid_response', 'no assertion');
  return result.profile;
}

/** An element as xml2js reads it (node-saml's parser: prefixes stripped, text in `_`, attributes in `$`). */
interface XmlNode {
  _?: string;
  $?: Record<string, string>;
  [child: string]: XmlNode[] | string | Record<string, string> | undefined;
}

const children = (node: XmlNode | undefined, name: string): XmlNode[] => {
  const value = node?.[name];
  return Array.isArray(value) ? value : [];
};
const child = (node: XmlNode | undefined, name: string) => children(node, name)[0];
const attribute = (node: XmlNode | undefined, name: string) => node?.$?.[name];
const text = (nodes: XmlNode[] | string | Record<string, string> | undefined) =>
  Array.isArray(nodes) && nodes.length === 1 ? (typeof nodes[0] === 'string' ? nodes[0] : nodes[0]?._?.trim()) : undefined;

/** The assertion as the signature covers it: node-saml parses it from the signed bytes alone. */
function signedAssertion(profile: Profile): XmlNode {
  const parsed = profile.getAssertion?.() as { Assertion?: XmlNode } | undefined;
  if (!parsed?.Assertion) refuse('invalid_response', 'no signed assertion');
  return parsed.Assertion;
}

function instant(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) || Number.isNaN(ms)) refuse('invalid_response', 'malformed time');
  return ms;
}

/**
 * A bearer confirmation for us (SAML profiles 4.1.4.2): recipient our ACS URL,
 * InResponseTo the pending request, not yet expired. Answers until when it holds.
 */
function checkSubjectConfirmation(assertion: XmlNode, { acsUrl, requestId, now }: { acsUrl: string; requestId: string; now: number }) {
  const confirmations = children(child(assertion, 'Subject'), 'SubjectConfirmation').filter(
    (confirmation) => attribute(confirmation, 'Method') === BEARER,
  );
  if (confirmations.length === 0) refuse('invalid_response', 'no bearer subject confirmation');
  let failure = 'no valid subject confirmation';
  for (const confirmation of confirmations) {
    const data = child(confirmation, 'SubjectConfirmationData');
    const notBefore = instant(attribute(data, 'NotBefore'));
    const notOnOrAfter = instant(attribute(data, 'NotOnOrAfter'));
    if (attribute(data, 'Recipient') !== acsUrl) failure = 'Recipient is not our ACS URL';
    else if (attribute(data, 'InResponseTo') !== requestId) failure = 'InResponseTo is not the pending request';
    else if (notOnOrAfter === undefined) failure = 'subject confirmation without NotOnOrAfter';
    else if (now - SAML_CLOCK_SKEW_MS >= notOnOrAfter) failure = 'subject confirmation expired';
    else if (notBefore !== undefined && now + SAML_CLOCK_SKEW_MS < notBefore) failure = 'subject confirmation not yet valid';
    else return notOnOrAfter;
  }
  return refuse('invalid_response', failure);
}

/** The assertion's validity period, when it has one (SAML core 2.5.1); node-saml checked the audience. */
function checkConditions(assertion: XmlNode, now: number): number | undefined {
  const conditions = children(assertion, 'Conditions');
  if (conditions.length !== 1) refuse('invalid_response', 'not exactly one Conditions element');
  const notBefore = instant(attribute(conditions[0], 'NotBefore'));
  const notOnOrAfter = instant(attribute(conditions[0], 'NotOnOrAfter'));
  if (notBefore !== undefined && now + SAML_CLOCK_SKEW_MS < notBefore) refuse('invalid_response', 'assertion not yet valid');
  if (notOnOrAfter !== undefined && now - SAML_CLOCK_SKEW_MS >= notOnOrAfter) refuse('invalid_response', 'assertion expired');
  return notOnOrAfter;
}

/** The values of an attribute of the signed assertion, as strings. */
function attributeValues(profile: Profile, name: string): string[] {
  const value = (profile.attributes as Record<string, unknown> | undefined)?.[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((each): each is string => typeof each === 'string').map((each) => each.trim());
}

function claimsOf(profile: Profile, assertion: XmlNode, connection: SamlConnection): FederatedClaims {
  const nameId = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
  if (!nameId) refuse('invalid_response', 'no NameID');
  const format = profile.nameIDFormat;
  const emailAttribute = EMAIL_ATTRIBUTES.map((name) => attributeValues(profile, name)).find((values) => values.length === 1)?.[0];
  const email = format === NAMEID_EMAIL ? nameId : emailAttribute;
  const classes = children(assertion, 'AuthnStatement').flatMap((statement) =>
    children(child(statement, 'AuthnContext'), 'AuthnContextClassRef').map((ref) => ref._?.trim() ?? ''),
  );
  const methods = attributeValues(profile, AUTHN_METHODS_ATTRIBUTE);
  return {
    subject: nameId,
    ...(email ? { email } : {}),
    roles: connection.roleAttribute ? attributeValues(profile, connection.roleAttribute) : [],
    mfa: [...classes, ...methods].some((each) => MULTI_FACTOR_CONTEXTS.has(each)),
  };
}
