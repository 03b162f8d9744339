import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, registerAdmin, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { fieldErrorsOf, flashOf, openPage, postAction, signedInJar } from '../helpers/console';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { connectionOf, idpCertificate, idpMetadata, oidcConnection } from '../helpers/federation-admin';
import { CookieJar } from '../helpers/hosted';
import type { Response } from '../helpers/http';
import { createClient, type TestClient, tokenRequest } from '../helpers/oauth';
import { scimClient } from '../helpers/scim';

/*
 * The tenant console's shops, OAuth clients, connections and domains, and SCIM tokens
 * (docs/api.md 15.3.5-15.3.8), called in-process as a browser would: forms posted from our
 * origin with the session cookie and CSRF token. Each action against its JSON twin's
 * record; refusals change nothing; secrets are shown once.
 */

const PASSWORD = 'console apps passphrase';
const HOSTILE = '<img src=x onerror=alert(1)>';

describe('tenant console: shops, OAuth clients, connections and domains, SCIM tokens', () => {
  let deps: TestDeps;
  let app: App;
  let dns: TestDnsServer;
  let origin: string;
  const tenantId = uniqueTenant('capps');
  const otherTenant = uniqueTenant('capps-b');
  let adminToken: string;
  let otherToken: string;
  let jar: CookieJar;
  let csrf: string;
  let otherClient: TestClient;
  let otherConnection: string;

  const page = (section: string, query?: Record<string, string>) => openPage(app, jar, 'admin', { section, ...(query ? { query } : {}) });
  const post = (section: string, action: string, fields: Record<string, string>, as = jar) =>
    postAction(app, as, 'admin', { section, action }, { csrf: as === jar ? csrf : csrfOfJar(as), ...fields }, origin);
  const csrfs = new Map<CookieJar, string>();
  const csrfOfJar = (as: CookieJar) => csrfs.get(as) ?? '';
  /** A 303 back to the section, followed: the page with its message. */
  const followed = async (response: Response) => {
    expect(response.status, String(response.body).slice(0, 2000)).toBe(303);
    const location = new URL(response.headers.Location ?? '', origin);
    const [, , , section] = location.pathname.split('/');
    return page(section ?? '', Object.fromEntries(location.searchParams));
  };
  const readClient = (clientId: string, token = adminToken) => app.request('readOAuth2Client', { token, pathParameters: { clientId } });
  const readConnection = (id: string, token = adminToken) => app.request('adminReadConnection', { token, pathParameters: { id } });
  const sealedSecret = async (id: string) => {
    const connection = await deps.store.connections.find(id);
    return connection?.type === 'oidc' ? connection.clientSecretSealed : undefined;
  };
  const secretOf = (response: Response) => /<p class="secret" id="[a-z-]+">([^<]+)<\/p>/.exec(String(response.body))?.[1];

  beforeAll(async () => {
    dns = await startDnsServer();
    deps = nearRealTime(await testDeps({ DNS_SERVERS: dns.address }));
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    adminToken = (await registerAdmin(app, tenantId, 'admin', PASSWORD)).token;
    otherToken = (await registerAdmin(app, otherTenant, 'admin', PASSWORD)).token;
    await registerStaff(app, adminToken, { username: 'olga', password: PASSWORD, role: 'OPERATOR', tenantId });
    otherClient = await createClient(app, otherToken, otherTenant, { clientId: `${otherTenant}-app` });
    otherConnection = await connectionOf(app, otherToken, oidcConnection([`${otherTenant}.example`]));
    const signedIn = await signedInJar(app, origin, 'admin', { tenantId, username: 'admin', password: PASSWORD });
    jar = signedIn.jar;
    csrf = /name="csrf" value="([^"]+)"/.exec(String(signedIn.page.body))?.[1] ?? '';
    csrfs.set(jar, csrf);
  });
  afterAll(() => dns?.close());

  describe('shops (docs/api.md 15.3.5)', () => {
    it('adds a shop and lists it; a second of the same id comes back with 409 and changes nothing', async () => {
      const shown = await followed(await post('shops', 'create', { shopId: 'berlin-1', name: 'Berlin Mitte' }));
      expect(flashOf(shown)).toBe('Shop berlin-1 added.');
      expect(String(shown.body)).toContain('<code>berlin-1</code>');
      const again = await post('shops', 'create', { shopId: 'berlin-1', name: 'Another' });
      expect(again.status).toBe(409);
      expect(String(again.body)).not.toContain('Another</td>');
      const shops = await app.request('adminListShops', { token: adminToken });
      expect(shops.body.data.shops.filter((shop: { shopId: string }) => shop.shopId === 'berlin-1')).toEqual([
        expect.objectContaining({ name: 'Berlin Mitte' }),
      ]);
    });

    it('shows a bad shop id beside its field (400), and renders a hostile name as text', async () => {
      const bad = await post('shops', 'create', { shopId: 'no spaces allowed', name: 'x' });
      expect(bad.status).toBe(400);
      expect(fieldErrorsOf(bad).map(([id]) => id)).toEqual(['create-shopId']);
      const hostile = await followed(await post('shops', 'create', { shopId: 'hostile-1', name: HOSTILE }));
      expect(String(hostile.body)).toContain('&lt;img src=x onerror=alert(1)>');
      expect(String(hostile.body)).not.toContain(HOSTILE);
    });
  });

  describe('OAuth clients (docs/api.md 15.3.6)', () => {
    const clientId = 'console-shop-app';
    let secret: string;

    it('registers a client and shows its secret once, in the answer to the form: it works, and is nowhere else', async () => {
      const created = await post('clients', 'create', {
        client_id: clientId,
        redirect_uri: 'https://shop.example/callback\r\nhttps://shop.example/other',
        'grant_types:authorization_code': 'on',
        'grant_types:client_credentials': 'on',
        scope: 'openid orders:read',
        resources: '',
        id_token_signed_response_alg: '',
        post_logout_redirect_uris: '',
      });
      expect(created.status).toBe(200);
      expect(created.headers['Cache-Control']).toBe('no-store');
      secret = secretOf(created) ?? '';
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(created.cookies ?? []).toEqual([]);
      const client = { clientId, clientSecret: secret, redirectUri: 'https://shop.example/callback', tenantId };
      const token = await app.request('oauth2Token', tokenRequest(client, { grant_type: 'client_credentials', scope: 'orders:read' }));
      expect(token.status).toBe(200);
      expect((await readClient(clientId)).body.data.client).toMatchObject({
        redirect_uris: ['https://shop.example/callback', 'https://shop.example/other'],
        grant_types: ['authorization_code', 'client_credentials'],
        scope: 'openid orders:read',
      });
      const later = [await page('clients'), await page('clients', { client: clientId }), await readClient(clientId)];
      for (const response of later) expect(JSON.stringify(response.body)).not.toContain(secret);
      expect(JSON.stringify(deps.logs)).not.toContain(secret);
      const audit = await app.request('adminListAudit', { token: adminToken, query: { type: 'oauth_client_created' } });
      expect(audit.body.data.events).toHaveLength(1);
      expect(JSON.stringify(audit.body)).not.toContain(secret);
    });

    it('registers a public client (docs/api.md 16.1) without a secret, with its allowed origins', async () => {
      const created = await post('clients', 'create', {
        client_id: 'console-spa',
        token_endpoint_auth_method: 'none',
        redirect_uri: 'https://spa.shop.example/callback',
        'grant_types:authorization_code': 'on',
        'grant_types:refresh_token': 'on',
        scope: 'openid orders:read',
        allowed_origins: 'https://spa.shop.example',
        resources: '',
        id_token_signed_response_alg: '',
        post_logout_redirect_uris: '',
      });
      expect(created.status).toBe(303);
      expect(secretOf(await followed(created))).toBeUndefined();
      expect((await readClient('console-spa')).body.data.client).toMatchObject({
        token_endpoint_auth_method: 'none',
        allowed_origins: ['https://spa.shop.example'],
      });
      const refused = await post('clients', 'create', {
        client_id: 'console-spa-2',
        token_endpoint_auth_method: 'none',
        redirect_uri: 'https://spa.shop.example/callback',
        'grant_types:authorization_code': 'on',
        scope: 'orders:read',
        allowed_origins: 'not an origin',
      });
      expect(refused.status).toBe(400);
      expect(String(refused.body)).toContain('create-allowed_origins');
    });

    it.each([
      [{ redirect_uri: 'http://shop.example/callback' }, 'create-redirect_uri'],
      [{ 'grant_types:authorization_code': undefined }, 'create-grant_types'],
      [{ client_id: '' }, 'create-client_id'],
      [{ scope: 'bad"scope' }, 'create-scope'],
    ])('refuses %j beside its field and registers nothing', async (change, field) => {
      const fields: Record<string, string | undefined> = {
        client_id: 'refused-app',
        redirect_uri: 'https://shop.example/cb',
        'grant_types:authorization_code': 'on',
        scope: 'openid',
        ...change,
      };
      const refused = await post(
        'clients',
        'create',
        Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, string>,
      );
      expect(refused.status).toBe(400);
      expect(fieldErrorsOf(refused).map(([id]) => id)).toEqual([field]);
      expect((await readClient('refused-app')).status).toBe(404);
    });

    it('refuses a form with a field it has not, whole', async () => {
      const refused = await post('clients', 'create', {
        client_id: 'extra-app',
        redirect_uri: 'https://a.example/cb',
        scope: 'openid',
        client_secret: 'mine-mine-mine-mine-mine-mine-mine-mine',
      });
      expect(refused.status).toBe(400);
      expect((await readClient('extra-app')).status).toBe(404);
    });

    it('edits the client: name, first party, redirect URIs, grant types; its secret stays', async () => {
      const saved = await post('clients', 'update', {
        clientId,
        redirect_uri: 'https://shop.example/callback',
        'grant_types:authorization_code': 'on',
        'grant_types:refresh_token': 'on',
        scope: 'openid orders:read orders:write',
        client_name: HOSTILE,
        first_party: 'on',
        post_logout_redirect_uris: 'https://shop.example/bye',
        id_token_signed_response_alg: 'RS256',
      });
      const shown = await followed(saved);
      expect(flashOf(shown)).toBe(`Client ${clientId} saved.`);
      expect(String(shown.body)).not.toContain(HOSTILE);
      expect((await readClient(clientId)).body.data.client).toMatchObject({
        client_name: HOSTILE,
        first_party: true,
        redirect_uris: ['https://shop.example/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        post_logout_redirect_uris: ['https://shop.example/bye'],
        id_token_signed_response_alg: 'RS256',
      });
    });

    it('rotates the secret, shown once; with no time for the old one, the old one stops at once', async () => {
      await post('clients', 'update', {
        clientId,
        redirect_uri: 'https://shop.example/callback',
        'grant_types:client_credentials': 'on',
        scope: 'orders:read',
      });
      const rotated = await post('clients', 'rotate', { clientId, previous_secret_expires_in: '0' });
      expect(rotated.status).toBe(200);
      const fresh = secretOf(rotated) ?? '';
      expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(fresh).not.toBe(secret);
      const base = { clientId, redirectUri: 'https://shop.example/callback', tenantId };
      const grant = { grant_type: 'client_credentials', scope: 'orders:read' };
      expect((await app.request('oauth2Token', tokenRequest({ ...base, clientSecret: secret }, grant))).status).toBe(401);
      expect((await app.request('oauth2Token', tokenRequest({ ...base, clientSecret: fresh }, grant))).status).toBe(200);
      expect(JSON.stringify((await page('clients', { client: clientId })).body)).not.toContain(fresh);
      expect(JSON.stringify(deps.logs)).not.toContain(fresh);
    });

    it('asks before deleting, then deletes', async () => {
      const asked = await page('clients', { delete: clientId });
      expect(asked.status).toBe(200);
      expect(String(asked.body)).toContain(`Delete client ${clientId}?`);
      const shown = await followed(await post('clients', 'delete', { clientId }));
      expect(flashOf(shown)).toBe(`Client ${clientId} deleted.`);
      expect((await readClient(clientId)).status).toBe(404);
    });

    it('answers another tenant’s client with the 404 page, on a link and on every form, and changes nothing', async () => {
      const before = (await readClient(otherClient.clientId, otherToken)).body;
      const id = otherClient.clientId;
      const attempts = [
        await page('clients', { client: id }),
        await page('clients', { delete: id }),
        await post('clients', 'update', {
          clientId: id,
          redirect_uri: 'https://evil.example/cb',
          'grant_types:authorization_code': 'on',
          scope: 'openid',
        }),
        await post('clients', 'rotate', { clientId: id, previous_secret_expires_in: '0' }),
        await post('clients', 'delete', { clientId: id }),
      ];
      expect(attempts.map((attempt) => attempt.status)).toEqual([404, 404, 404, 404, 404]);
      for (const attempt of attempts) expect(secretOf(attempt)).toBeUndefined();
      expect((await readClient(id, otherToken)).body).toEqual(before);
      const token = await app.request('oauth2Token', tokenRequest(otherClient, { grant_type: 'client_credentials', scope: 'orders:read' }));
      expect(token.status).toBe(200);
    });
  });

  describe('connections and domains (docs/api.md 15.3.7)', () => {
    const domain = `${tenantId}.example`;
    const oidcSecret = 'console-oidc-client-secret-Qx81mZ';
    let oidcId: string;

    it('adds a domain and shows its TXT record; verifies it once the record is published', async () => {
      const shown = await followed(await post('connections', 'add-domain', { domain: domain.toUpperCase() }));
      expect(flashOf(shown)).toBe(`Domain ${domain} added. Publish its TXT record, then verify it.`);
      const record = `_identity-verification.${domain}`;
      expect(String(shown.body)).toContain(`<code>${record}</code>`);
      const value = /<code>(identity-verification=[^<]+)<\/code>/.exec(String(shown.body))?.[1] ?? '';
      const early = await post('connections', 'verify-domain', { domain });
      expect(early.status).toBe(400);
      expect(String(early.body)).toContain('Domain not verified');
      dns.txt.set(record, [value]);
      const verified = await followed(await post('connections', 'verify-domain', { domain }));
      expect(flashOf(verified)).toBe(`Domain ${domain} verified.`);
      const domains = await app.request('adminListDomains', { token: adminToken });
      expect(domains.body.data.domains).toEqual([expect.objectContaining({ domain, status: 'verified' })]);
    });

    it('creates an OIDC connection; its page shows the redirect URI and never the client secret', async () => {
      const created = await post('connections', 'create-oidc', {
        name: 'Acme Okta',
        issuer: 'https://acme.okta.example',
        clientId: '0oa1console',
        clientSecret: oidcSecret,
        scopes: 'email groups',
        domains: domain,
        roleClaim: 'groups',
        roleMapping: 'Store Admins = ADMIN\nBuyers = SOURCING',
        defaultRole: 'ANALYST',
        jitProvisioning: 'on',
        enabled: 'on',
      });
      const shown = await followed(created);
      expect(flashOf(shown)).toBe('Connection Acme Okta created.');
      oidcId = new URL(created.headers.Location ?? '', origin).searchParams.get('connection') ?? '';
      expect(String(shown.body)).toContain(`<code>${deps.config.issuer}/sso/oidc/callback</code>`);
      expect(String(shown.body)).not.toContain(oidcSecret);
      expect((await readConnection(oidcId)).body.data.connection).toMatchObject({
        type: 'oidc',
        scopes: ['openid', 'email', 'groups'],
        roleMapping: { 'Store Admins': 'ADMIN', Buyers: 'SOURCING' },
        jitProvisioning: true,
        ssoRequired: false,
        enabled: true,
      });
      expect(JSON.stringify(deps.logs)).not.toContain(oidcSecret);
    });

    it('refuses a bad issuer beside its field, without sending the typed secret back', async () => {
      const refused = await post('connections', 'create-oidc', {
        name: 'Bad',
        issuer: 'ftp://acme.example',
        clientId: 'x',
        clientSecret: oidcSecret,
        domains: domain,
        defaultRole: 'ANALYST',
      });
      expect(refused.status).toBe(400);
      expect(fieldErrorsOf(refused).map(([id]) => id)).toEqual(['create-oidc-issuer']);
      expect(String(refused.body)).not.toContain(oidcSecret);
    });

    it('edits it: the secret kept when left empty, SSO required, the role mapping removed', async () => {
      const sealed = await sealedSecret(oidcId);
      expect(sealed).toMatch(/^v2\./);
      const shown = await followed(
        await post('connections', 'update', {
          id: oidcId,
          type: 'oidc',
          name: 'Acme Okta EU',
          issuer: 'https://acme.okta.example',
          clientId: '0oa1console',
          clientSecret: '',
          scopes: 'openid email',
          domains: domain,
          roleClaim: '',
          roleMapping: '',
          defaultRole: 'OPERATOR',
          ssoRequired: 'on',
        }),
      );
      expect(flashOf(shown)).toBe('Connection Acme Okta EU saved.');
      const connection = (await readConnection(oidcId)).body.data.connection;
      expect(connection).toMatchObject({ name: 'Acme Okta EU', ssoRequired: true, defaultRole: 'OPERATOR', jitProvisioning: false });
      expect(connection).not.toHaveProperty('roleMapping');
      expect(await sealedSecret(oidcId)).toBe(sealed);
    });

    it('disables and enables it', async () => {
      expect(flashOf(await followed(await post('connections', 'disable', { id: oidcId })))).toBe(
        'Connection Acme Okta EU disabled. Its sessions end at their next request.',
      );
      expect((await readConnection(oidcId)).body.data.connection.enabled).toBe(false);
      await followed(await post('connections', 'enable', { id: oidcId }));
      expect((await readConnection(oidcId)).body.data.connection.enabled).toBe(true);
    });

    it('creates a SAML connection from its metadata; its page shows the ACS URL and SP entity ID', async () => {
      const created = await post('connections', 'create-saml', {
        name: HOSTILE,
        metadataXml: idpMetadata(await idpCertificate()),
        domains: domain,
        roleAttribute: 'groups',
        defaultRole: 'OPERATOR',
      });
      const shown = await followed(created);
      const id = new URL(created.headers.Location ?? '', origin).searchParams.get('connection') ?? '';
      expect(String(shown.body)).toContain(`<code>${deps.config.issuer}/sso/saml/${id}/acs</code>`);
      expect(String(shown.body)).not.toContain(HOSTILE);
      expect((await readConnection(id)).body.data.connection).toMatchObject({
        type: 'saml',
        entityId: 'http://www.okta.com/exk1acme',
        enabled: false,
      });
    });

    it('takes SAML metadata of a large IdP (tens of KiB, as Entra ID’s with its roles)', async () => {
      const format = '<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>\n';
      const metadataXml = idpMetadata(await idpCertificate()).replace('</md:NameIDFormat>', `</md:NameIDFormat>\n${format.repeat(400)}`);
      expect(metadataXml.length).toBeGreaterThan(32 * 1024);
      const created = await post('connections', 'create-saml', { name: 'Big IdP', metadataXml, domains: domain, defaultRole: 'ANALYST' });
      expect(created.status, String(created.body).slice(0, 500)).toBe(303);
      const id = new URL(created.headers.Location ?? '', origin).searchParams.get('connection') ?? '';
      expect((await readConnection(id)).body.data.connection).toMatchObject({ type: 'saml', entityId: 'http://www.okta.com/exk1acme' });
    });

    it('asks before deleting a connection and a domain, then deletes them', async () => {
      expect(String((await page('connections', { delete: oidcId })).body)).toContain('Delete connection Acme Okta EU?');
      expect(flashOf(await followed(await post('connections', 'delete', { id: oidcId })))).toBe('Connection Acme Okta EU deleted.');
      expect((await readConnection(oidcId)).status).toBe(404);
      expect(String((await page('connections', { deleteDomain: domain })).body)).toContain(`Delete domain ${domain}?`);
      expect(flashOf(await followed(await post('connections', 'delete-domain', { domain })))).toBe(`Domain ${domain} deleted.`);
      expect((await app.request('adminListDomains', { token: adminToken })).body.data.domains).toEqual([]);
    });

    it('answers another tenant’s connection with the 404 page, on a link and on every form, and changes nothing', async () => {
      const before = (await readConnection(otherConnection, otherToken)).body;
      const attempts = [
        await page('connections', { connection: otherConnection }),
        await page('connections', { delete: otherConnection }),
        await post('connections', 'update', {
          id: otherConnection,
          type: 'oidc',
          name: 'Taken',
          issuer: 'https://evil.example',
          clientId: 'x',
          clientSecret: 'evil',
          domains: 'evil.example',
          defaultRole: 'ADMIN',
        }),
        await post('connections', 'disable', { id: otherConnection }),
        await post('connections', 'delete', { id: otherConnection }),
      ];
      expect(attempts.map((attempt) => attempt.status)).toEqual([404, 404, 404, 404, 404]);
      expect((await readConnection(otherConnection, otherToken)).body).toEqual(before);
    });
  });

  describe('SCIM tokens (docs/api.md 15.3.8)', () => {
    it('creates a token shown once that provisions, lists it by name only, and deletes it: then it is refused', async () => {
      const created = await post('scim-tokens', 'create', { name: HOSTILE });
      expect(created.status).toBe(200);
      expect(created.headers['Cache-Control']).toBe('no-store');
      const token = secretOf(created) ?? '';
      expect(String(created.body)).not.toContain(HOSTILE);
      expect((await scimClient(app, token)('scimListUsers')).status).toBe(200);
      const listed = await page('scim-tokens');
      expect(String(listed.body)).not.toContain(token);
      expect(String(listed.body)).toContain('&lt;img src=x');
      expect(JSON.stringify(deps.logs)).not.toContain(token);
      const tokens = await app.request('adminListScimTokens', { token: adminToken });
      const id = tokens.body.data.scimTokens[0].id;
      expect(String((await page('scim-tokens', { delete: id })).body)).toContain('Delete SCIM token');
      const removed = await followed(await post('scim-tokens', 'delete', { id }));
      expect(flashOf(removed)).toContain('deleted.');
      expect((await scimClient(app, token)('scimListUsers')).status).toBe(401);
    });

    it('answers another tenant’s token with 404 and deletes nothing', async () => {
      const other = await app.request('adminCreateScimToken', { token: otherToken, body: { name: 'Okta' } });
      const id = other.body.data.scimToken.id;
      expect((await page('scim-tokens', { delete: id })).status).toBe(404);
      expect((await post('scim-tokens', 'delete', { id })).status).toBe(404);
      expect((await scimClient(app, other.body.data.token)('scimListUsers')).status).toBe(200);
    });
  });

  describe('refusals', () => {
    it('answers a non-ADMIN with the 403 page on every section and form, and changes nothing', async () => {
      const operator = await signedInJar(app, origin, 'account', { tenantId, username: 'olga', password: PASSWORD });
      csrfs.set(operator.jar, /name="csrf" value="([^"]+)"/.exec(String(operator.page.body))?.[1] ?? '');
      for (const section of ['shops', 'clients', 'connections', 'scim-tokens'])
        expect((await openPage(app, operator.jar, 'admin', { section })).status).toBe(403);
      const attempts = [
        await post('shops', 'create', { shopId: 'olga-shop', name: 'Olga' }, operator.jar),
        await post(
          'clients',
          'create',
          { client_id: 'olga-app', redirect_uri: 'https://a.example/cb', 'grant_types:authorization_code': 'on', scope: 'openid' },
          operator.jar,
        ),
        await post('connections', 'add-domain', { domain: 'olga.example' }, operator.jar),
        await post('scim-tokens', 'create', { name: 'Olga' }, operator.jar),
      ];
      expect(attempts.map((attempt) => attempt.status)).toEqual([403, 403, 403, 403]);
      expect((await readClient('olga-app')).status).toBe(404);
      expect((await app.request('adminListScimTokens', { token: adminToken })).body.data.scimTokens).toEqual([]);
    });

    it('refuses a form from another site and one of an expired page, and changes nothing', async () => {
      const crossSite = await postAction(
        app,
        jar,
        'admin',
        { section: 'shops', action: 'create' },
        { csrf, shopId: 'cross-1', name: 'x' },
        'https://evil.example',
      );
      expect(crossSite.status).toBe(403);
      const stale = await post('shops', 'create', { csrf: 'stale', shopId: 'stale-1', name: 'x' });
      expect(stale.status).toBe(403);
      const shops = (await app.request('adminListShops', { token: adminToken })).body.data.shops.map(
        (shop: { shopId: string }) => shop.shopId,
      );
      expect(shops).not.toContain('cross-1');
      expect(shops).not.toContain('stale-1');
    });

    it('signs the signed-out browser in first', async () => {
      const response = await openPage(app, new CookieJar(), 'admin', { section: 'clients', query: { tenant: tenantId } });
      expect(response.status).toBe(200);
      expect(String(response.body)).toContain('name="password"');
    });
  });
});
