import { beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { type App, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { browserAuthorize, CookieJar } from '../helpers/hosted';
import { localDynamo } from '../helpers/local-dynamo';
import { createClient } from '../helpers/oauth';

const PASSWORD = 'tenant admin passphrase';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const denied = { status: 403, headers: expect.anything(), body: failure('Permission denied') };

describe('tenant administration: tenant settings (docs/api.md 9.14)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  const newTenant = async () => {
    const tenantId = uniqueTenant('settings');
    const response = await app.request('register', {
      body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId, shopId: 'main-shop' },
    });
    expect(response.status).toBe(201);
    return { tenantId, token: response.body.data.token as string, userId: response.body.data.user.id as string };
  };

  it('reads the tenant without a display name, then with the one set (trimmed), audited as tenant_updated', async () => {
    const { tenantId, token, userId } = await newTenant();
    expect(await app.request('adminReadTenant', { token })).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: {
        success: true,
        data: {
          tenant: {
            id: tenantId,
            displayName: null,
            createdAt: expect.stringMatching(ISO),
            defaultShopId: 'main-shop',
            scimDefaultRole: 'ANALYST',
            logoUrl: null,
            accentColor: null,
          },
        },
      },
    });
    const renamed = await app.request('adminUpdateTenant', { token, body: { displayName: '  Acme Shops GmbH  ' } });
    expect(renamed).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
      body: {
        success: true,
        data: {
          tenant: {
            id: tenantId,
            displayName: 'Acme Shops GmbH',
            createdAt: expect.stringMatching(ISO),
            defaultShopId: 'main-shop',
            scimDefaultRole: 'ANALYST',
            logoUrl: null,
            accentColor: null,
          },
        },
      },
    });
    expect((await app.request('adminReadTenant', { token })).body.data.tenant.displayName).toBe('Acme Shops GmbH');
    const trail = await app.request('adminListAudit', { token, query: { type: 'tenant_updated' } });
    expect(trail.body.data.events).toEqual([
      expect.objectContaining({
        type: 'tenant_updated',
        actor: { type: 'user', id: userId },
        targetUserId: null,
        outcome: 'success',
        details: { name: 'Acme Shops GmbH' },
      }),
    ]);
  });

  it('shows the display name on the hosted pages, the tenant id before one is set', async () => {
    const { tenantId, token } = await newTenant();
    const client = await createClient(app, token, tenantId);
    const header = async () =>
      /<header><p>([^<]*)<\/p><\/header>/.exec(String((await browserAuthorize(app, new CookieJar(), client)).response.body))?.[1];
    expect(await header()).toBe(tenantId);
    await app.request('adminUpdateTenant', { token, body: { displayName: 'Acme & <Sons>' } });
    expect(await header()).toBe('Acme &amp; &lt;Sons>');
  });

  it('sets the pages’ logo and accent colour, and removes them with null', async () => {
    const { token } = await newTenant();
    const set = await app.request('adminUpdateTenant', {
      token,
      body: { logoUrl: 'https://cdn.example.com/acme.svg', accentColor: '#0F766E' },
    });
    expect(set.body.data.tenant).toMatchObject({ logoUrl: 'https://cdn.example.com/acme.svg', accentColor: '#0F766E', displayName: null });
    const removed = await app.request('adminUpdateTenant', { token, body: { logoUrl: null } });
    expect(removed.body.data.tenant).toMatchObject({ logoUrl: null, accentColor: '#0F766E' });
    expect((await app.request('adminReadTenant', { token })).body.data.tenant).toMatchObject({ logoUrl: null, accentColor: '#0F766E' });
  });

  it('names a tenant older than tenant records, which then reads as one of unknown (old) creation', async () => {
    const { tenantId, token } = await newTenant();
    await localDynamo().doc.send(new DeleteCommand({ TableName: deps.config.tableName, Key: keys.tenant(tenantId) }));
    expect((await app.request('adminReadTenant', { token })).body.data.tenant).toEqual({
      id: tenantId,
      displayName: null,
      createdAt: '1970-01-01T00:00:00.000Z',
      defaultShopId: deps.config.defaultShopId,
      scimDefaultRole: 'ANALYST',
      logoUrl: null,
      accentColor: null,
    });
    const renamed = await app.request('adminUpdateTenant', { token, body: { displayName: 'Old Tenant' } });
    expect(renamed.body.data.tenant).toMatchObject({ id: tenantId, displayName: 'Old Tenant', createdAt: '1970-01-01T00:00:00.000Z' });
  });

  it.each([
    [{ displayName: '   ' }, 'displayName: Too small: expected string to have >=1 characters'],
    [{ displayName: 'n'.repeat(101) }, 'displayName: Too big: expected string to have <=100 characters'],
    [{ displayName: 'line\nbreak' }, expect.stringMatching(/^displayName: Invalid string: must match pattern/)],
    [{ displayName: 'right\u202eleft' }, expect.stringMatching(/^displayName: Invalid string: must match pattern/)],
    [{}, 'body: Expected displayName, scimDefaultRole, logoUrl or accentColor'],
    [{ logoUrl: 'http://cdn.example.com/logo.png' }, expect.stringMatching(/^logoUrl: /)],
    [{ logoUrl: 'https://user:pw@cdn.example.com/logo.png' }, 'logoUrl: Expected an https URL without credentials'],
    [{ logoUrl: 'javascript:alert(1)' }, expect.stringMatching(/^logoUrl: /)],
    [{ logoUrl: `https://cdn.example.com/${'l'.repeat(2040)}` }, expect.stringMatching(/^logoUrl: Too big/)],
    [{ accentColor: 'red' }, 'accentColor: Expected a colour as #rrggbb'],
    [{ accentColor: '#12345g' }, 'accentColor: Expected a colour as #rrggbb'],
    [{ accentColor: '#fff;}' }, 'accentColor: Expected a colour as #rrggbb'],
    [{ scimDefaultRole: 'OWNER' }, expect.stringMatching(/^scimDefaultRole: Invalid option/)],
    [{ displayName: 'x', tenantId: 'other' }, expect.stringMatching(/^body: Unrecognized key/)],
  ])('answers 400 for the body %j and changes nothing', async (body, error) => {
    const { token } = await newTenant();
    expect(await app.request('adminUpdateTenant', { token, body })).toEqual({
      status: 400,
      headers: expect.anything(),
      body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
    });
    expect((await app.request('adminReadTenant', { token })).body.data.tenant.displayName).toBeNull();
  });

  it('answers 403 Permission denied to anyone but an ADMIN, also without a token and with a bad body', async () => {
    const { tenantId, token } = await newTenant();
    const staff = await registerStaff(app, token, { username: 'manager', password: PASSWORD, role: 'MANAGER', tenantId });
    expect(await app.request('adminReadTenant', { token: staff.token })).toEqual(denied);
    expect(await app.request('adminUpdateTenant', { token: staff.token, body: { displayName: 'Mine' } })).toEqual(denied);
    expect(await app.request('adminReadTenant', {})).toEqual(denied);
    expect(await app.request('adminUpdateTenant', { body: { displayName: '' } })).toEqual(denied);
    expect((await app.request('adminReadTenant', { token })).body.data.tenant.displayName).toBeNull();
  });
});
