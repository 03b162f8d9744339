import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { body as consoleForm } from '../../../functions/admin-console-action';
import { clientsSection } from '../../../lib/console/admin/sections/clients';
import { connectionsSection } from '../../../lib/console/admin/sections/connections';
import { scimTokensSection } from '../../../lib/console/admin/sections/scim-tokens';
import { shopsSection } from '../../../lib/console/admin/sections/shops';
import type { Section } from '../../../lib/console/section';
import { type App, registerAdmin, testApp } from '../../helpers/app';
import { nearRealTime } from '../../helpers/clock';
import { openPage, postAction, signedInJar } from '../../helpers/console';
import { testDeps, uniqueTenant } from '../../helpers/deps';
import { connectionOf, oidcConnection } from '../../helpers/federation-admin';
import type { CookieJar } from '../../helpers/hosted';
import { createTable } from '../../helpers/isolated-table';
import { createClient } from '../../helpers/oauth';
import { nasty } from './mixed-requests';

/**
 * Hostile forms to the tenant console's shops, OAuth clients, connections and domains, and
 * SCIM tokens (docs/api.md 15.3.5-15.3.8), posted by a signed-in ADMIN next to real
 * records: every answer is a 4xx page (400 beside the fields, 404 for what is not the
 * tenant's, 409), never a 5xx, and the tenant's records do not change.
 */
const RUNS = 25;

describe('hostile input to the tenant console’s apps, connections and SCIM tokens', () => {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `hostile-console-apps-${Date.now()}`;
  let app: App;
  let token: string;
  let jar: CookieJar;
  let csrf: string;
  let origin: string;
  let realIds: string[];

  beforeAll(async () => {
    await createTable(endpoint, tableName);
    const deps = nearRealTime(await testDeps({ TABLE_NAME: tableName }));
    app = testApp(deps);
    origin = new URL(deps.config.issuer).origin;
    const tenantId = uniqueTenant('hostile-capps');
    token = (await registerAdmin(app, tenantId, 'admin', 'hostile console passphrase')).token;
    const client = await createClient(app, token, tenantId);
    const connection = await connectionOf(app, token, oidcConnection([`${tenantId}.example`]));
    await app.request('adminAddDomain', { token, body: { domain: `pending.${tenantId}.example` } });
    const scim = await app.request('adminCreateScimToken', { token, body: { name: 'Okta' } });
    realIds = [client.clientId, connection, `pending.${tenantId}.example`, scim.body.data.scimToken.id];
    const signedIn = await signedInJar(app, origin, 'admin', { tenantId, username: 'admin', password: 'hostile console passphrase' });
    jar = signedIn.jar;
    csrf = /name="csrf" value="([^"]+)"/.exec(String(signedIn.page.body))?.[1] ?? '';
  });

  /** A form as the function reads it: encoded as a browser does, parsed as the frame does. */
  const asReceived = (fields: Record<string, string>) =>
    consoleForm.safeParse(Object.fromEntries(new URLSearchParams(new URLSearchParams(fields).toString()))).data;

  /** What the tenant has, as its JSON routes read it. */
  const records = async () =>
    Promise.all(
      ['adminListShops', 'listOAuth2Clients', 'adminListConnections', 'adminListDomains', 'adminListScimTokens'].map(
        async (route) => (await app.request(route, { token })).body,
      ),
    );

  const cases: Array<[Section, string, string[]]> = [
    [shopsSection, 'create', ['shopId', 'name']],
    [clientsSection, 'create', ['client_id', 'redirect_uri', 'grant_types:authorization_code', 'scope', 'introspect_any', 'resources']],
    [clientsSection, 'update', ['clientId', 'redirect_uri', 'grant_types:client_credentials', 'scope', 'client_name', 'first_party']],
    [clientsSection, 'rotate', ['clientId', 'previous_secret_expires_in']],
    [clientsSection, 'delete', ['clientId']],
    [connectionsSection, 'add-domain', ['domain']],
    [connectionsSection, 'verify-domain', ['domain']],
    [connectionsSection, 'delete-domain', ['domain']],
    [connectionsSection, 'create-oidc', ['name', 'issuer', 'clientId', 'clientSecret', 'domains', 'roleMapping', 'defaultRole']],
    [connectionsSection, 'create-saml', ['name', 'metadataXml', 'entityId', 'ssoUrl', 'signingCertificates', 'domains', 'defaultRole']],
    [connectionsSection, 'update', ['id', 'type', 'name', 'issuer', 'domains', 'roleMapping', 'metadataXml']],
    [connectionsSection, 'disable', ['id']],
    [connectionsSection, 'delete', ['id']],
    [scimTokensSection, 'create', ['name']],
    [scimTokensSection, 'delete', ['id']],
  ];

  it.each(cases.map(([section, action, fields]) => [`${section.id}/${action}`, section, action, fields] as const))(
    'answers every malformed %s form with a 4xx page and changes nothing',
    async (_, section, action, fields) => {
      const form = section.actions[action]?.form;
      if (!form) throw new Error(`no action ${action}`);
      const before = await records();
      // An action on one record gets unknown ids only (a real one would act); the others real ids too, in forms that do not parse.
      const destructive = /delete|disable|rotate|verify/.test(action);
      const value = fc.oneof(nasty, fc.constantFrom(...(destructive ? [] : realIds), 'on', 'oidc', 'saml', 'ADMIN'));
      await fc.assert(
        fc.asyncProperty(
          fc
            .dictionary(fc.constantFrom(...fields, 'tenantId', '__proto__', 'client_secret'), value, { maxKeys: 5 })
            // A valid new record is the functional tests' (an unknown id in a valid form is hostile: 404).
            .filter((fields) => {
              const received = asReceived(fields);
              return destructive || received === undefined || !form.safeParse(received).success;
            }),
          async (fields) => {
            const response = await postAction(app, jar, 'admin', { section: section.id, action }, { ...fields, csrf }, origin);
            expect(response.status, String(response.body).slice(0, 500)).toBeGreaterThanOrEqual(400);
            expect(response.status).toBeLessThan(500);
            expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
          },
        ),
        { numRuns: RUNS },
      );
      expect(await records()).toEqual(before);
    },
    120_000,
  );

  it('answers every hostile id in a page’s query with the 404 page', async () => {
    const views = fc.constantFrom(
      ['clients', 'client'],
      ['clients', 'delete'],
      ['connections', 'connection'],
      ['connections', 'delete'],
      ['connections', 'deleteDomain'],
      ['scim-tokens', 'delete'],
    );
    await fc.assert(
      fc.asyncProperty(views, nasty, async ([section = '', key = ''], value) => {
        const response = await openPage(app, jar, 'admin', { section, query: { [key]: value } });
        expect(response.status, String(response.body).slice(0, 300)).toBe(404);
      }),
      { numRuns: 4 * RUNS },
    );
  });
});
