import { byAdmin, recordEvent } from '../audit/record';
import type { Deps } from '../deps';
import { ConflictError, ValidationError } from '../errors';
import { adminEvent } from '../events/by-admin';
import type { Shop } from '../store/shops';
import type { Identity } from '../tokens/access-token';

export const SHOP_EXISTS = 'Shop already exists';
export const UNKNOWN_SHOP = 'Unknown shop';

/** A shop as the tenant administration answers with it (docs/api.md 9.7). */
export interface ShopView {
  shopId: string;
  name: string;
  createdAt: string;
}

type ShopDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

const viewOf = (shop: Shop): ShopView => ({ shopId: shop.shopId, name: shop.name, createdAt: shop.createdAt });

/**
 * The shop a tenant was created with: recorded on the tenant; for tenants older than
 * shops, the configured default shop (docs/guides/tenant-admins.md, Shops).
 */
async function defaultShopOf(deps: Pick<Deps, 'config' | 'store'>, tenantId: string) {
  const tenant = await deps.store.tenants.find(tenantId);
  return { tenant, shopId: tenant?.defaultShopId ?? deps.config.defaultShopId };
}

/**
 * The shop a user of the tenant is given (docs/api.md 4.3, 9.3): `shopId` if it is one of
 * the tenant's shops, the tenant's default shop if none is named. 400 `Unknown shop`
 * otherwise, also for a shop of another tenant. The default shop counts as the tenant's
 * even where it has no record (tenants older than shops).
 */
export async function tenantShop(deps: Pick<Deps, 'config' | 'store'>, tenantId: string, shopId: string | undefined): Promise<string> {
  const [byDefault, shop] = await Promise.all([
    defaultShopOf(deps, tenantId),
    shopId === undefined ? undefined : deps.store.shops.find(tenantId, shopId),
  ]);
  if (shopId === undefined || shopId === byDefault.shopId) return byDefault.shopId;
  if (!shop) throw new ValidationError(UNKNOWN_SHOP, { code: 'UNKNOWN_SHOP' });
  return shop.shopId;
}

/** docs/api.md 9.7: a new shop of the ADMIN's tenant; 409 `Shop already exists`. */
export async function createShop(deps: ShopDeps, admin: Identity, request: { shopId: string; name: string }): Promise<ShopView> {
  const { tenantId } = admin;
  const { shopId: defaultShopId } = await defaultShopOf(deps, tenantId);
  // The default shop exists from the tenant's creation (without a record in tenants older than shops).
  if (request.shopId === defaultShopId) throw new ConflictError(SHOP_EXISTS, { code: 'SHOP_EXISTS' });
  const shop: Shop = { tenantId, ...request, createdAt: new Date(deps.clock.now()).toISOString(), createdBy: admin.userId };
  const event = adminEvent(deps, admin, 'identity.shop.created', shop.shopId, { shopId: shop.shopId, name: shop.name });
  const created = await deps.store.emitting([event]).shops.create(shop);
  if (created.outcome === 'exists') throw new ConflictError(SHOP_EXISTS, { code: 'SHOP_EXISTS' });
  deps.log.info('shop_created', { tenantId, actorId: admin.userId, shopId: shop.shopId });
  await recordEvent(deps, {
    ...byAdmin(admin),
    type: 'shop_created',
    outcome: 'success',
    details: { shopId: shop.shopId, name: shop.name },
  });
  return viewOf(shop);
}

/** docs/api.md 9.7: every shop of the ADMIN's tenant, by id, its default shop included. */
export async function listShops(deps: Pick<Deps, 'config' | 'store'>, admin: Identity): Promise<ShopView[]> {
  const [shops, byDefault] = await Promise.all([deps.store.shops.list(admin.tenantId), defaultShopOf(deps, admin.tenantId)]);
  const views = shops.map(viewOf);
  if (byDefault.tenant && !shops.some((shop) => shop.shopId === byDefault.shopId))
    views.push({ shopId: byDefault.shopId, name: byDefault.shopId, createdAt: byDefault.tenant.createdAt });
  return views.sort((a, b) => (a.shopId < b.shopId ? -1 : a.shopId > b.shopId ? 1 : 0));
}
