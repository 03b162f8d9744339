import { beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, UpdateCommand } from '../../lib/store/commands';
import { keys } from '../../lib/store/keys';
import { type App, registerStaff, testApp } from '../helpers/app';
import { nearRealTime } from '../helpers/clock';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { failure } from '../helpers/failures';
import { localDynamo } from '../helpers/local-dynamo';

const PASSWORD = 'tenant admin passphrase';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const denied = { status: 403, headers: expect.anything(), body: failure('Permission denied') };
const unknownShop = { status: 400, headers: expect.anything(), body: failure('Unknown shop') };
const shopExists = { status: 409, headers: expect.anything(), body: failure('Shop already exists') };

describe('tenant administration: shops (docs/api.md 9.7)', () => {
  let deps: TestDeps;
  let app: App;

  beforeAll(async () => {
    deps = nearRealTime(await testDeps());
    app = testApp(deps);
  });

  const newTenant = async (shopId?: string) => {
    const tenantId = uniqueTenant('shops');
    const response = await app.request('register', {
      body: { username: 'admin', password: PASSWORD, role: 'ADMIN', tenantId, ...(shopId ? { shopId } : {}) },
    });
    expect(response.status).toBe(201);
    return { tenantId, token: response.body.data.token as string, userId: response.body.data.user.id as string };
  };
  const shopsOf = async (token: string) => (await app.request('adminListShops', { token })).body;

  describe('POST /admin/shops and GET /admin/shops', () => {
    it('creates a shop and lists it with the tenant’s default shop, by id', async () => {
      const { token } = await newTenant();
      const created = await app.request('adminCreateShop', { token, body: { shopId: 'berlin-1', name: '  Berlin Mitte  ' } });
      expect(created).toEqual({
        status: 201,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: { success: true, data: { shop: { shopId: 'berlin-1', name: 'Berlin Mitte', createdAt: expect.stringMatching(ISO) } } },
      });
      expect(await app.request('adminListShops', { token })).toEqual({
        status: 200,
        headers: expect.objectContaining({ 'Cache-Control': 'no-store' }),
        body: {
          success: true,
          data: {
            shops: [
              { shopId: 'berlin-1', name: 'Berlin Mitte', createdAt: expect.stringMatching(ISO) },
              { shopId: 'default', name: 'default', createdAt: expect.stringMatching(ISO) },
            ],
          },
        },
      });
    });

    it('answers 409 Shop already exists for a shop of that id, the default shop included, and keeps the first', async () => {
      const { token } = await newTenant();
      expect((await app.request('adminCreateShop', { token, body: { shopId: 'head-office', name: 'First' } })).status).toBe(201);
      expect(await app.request('adminCreateShop', { token, body: { shopId: 'head-office', name: 'Second' } })).toEqual(shopExists);
      expect(await app.request('adminCreateShop', { token, body: { shopId: 'default', name: 'Again' } })).toEqual(shopExists);
      expect((await shopsOf(token)).data.shops.map((shop: { name: string }) => shop.name)).toEqual(['default', 'First']);
    });

    it('a tenant has the shop of its anonymous bootstrap from its creation, and staff registered without shopId join it', async () => {
      const { tenantId, token } = await newTenant('hq-7');
      expect((await shopsOf(token)).data.shops).toEqual([{ shopId: 'hq-7', name: 'hq-7', createdAt: expect.stringMatching(ISO) }]);
      const staff = await registerStaff(app, token, { username: 'clerk', password: PASSWORD, role: 'OPERATOR', tenantId });
      expect(staff.user.shopId).toBe('hq-7');
      // The configured default shop is not this tenant's.
      const elsewhere = await app.request('register', {
        token,
        body: { username: 'other', password: PASSWORD, role: 'OPERATOR', tenantId, shopId: 'default' },
      });
      expect(elsewhere).toEqual(unknownShop);
    });

    it.each([
      [{ shopId: '', name: 'x' }, 'shopId: Too small: expected string to have >=1 characters'],
      [
        { shopId: 'a'.repeat(64), name: 'x' },
        'shopId: Invalid id: expected 3 to 63 lower-case letters, digits and hyphens, not starting or ending with a hyphen',
      ],
      [
        { shopId: 'two words', name: 'x' },
        'shopId: Invalid id: expected 3 to 63 lower-case letters, digits and hyphens, not starting or ending with a hyphen',
      ],
      [
        { shopId: 'Berlin', name: 'x' },
        'shopId: Invalid id: expected 3 to 63 lower-case letters, digits and hyphens, not starting or ending with a hyphen',
      ],
      [{ shopId: 'shop-x', name: '   ' }, 'name: Too small: expected string to have >=1 characters'],
      [{ shopId: 'shop-x', name: 'n'.repeat(101) }, 'name: Too big: expected string to have <=100 characters'],
      [{ shopId: 'shop-x', name: 'line\nbreak' }, expect.stringMatching(/^name: Invalid string: must match pattern/)],
      [{ shopId: 'shop-x' }, 'name: Invalid input: expected string, received undefined'],
      [{ shopId: 'shop-x', name: 'x', tenantId: 'other' }, expect.stringMatching(/^body: Unrecognized key/)],
    ])('answers 400 for the body %j and creates nothing', async (body, error) => {
      const { token } = await newTenant();
      expect(await app.request('adminCreateShop', { token, body })).toEqual({
        status: 400,
        headers: expect.anything(),
        body: typeof error === 'string' ? failure(error) : { success: false, error, code: 'VALIDATION_FAILED', fields: expect.any(Array) },
      });
      expect((await shopsOf(token)).data.shops).toHaveLength(1);
    });

    it('answers 403 Permission denied to anyone but an ADMIN, also without a token and with a bad body', async () => {
      const { tenantId, token } = await newTenant();
      const staff = await registerStaff(app, token, { username: 'manager', password: PASSWORD, role: 'MANAGER', tenantId });
      expect(await app.request('adminCreateShop', { token: staff.token, body: { shopId: 'x', name: 'x' } })).toEqual(denied);
      expect(await app.request('adminCreateShop', { body: { shopId: '' } })).toEqual(denied);
      expect(await app.request('adminListShops', { token: staff.token })).toEqual(denied);
      expect(await app.request('adminListShops', {})).toEqual(denied);
      expect((await shopsOf(token)).data.shops).toHaveLength(1);
    });
  });

  describe('a user’s shop must be one of the tenant’s', () => {
    it('register by an ADMIN: a created shop is accepted, any other answers 400 Unknown shop', async () => {
      const { tenantId, token } = await newTenant();
      await app.request('adminCreateShop', { token, body: { shopId: 'shop-2', name: 'Two' } });
      const body = { password: PASSWORD, role: 'OPERATOR', tenantId };
      const placed = await app.request('register', { token, body: { ...body, username: 'placed', shopId: 'shop-2' } });
      expect(placed.status).toBe(201);
      expect(placed.body.data.user.shopId).toBe('shop-2');
      expect(await app.request('register', { token, body: { ...body, username: 'lost', shopId: 'shop-3' } })).toEqual(unknownShop);
      // Not registered: the username is still free.
      expect((await app.request('register', { token, body: { ...body, username: 'lost' } })).status).toBe(201);
    });

    it('PATCH /admin/users: another shop answers 400 Unknown shop and changes nothing', async () => {
      const { tenantId, token } = await newTenant();
      const staff = await registerStaff(app, token, { username: 'mover', password: PASSWORD, role: 'OPERATOR', tenantId });
      const patch = (shopId: string) =>
        app.request('adminUpdateUser', { token, pathParameters: { userId: staff.user.id }, body: { role: 'MANAGER', shopId } });
      expect(await patch('nowhere')).toEqual(unknownShop);
      expect(await deps.store.users.findById(tenantId, staff.user.id)).toMatchObject({ role: 'OPERATOR', shopId: 'default' });
      await app.request('adminCreateShop', { token, body: { shopId: 'somewhere', name: 'Somewhere' } });
      expect((await patch('somewhere')).body.data.user).toMatchObject({ role: 'MANAGER', shopId: 'somewhere' });
    });
  });

  describe('tenants created before shops existed', () => {
    /** A tenant as the service wrote it before shops: no default shop on the tenant record, no shop record. */
    async function legacyTenant() {
      const tenant = await newTenant();
      const { doc, table } = localDynamo();
      await doc.send(new UpdateCommand({ TableName: table, Key: keys.tenant(tenant.tenantId), UpdateExpression: 'REMOVE defaultShopId' }));
      await doc.send(new DeleteCommand({ TableName: table, Key: keys.shop(tenant.tenantId, 'default') }));
      return tenant;
    }

    it('have the configured default shop without a record: listed, accepted, not created again', async () => {
      const { tenantId, token } = await legacyTenant();
      expect((await shopsOf(token)).data.shops).toEqual([{ shopId: 'default', name: 'default', createdAt: expect.stringMatching(ISO) }]);
      const staff = await registerStaff(app, token, { username: 'legacy', password: PASSWORD, role: 'ANALYST', tenantId });
      expect(staff.user.shopId).toBe('default');
      const named = await app.request('register', {
        token,
        body: { username: 'named', password: PASSWORD, role: 'ANALYST', tenantId, shopId: 'default' },
      });
      expect(named.status).toBe(201);
      expect(await app.request('adminCreateShop', { token, body: { shopId: 'default', name: 'Default' } })).toEqual(shopExists);
      expect(
        await app.request('register', { token, body: { username: 'x', password: PASSWORD, role: 'ANALYST', tenantId, shopId: 'old' } }),
      ).toEqual(unknownShop);
    });
  });

  it('registers the first ADMIN of a new tenant in one transaction with its tenant and default shop', async () => {
    const { tenantId, token, userId } = await newTenant('flagship');
    expect(await deps.store.tenants.find(tenantId)).toEqual({ tenantId, createdAt: expect.stringMatching(ISO), defaultShopId: 'flagship' });
    expect(await deps.store.shops.find(tenantId, 'flagship')).toEqual({
      tenantId,
      shopId: 'flagship',
      name: 'flagship',
      createdAt: expect.stringMatching(ISO),
      createdBy: userId,
    });
    expect(token).toEqual(expect.any(String));
  });
});
