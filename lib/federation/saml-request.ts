import { deflateRawSync } from 'node:zlib';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { FederationRequest } from '../store/federation';
import { federationEndpoints, type SamlConnection } from './connection';
import { escapeXml } from './saml-metadata';

/*
 * The AuthnRequest (docs/api.md 14.5), apart from lib/federation/saml.ts: it is a few
 * attributes in a fixed document, unsigned, so the function that sends it (sso-begin)
 * carries no XML library (node-saml and its XML stack: 600 KB of its bundle, most of its
 * cold start; docs/decisions/029-cold-start-floor.md). It is the document node-saml
 * wrote with the options of lib/federation/saml.ts (test/federation/saml.test.ts
 * compares them): no NameID format asked for, no authentication context.
 */

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** The pending sign-in the response must answer: its key is the AuthnRequest's ID (made an XML ID by {@link samlRequestId}) and the RelayState. */
export type SamlPending = Pick<FederationRequest, 'key'>;

/**
 * The AuthnRequest's ID for a pending request: an XML ID must be an NCName (XML Schema
 * `xs:ID`), so a key that does not start with a letter or `_` gets a leading `_`.
 */
export const samlRequestId = (key: string) => (/^[A-Za-z_]/.test(key) ? key : `_${key}`);

/** The AuthnRequest of a pending sign-in (SAML core 3.4.1), its ID the pending key's. */
export function samlAuthnRequest(
  issuer: string,
  connection: Pick<SamlConnection, 'id' | 'ssoUrl'>,
  requestId: string,
  now: number,
): string {
  const { acsUrl, spEntityId } = federationEndpoints(issuer, connection.id);
  return [
    '<?xml version="1.0"?>',
    `<samlp:AuthnRequest xmlns:samlp="${PROTOCOL}" ID="${escapeXml(requestId)}" Version="2.0" IssueInstant="${new Date(now).toISOString()}"`,
    ` ProtocolBinding="${HTTP_POST}" Destination="${escapeXml(connection.ssoUrl)}" AssertionConsumerServiceURL="${escapeXml(acsUrl)}">`,
    `<saml:Issuer xmlns:saml="${ASSERTION}">${escapeXml(spEntityId)}</saml:Issuer>`,
    `<samlp:NameIDPolicy xmlns:samlp="${PROTOCOL}" AllowCreate="true"/>`,
    '</samlp:AuthnRequest>',
  ].join('');
}

/**
 * Where the browser goes to sign in at the IdP: an AuthnRequest by HTTP-Redirect (SAML
 * bindings 3.4: deflated, base64, unsigned), RelayState the pending key. The address
 * typed on the sign-in page goes along as `login_hint`, which Entra ID and Okta prefill
 * and other IdPs ignore.
 */
export async function samlRedirectUrl(
  deps: { config: Pick<Config, 'issuer'>; clock: Clock },
  connection: Pick<SamlConnection, 'id' | 'ssoUrl'>,
  pending: SamlPending,
  loginHint?: string | undefined,
): Promise<string> {
  const request = samlAuthnRequest(deps.config.issuer, connection, samlRequestId(pending.key), deps.clock.now());
  const url = new URL(connection.ssoUrl);
  url.searchParams.append('SAMLRequest', deflateRawSync(request).toString('base64'));
  url.searchParams.append('RelayState', pending.key);
  if (loginHint) url.searchParams.append('login_hint', loginHint);
  return url.toString();
}
