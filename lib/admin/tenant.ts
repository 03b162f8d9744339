import { byAdmin, recordEvent } from '../audit/record';
import type { Deps } from '../deps';
import { type Tenant, UNKNOWN_CREATION } from '../store/tenants';
import type { Identity } from '../tokens/access-token';

/** The tenant as its ADMIN reads it (docs/api.md 9.14). */
export interface TenantView {
  id: string;
  displayName: string | null;
  createdAt: string;
  defaultShopId: string;
}

type TenantDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

/** A tenant older than tenant records (none yet) is answered with what is known of it. */
const viewOf = (deps: Pick<Deps, 'config'>, tenantId: string, tenant: Tenant | undefined): TenantView => ({
  id: tenantId,
  displayName: tenant?.displayName ?? null,
  createdAt: tenant?.createdAt ?? UNKNOWN_CREATION,
  defaultShopId: tenant?.defaultShopId ?? deps.config.defaultShopId,
});

/** docs/api.md 9.14: the ADMIN's own tenant. */
export async function readTenant(deps: Pick<Deps, 'config' | 'store'>, admin: Identity): Promise<TenantView> {
  return viewOf(deps, admin.tenantId, await deps.store.tenants.find(admin.tenantId));
}

/** docs/api.md 9.14: names the ADMIN's tenant for the hosted pages; audited as `tenant_updated`. */
export async function renameTenant(deps: TenantDeps, admin: Identity, displayName: string): Promise<TenantView> {
  const { tenantId } = admin;
  const changed = await deps.store.tenants.setDisplayName(tenantId, displayName);
  deps.log.info('tenant_updated', { tenantId, actorId: admin.userId });
  await recordEvent(deps, { ...byAdmin(admin), type: 'tenant_updated', outcome: 'success', details: { name: displayName } });
  return viewOf(deps, tenantId, changed);
}
