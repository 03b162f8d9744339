import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { federationEndpoints, type SamlConnection } from '../../lib/federation/connection';
import { FederationRefused } from '../../lib/federation/refusal';
import { type SamlDeps, samlFor, verifySamlResponse } from '../../lib/federation/saml';
import { samlSpMetadata } from '../../lib/federation/saml-metadata';
import { samlRedirectUrl, samlRequestId } from '../../lib/federation/saml-request';
import { testClock } from '../helpers/deps';
import { encodeXml, makeSamlIdp, type ResponseOptions, SAML, type SamlIdp, type SigningKey, signingKey } from '../helpers/saml-idp';

/*
 * The SAML checks of docs/api.md 14.5 at the library level: one valid response, then one
 * row per rule and per attack, each of which must be refused. The XML signature wrapping
 * rows are the shapes of ory/saml20's attack fixtures (test/assets/attacks/wrapping),
 * rebuilt here around a response our test IdP signed.
 */

const ISSUER = 'https://id.example.test';
const { acsUrl, spEntityId } = federationEndpoints(ISSUER, 'conn_saml_1');
const clock = testClock();
const accepted = new Set<string>();
const deps: SamlDeps = {
  config: { issuer: ISSUER },
  clock,
  store: {
    samlAssertions: {
      accept: async (connectionId, assertionId) => {
        const key = `${connectionId} ${assertionId}`;
        if (accepted.has(key)) return false;
        accepted.add(key);
        return true;
      },
    },
  },
};

let idp: SamlIdp;
let forger: SigningKey;
let connection: SamlConnection;
const pending = { key: 'kPendingRequest123' };

beforeAll(async () => {
  [idp, forger] = await Promise.all([makeSamlIdp(), signingKey('Forger')]);
  connection = {
    id: 'conn_saml_1',
    tenantId: 'acme',
    type: 'saml',
    name: 'Acme SAML',
    domains: ['acme.test'],
    roleMapping: { admins: 'ADMIN' },
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: '2026-11-25T00:00:00.000Z',
    updatedAt: '2026-11-25T00:00:00.000Z',
    createdBy: 'u_admin',
    idpEntityId: idp.entityId,
    ssoUrl: 'https://idp.example.test/sso?tenant=acme',
    signingCertificates: [idp.cert],
    roleAttribute: 'groups',
  };
});

const valid = (change: Partial<ResponseOptions> = {}): ResponseOptions => ({
  acsUrl,
  spEntityId,
  inResponseTo: samlRequestId(pending.key),
  nameId: 'employee-4711',
  attributes: { email: ['jane@acme.test'], groups: ['admins', 'staff'] },
  now: clock.now(),
  ...change,
});

const verify = (SAMLResponse: string) => verifySamlResponse(deps, connection, pending, { SAMLResponse, RelayState: pending.key });

async function refusal(SAMLResponse: string) {
  const error = await verify(SAMLResponse).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FederationRefused);
  return error as FederationRefused;
}

describe('verifySamlResponse', () => {
  it('reads the persistent NameID, the email attribute, the roles and a single factor from a signed assertion', async () => {
    await expect(verify(idp.encodedResponse(valid()))).resolves.toEqual({
      subject: 'employee-4711',
      email: 'jane@acme.test',
      roles: ['admins', 'staff'],
      mfa: false,
    });
  });

  it.each([
    ['a signed response', 'response'],
    ['a signed response and assertion', 'both'],
  ] as const)('accepts %s', async (_, sign) => {
    await expect(verify(idp.encodedResponse(valid({ sign })))).resolves.toMatchObject({ subject: 'employee-4711' });
  });

  it('takes an emailAddress NameID as the email and a two-factor context as mfa', async () => {
    const response = valid({ nameId: 'Jane@acme.test', nameIdFormat: SAML.emailAddress, attributes: {}, authnContext: SAML.twoFactor });
    await expect(verify(idp.encodedResponse(response))).resolves.toEqual({
      subject: 'Jane@acme.test',
      email: 'Jane@acme.test',
      roles: [],
      mfa: true,
    });
  });

  it('accepts times within 3 minutes of skew', async () => {
    const early = valid({ now: clock.now() + 170_000, notBeforeMs: 0 });
    const late = valid({ now: clock.now() - 10 * 60_000, notOnOrAfterMs: 10 * 60_000 - 170_000 });
    await expect(verify(idp.encodedResponse(early))).resolves.toMatchObject({ subject: 'employee-4711' });
    await expect(verify(idp.encodedResponse(late))).resolves.toMatchObject({ subject: 'employee-4711' });
  });

  it('accepts an assertion once: the same response again is a replay', async () => {
    const response = idp.encodedResponse(valid());
    await verify(response);
    expect((await refusal(response)).reason).toBe('replayed');
  });

  it.each<[string, Partial<ResponseOptions>]>([
    ['unsigned', { sign: 'none' }],
    ['signed by another key', { key: undefined }],
    ['expired', { now: clock.now() - 10 * 60_000, notOnOrAfterMs: 10 * 60_000 - 190_000 }],
    ['not yet valid', { now: clock.now() + 190_000, notBeforeMs: 0 }],
    ['for another audience', { audience: 'https://other-sp.example.test/metadata' }],
    ['for another recipient', { recipient: 'https://other-sp.example.test/acs' }],
    ['for another destination', { destination: 'https://other-sp.example.test/acs' }],
    ['unsolicited', { inResponseTo: null }],
    ['answering another request', { inResponseTo: '_anotherRequest' }],
    ['confirming another request', { subjectInResponseTo: '_anotherRequest' }],
    ['from another issuer', { issuer: 'https://evil.example.test/saml' }],
  ])('refuses a response %s', async (name, change) => {
    const options = valid(name === 'signed by another key' ? { key: forger } : change);
    expect((await refusal(idp.encodedResponse(options))).reason).toBe('invalid_response');
  });

  it('refuses an IdP error status', async () => {
    const xml = `<samlp:Response xmlns:samlp="${SAML.protocol}" ID="_e1" Version="2.0" IssueInstant="2026-11-25T00:00:00Z" InResponseTo="${pending.key}"><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder"/></samlp:Status></samlp:Response>`;
    expect(await refusal(encodeXml(xml))).toMatchObject({ reason: 'invalid_response', detail: expect.stringContaining('Responder') });
  });

  it('refuses a signed assertion changed after signing', async () => {
    const xml = idp.response(valid()).replace('jane@acme.test', 'ceo@acme.test');
    expect((await refusal(encodeXml(xml))).reason).toBe('invalid_response');
  });

  it('refuses a document of more than 2,000 elements before checking its signature', async () => {
    const xml = idp.response(valid()).replace('<samlp:Status>', `<samlp:Status>${'<x/>'.repeat(2_000)}`);
    expect(await refusal(encodeXml(xml))).toMatchObject({ reason: 'invalid_response', detail: 'too many elements' });
  });

  it('refuses a document with a DOCTYPE', async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "y">]>${idp.response(valid())}`;
    expect((await refusal(encodeXml(xml))).reason).toBe('invalid_response');
  });
});

/** The outermost element `name` of a serialized document, as text. */
function element(xml: string, name: 'Assertion' | 'Response' | 'Signature'): string {
  const open = { Assertion: '<saml:Assertion ', Response: '<samlp:Response ', Signature: '<ds:Signature ' }[name];
  const close = { Assertion: '</saml:Assertion>', Response: '</samlp:Response>', Signature: '</ds:Signature>' }[name];
  const start = xml.indexOf(open);
  const end = xml.lastIndexOf(close);
  if (start < 0 || end < 0) throw new Error(`no ${name}`);
  return xml.slice(start, end + close.length);
}

const VICTIM = 'ceo@acme.test';

/**
 * XML signature wrapping: a validly signed response for the attacker's own account, and an
 * unsigned "evil" assertion for the victim placed where a careless parser reads it.
 */
const wrappingAttacks: Array<[string, (signed: { assertion: string; response: string }, evil: string) => string]> = [
  [
    'evil response, the signed response inside its Signature (ory invalidResponse1)',
    ({ response }, evil) => {
      const signature = element(response, 'Signature');
      const wrapped = signature.replace('</ds:Signature>', `${response}</ds:Signature>`);
      return response
        .replace(signature, wrapped)
        .replace(element(response, 'Assertion'), evil)
        .replace(/ID="_r[^"]+"/, 'ID="_evil_response"');
    },
  ],
  [
    'evil response wrapping the signed response (ory invalidResponse2)',
    ({ response }, evil) =>
      `<samlp:Response xmlns:samlp="${SAML.protocol}" xmlns:saml="${SAML.assertion}" ID="_evil" Version="2.0" IssueInstant="2026-11-25T00:00:00Z">${element(response, 'Signature')}${response}${evil}</samlp:Response>`,
  ],
  [
    'evil assertion beside the signed one (ory invalidAssertion1)',
    ({ assertion }, evil) => assertion.replace(element(assertion, 'Assertion'), `${evil}${element(assertion, 'Assertion')}`),
  ],
  [
    'evil assertion wrapping the signed one (ory invalidAssertion2)',
    ({ assertion }, evil) => {
      const signed = element(assertion, 'Assertion');
      return assertion.replace(signed, evil.replace('</saml:Assertion>', `${signed}</saml:Assertion>`));
    },
  ],
  [
    'evil assertion carrying the signature, the signed one inside it (ory invalidAssertion3)',
    ({ assertion }, evil) => {
      const signed = element(assertion, 'Assertion');
      const signature = element(signed, 'Signature');
      const stolen = evil
        .replace('</saml:Issuer>', `</saml:Issuer>${signature}`)
        .replace('</saml:Assertion>', `${signed.replace(signature, '')}</saml:Assertion>`);
      return assertion.replace(signed, stolen);
    },
  ],
  [
    'signed assertion hidden in Extensions, evil one with its ID in its place (ory invalidExtensions2)',
    ({ assertion }, evil) => {
      const signed = element(assertion, 'Assertion');
      const id = /ID="([^"]+)"/.exec(signed)?.[1] ?? '';
      return assertion.replace(signed, `<samlp:Extensions>${signed}</samlp:Extensions>${evil.replace(/ID="[^"]+"/, `ID="${id}"`)}`);
    },
  ],
  [
    'evil copy with the signed ID in Extensions (ory invalidExtensions1)',
    ({ assertion }, evil) => {
      const signed = element(assertion, 'Assertion');
      const id = /ID="([^"]+)"/.exec(signed)?.[1] ?? '';
      return assertion.replace(signed, `<samlp:Extensions>${evil.replace(/ID="[^"]+"/, `ID="${id}"`)}</samlp:Extensions>${signed}`);
    },
  ],
  [
    'evil assertion in place of the signed one, signature copied in (signature not over it)',
    ({ assertion }, evil) => {
      const signed = element(assertion, 'Assertion');
      const id = /ID="([^"]+)"/.exec(signed)?.[1] ?? '';
      return assertion.replace(
        signed,
        evil.replace(/ID="[^"]+"/, `ID="${id}"`).replace('</saml:Issuer>', `</saml:Issuer>${element(signed, 'Signature')}`),
      );
    },
  ],
];

describe('XML signature wrapping, comment and processing-instruction injection', () => {
  let signed: { assertion: string; response: string };
  let evil: string;

  beforeAll(() => {
    signed = { assertion: idp.response(valid()), response: idp.response(valid({ sign: 'response' })) };
    evil = element(idp.response(valid({ sign: 'none', nameId: VICTIM, attributes: { email: [VICTIM], groups: ['admins'] } })), 'Assertion');
  });

  it.each(wrappingAttacks)('refuses %s, and node-saml alone never reads the victim', async (_, attack) => {
    const xml = attack(signed, evil);
    expect(xml).toContain(VICTIM);
    expect((await refusal(encodeXml(xml))).reason).toBe('invalid_response');
    // The second line of defence: the library itself, without our shape checks.
    const library = await samlFor(ISSUER, connection, samlRequestId(pending.key))
      .validatePostResponseAsync({ SAMLResponse: encodeXml(xml) })
      .catch(() => undefined);
    expect(JSON.stringify(library?.profile?.attributes ?? {})).not.toContain(VICTIM);
  });

  it('refuses a comment in a signed NameID (a canonical form without comments reads around it)', async () => {
    const xml = idp
      .response(valid({ nameId: `${VICTIM}.attacker.test`, nameIdFormat: SAML.emailAddress }))
      .replace(`${VICTIM}.attacker.test<`, `${VICTIM}<!---->.attacker.test<`);
    expect((await refusal(encodeXml(xml))).reason).toBe('invalid_response');
  });

  it('refuses a processing instruction in a signed NameID (xml-crypto digests its text, the DOM does not)', async () => {
    const xml = idp
      .response(valid({ nameId: `not-${VICTIM}`, nameIdFormat: SAML.emailAddress }))
      .replace(`>not-${VICTIM}<`, `><?x not-?>${VICTIM}<`);
    expect((await refusal(encodeXml(xml))).reason).toBe('invalid_response');
  });
});

describe('samlRedirectUrl', () => {
  it('sends an unsigned, deflated AuthnRequest with the pending key as ID and RelayState', async () => {
    const url = new URL(await samlRedirectUrl(deps, connection, pending));
    expect(`${url.origin}${url.pathname}`).toBe('https://idp.example.test/sso');
    expect(url.searchParams.get('tenant')).toBe('acme');
    expect(url.searchParams.get('RelayState')).toBe(pending.key);
    expect(url.searchParams.get('Signature')).toBeNull();
    const xml = (await promisify(inflateRaw)(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64'))).toString('utf8');
    expect(xml).toContain(`ID="${pending.key}"`);
    expect(xml).toContain(`AssertionConsumerServiceURL="${acsUrl}"`);
    expect(xml).toContain(`Destination="${connection.ssoUrl.replace('&', '&amp;')}"`);
    expect(xml).toContain(`<saml:Issuer xmlns:saml="${SAML.assertion}">${spEntityId}</saml:Issuer>`);
    expect(xml).not.toContain('RequestedAuthnContext');
  });

  it('sends the AuthnRequest node-saml wrote with our options, login_hint after it', async () => {
    const url = new URL(await samlRedirectUrl(deps, connection, pending, 'ann@example.com'));
    const library = new URL(
      await samlFor(ISSUER, connection, samlRequestId(pending.key)).getAuthorizeUrlAsync(pending.key, undefined, {
        additionalParams: { login_hint: 'ann@example.com' },
      }),
    );
    const request = async (from: URL) =>
      (await promisify(inflateRaw)(Buffer.from(from.searchParams.get('SAMLRequest') ?? '', 'base64')))
        .toString('utf8')
        .replace(/IssueInstant="[^"]*"/, 'IssueInstant=""');
    expect(await request(url)).toBe(await request(library));
    expect(await request(url)).toContain(`IssueInstant=""`);
    expect([...url.searchParams.keys()]).toEqual([...library.searchParams.keys()]);
    expect(url.searchParams.get('login_hint')).toBe('ann@example.com');
    const xml = (await promisify(inflateRaw)(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64'))).toString('utf8');
    expect(xml).toContain(`IssueInstant="${new Date(clock.now()).toISOString()}"`);
  });

  it('makes a key that is not an XML ID one', () => {
    expect(samlRequestId('9abc')).toBe('_9abc');
    expect(samlRequestId('-abc')).toBe('_-abc');
    expect(samlRequestId('abc')).toBe('abc');
  });
});

describe('samlSpMetadata', () => {
  it('names the SP entity id, the ACS URL and the NameID formats', () => {
    expect(samlSpMetadata(ISSUER, connection)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${spEntityId}">`,
        '  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
        `    <md:NameIDFormat>${SAML.persistent}</md:NameIDFormat>`,
        `    <md:NameIDFormat>${SAML.emailAddress}</md:NameIDFormat>`,
        `    <md:AssertionConsumerService index="0" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${acsUrl}"/>`,
        '  </md:SPSSODescriptor>',
        '</md:EntityDescriptor>',
        '',
      ].join('\n'),
    );
  });
});
