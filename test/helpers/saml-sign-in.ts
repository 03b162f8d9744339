import type { SamlConnection } from '../../lib/federation/connection';
import { samlRequestId } from '../../lib/federation/saml-request';
import type { App } from './app';
import type { TestDeps } from './deps';
import { browserAuthorize, type CookieJar } from './hosted';
import type { Response } from './http';
import { FORM, type TestClient } from './oauth';
import { readAuthnRequest } from './saml-idp';

/*
 * A browser's SAML sign-in through the functions in-process (docs/api.md 14.5): authorize
 * with the address as login_hint, home-realm discovery's redirect to GET /sso/begin, its
 * redirect to the IdP with the AuthnRequest; then the IdP's response posted to the ACS.
 */

/** A SAML connection of the tenant, stored as the admin routes would, with its domain verified for the tenant. */
export async function samlConnectionOf(
  deps: TestDeps,
  tenantId: string,
  domain: string,
  fields: Pick<SamlConnection, 'idpEntityId' | 'ssoUrl' | 'signingCertificates'> & Partial<SamlConnection>,
): Promise<SamlConnection> {
  const now = new Date(deps.clock.now()).toISOString();
  const connection: SamlConnection = {
    id: deps.random.id(),
    tenantId,
    type: 'saml',
    name: 'Test IdP',
    domains: [domain],
    defaultRole: 'ANALYST',
    jitProvisioning: true,
    ssoRequired: false,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    createdBy: 'admin',
    ...fields,
  };
  await deps.store.connections.create(connection);
  if (
    (await deps.store.domains.create({ tenantId, domain, status: 'pending', token: deps.random.token(16), createdAt: now })) === 'created'
  ) {
    await deps.store.domains.verify({ tenantId, domain }, now);
  }
  return connection;
}

export interface SamlStart {
  /** The AuthnRequest's ID: the InResponseTo a response must carry. */
  requestId: string;
  relayState: string;
  /** The ACS URL and SP entity id the AuthnRequest named. */
  acsUrl: string;
  spEntityId: string;
  /** The URL the browser was sent to. */
  location: URL;
}

/** Authorize with `email` as login_hint, through discovery and GET /sso/begin, to the IdP's redirect. */
export async function startSamlSignIn(app: App, jar: CookieJar, client: TestClient, email: string): Promise<SamlStart> {
  const { response } = await browserAuthorize(app, jar, client, { login_hint: email });
  const begin = new URL(String(response.headers.Location));
  if (response.status !== 302 || begin.pathname !== '/sso/begin') throw new Error(`no discovery for ${email}: ${response.status}`);
  const sent = jar.take(
    await app.request('ssoBegin', {
      method: 'GET',
      headers: { accept: 'text/html', ...jar.header() },
      query: Object.fromEntries(begin.searchParams),
    }),
  );
  if (sent.status !== 302) throw new Error(`GET /sso/begin answered ${sent.status}: ${String(sent.body).slice(0, 300)}`);
  const location = new URL(String(sent.headers.Location));
  const relayState = location.searchParams.get('RelayState') ?? '';
  const authn = await readAuthnRequest(location.searchParams.get('SAMLRequest') ?? '');
  if (authn.id !== samlRequestId(relayState)) throw new Error('the AuthnRequest ID is not the RelayState');
  return { requestId: authn.id, relayState, acsUrl: authn.acsUrl, spEntityId: authn.issuer, location };
}

/** The IdP's auto-posted form, as the browser sends it to the ACS (a cross-site POST: the IdP's origin). */
export async function postSamlResponse(
  app: App,
  jar: CookieJar,
  connectionId: string,
  fields: { SAMLResponse?: string; RelayState?: string },
): Promise<Response> {
  const body = new URLSearchParams(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return jar.take(
    await app.request('ssoSamlAcs', {
      pathParameters: { connectionId },
      headers: { 'content-type': FORM, origin: 'https://idp.example.test', ...jar.header() },
      body: body.toString(),
    }),
  );
}
