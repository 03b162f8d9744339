import { beforeAll, describe, expect, it } from 'vitest';
import { federationEndpoints, type SamlConnection } from '../../lib/federation/connection';
import { samlSpMetadata } from '../../lib/federation/saml-metadata';
import { type App, registerAdmin, testApp } from '../helpers/app';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { CookieJar } from '../helpers/hosted';
import { createClient, type TestClient } from '../helpers/oauth';
import { encodeXml, makeSamlIdp, type ResponseOptions, SAML, type SamlIdp, signingKey } from '../helpers/saml-idp';
import { postSamlResponse, type SamlStart, samlConnectionOf, startSamlSignIn } from '../helpers/saml-sign-in';

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

  describe('POST /sso/saml/{connectionId}/acs', () => {
    let tenantId: string;
    let domain: string;
    let client: TestClient;
    let idp: SamlIdp;
    let saml: SamlConnection;
    let serial = 0;
    const person = () => `person.${++serial}@${domain}`;

    beforeAll(async () => {
      tenantId = uniqueTenant('saml-acs');
      domain = `${tenantId}.example`;
      const admin = await registerAdmin(app, tenantId, 'admin', 'tenant admin passphrase');
      [client, idp] = await Promise.all([createClient(app, admin.token, tenantId), makeSamlIdp()]);
      saml = await samlConnectionOf(deps, tenantId, domain, {
        idpEntityId: idp.entityId,
        ssoUrl: 'https://idp.example.test/sso',
        signingCertificates: [idp.cert],
        roleAttribute: 'groups',
        roleMapping: { finance: 'FINANCE', logistics: 'LOGISTICS' },
      });
    });

    /** A valid response to the sign-in `start` for `email`. */
    const answer = (start: SamlStart, email: string, change: Partial<ResponseOptions> = {}): ResponseOptions => ({
      acsUrl: start.acsUrl,
      spEntityId: start.spEntityId,
      inResponseTo: start.requestId,
      nameId: `subject-of-${email}`,
      attributes: { email: [email], groups: ['finance'] },
      now: deps.clock.now(),
      ...change,
    });

    const events = async (type: 'login_failed' | 'login_succeeded' | 'user_provisioned') =>
      (await deps.store.audit.list(tenantId, { shards: deps.config.audit.shards, limit: 100, type })).events;

    it('signs a new person in with JIT provisioning: the mapped role, amr fed, then the IdP re-maps the role', async () => {
      const email = person();
      const jar = new CookieJar();
      const start = await startSamlSignIn(app, jar, client, email);
      expect(start.location.origin + start.location.pathname).toBe('https://idp.example.test/sso');
      expect(start.location.searchParams.get('login_hint')).toBe(email);
      const { acsUrl, spEntityId } = federationEndpoints(deps.config.issuer, saml.id);
      expect(start).toMatchObject({ acsUrl, spEntityId });
      const signedIn = await postSamlResponse(app, jar, saml.id, {
        SAMLResponse: idp.encodedResponse(answer(start, email)),
        RelayState: start.relayState,
      });
      expect([200, 303]).toContain(signedIn.status);
      expect(jar.cookies.has('__Host-session')).toBe(true);
      expect(jar.cookies.has('__Host-federation')).toBe(false);
      const [user] = await deps.store.users.findByEmail(tenantId, email);
      expect(user).toMatchObject({ role: 'FINANCE', email, emailVerified: true, status: 'active' });
      const sessions = await deps.store.sessions.listByUser(tenantId, user?.id ?? '');
      expect(sessions.map((session) => [session.amr, session.idp])).toEqual([[['fed'], saml.id]]);

      const again = new CookieJar();
      const second = await startSamlSignIn(app, again, client, email);
      const response = idp.encodedResponse(
        answer(second, email, { attributes: { email: [email], groups: ['logistics'] }, authnContext: SAML.twoFactor }),
      );
      expect([200, 303]).toContain(
        (await postSamlResponse(app, again, saml.id, { SAMLResponse: response, RelayState: second.relayState })).status,
      );
      expect(await deps.store.users.findById(tenantId, user?.id ?? '')).toMatchObject({ role: 'LOGISTICS' });
      const amrs = (await deps.store.sessions.listByUser(tenantId, user?.id ?? '')).map((session) => session.amr);
      expect(amrs).toContainEqual(['fed', 'mfa']);
    });

    /** Each row: what the attacker posts for a sign-in they started, and the audited reason. */
    const refusals: Array<[string, (start: SamlStart, email: string) => Promise<{ SAMLResponse?: string; RelayState?: string }>, string]> =
      [
        [
          'unsigned',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { sign: 'none' })) }),
          'federation_invalid_response',
        ],
        [
          'signed by another key',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { key: await signingKey('Forger') })) }),
          'federation_invalid_response',
        ],
        [
          'wrapping: an evil assertion beside the signed one',
          async (start, email) => {
            const signed = idp.response(answer(start, `someone.else@${domain}`));
            const evil = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(idp.response(answer(start, email, { sign: 'none' })))?.[0] ?? '';
            return { SAMLResponse: encodeXml(signed.replace('<saml:Assertion ', `${evil}<saml:Assertion `)) };
          },
          'federation_invalid_response',
        ],
        [
          'a comment in the NameID',
          async (start, email) => {
            const xml = idp.response(
              answer(start, email, { nameId: `${email}.evil.test`, nameIdFormat: SAML.emailAddress, attributes: {} }),
            );
            return { SAMLResponse: encodeXml(xml.replace(`${email}.evil.test<`, `${email}<!---->.evil.test<`)) };
          },
          'federation_invalid_response',
        ],
        [
          'a processing instruction in the NameID',
          async (start, email) => {
            const xml = idp.response(answer(start, email, { nameId: `x${email}`, nameIdFormat: SAML.emailAddress, attributes: {} }));
            return { SAMLResponse: encodeXml(xml.replace(`>x${email}<`, `><?x x?>${email}<`)) };
          },
          'federation_invalid_response',
        ],
        [
          'expired',
          async (start, email) => ({
            SAMLResponse: idp.encodedResponse(answer(start, email, { now: deps.clock.now() - 600_000, notOnOrAfterMs: 400_000 })),
          }),
          'federation_invalid_response',
        ],
        [
          'not yet valid',
          async (start, email) => ({
            SAMLResponse: idp.encodedResponse(answer(start, email, { now: deps.clock.now() + 200_000, notBeforeMs: 0 })),
          }),
          'federation_invalid_response',
        ],
        [
          'for another audience',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { audience: 'https://sp.example/other' })) }),
          'federation_invalid_response',
        ],
        [
          'for another recipient',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { recipient: 'https://sp.example/acs' })) }),
          'federation_invalid_response',
        ],
        [
          'for another destination',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { destination: 'https://sp.example/acs' })) }),
          'federation_invalid_response',
        ],
        [
          'answering another request',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { inResponseTo: '_another' })) }),
          'federation_invalid_response',
        ],
        [
          'unsolicited (no InResponseTo)',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email, { inResponseTo: null })) }),
          'federation_invalid_response',
        ],
        [
          'unsolicited (no RelayState)',
          async (start, email) => ({ SAMLResponse: idp.encodedResponse(answer(start, email)), RelayState: '' }),
          'federation_expired',
        ],
        ['without a SAMLResponse', async () => ({}), 'federation_invalid_response'],
      ];

    it.each(refusals)('ends a response %s on the error page: no session, no user, audited', async (_, attack, reason) => {
      const email = person();
      const jar = new CookieJar();
      const start = await startSamlSignIn(app, jar, client, email);
      const posted = await attack(start, email);
      const refused = await postSamlResponse(app, jar, saml.id, { RelayState: start.relayState, ...posted });
      expect(refused.status).toBe(400);
      expect(String(refused.body)).toContain('Sign-in failed');
      expect(jar.cookies.has('__Host-session')).toBe(false);
      expect(await deps.store.users.findByEmail(tenantId, email)).toEqual([]);
      expect((await events('login_failed')).map((event) => event.details)).toContainEqual(expect.objectContaining({ reason }));
    });

    it('refuses an assertion posted twice: the second time is a replay, even from a new sign-in', async () => {
      const email = person();
      const first = new CookieJar();
      const start = await startSamlSignIn(app, first, client, email);
      const response = idp.encodedResponse(answer(start, email));
      expect([200, 303]).toContain(
        (await postSamlResponse(app, first, saml.id, { SAMLResponse: response, RelayState: start.relayState })).status,
      );
      // The same form again: its pending sign-in is gone.
      const again = await postSamlResponse(app, first, saml.id, { SAMLResponse: response, RelayState: start.relayState });
      expect(again.status).toBe(400);
      // A stolen response under a new pending sign-in of the thief's: InResponseTo names the old one, and the ID was used.
      const thief = new CookieJar();
      const theirs = await startSamlSignIn(app, thief, client, email);
      const replayed = await postSamlResponse(app, thief, saml.id, { SAMLResponse: response, RelayState: theirs.relayState });
      expect(replayed.status).toBe(400);
      expect(thief.cookies.has('__Host-session')).toBe(false);
    });

    it('refuses an assertion the IdP issued twice with one ID (replayed_assertion)', async () => {
      const email = person();
      const jar = new CookieJar();
      const start = await startSamlSignIn(app, jar, client, email);
      const assertionId = `_fixed${deps.random.token(8)}`;
      await postSamlResponse(app, jar, saml.id, {
        SAMLResponse: idp.encodedResponse(answer(start, email, { assertionId })),
        RelayState: start.relayState,
      });
      const other = new CookieJar();
      const next = await startSamlSignIn(app, other, client, email);
      const replayed = await postSamlResponse(app, other, saml.id, {
        SAMLResponse: idp.encodedResponse(answer(next, email, { assertionId })),
        RelayState: next.relayState,
      });
      expect(replayed.status).toBe(400);
      expect((await events('login_failed')).map((event) => event.details)).toContainEqual(
        expect.objectContaining({ reason: 'federation_replayed' }),
      );
    });

    it("refuses a response posted to another connection's ACS (the pending sign-in names its connection)", async () => {
      const email = person();
      const jar = new CookieJar();
      const start = await startSamlSignIn(app, jar, client, email);
      const refused = await postSamlResponse(app, jar, connection.id, {
        SAMLResponse: idp.encodedResponse(answer(start, email)),
        RelayState: start.relayState,
      });
      expect(refused.status).toBe(400);
      expect(jar.cookies.has('__Host-session')).toBe(false);
      expect(await deps.store.users.findByEmail(tenantId, email)).toEqual([]);
    });
  });
});
