import { byAdmin, recordEvent } from '../audit/record';
import type { Role } from '../caller';
import type { Deps } from '../deps';
import { adminEvent } from '../events/by-admin';
import { ACCENT_COLOR } from '../hosted/branding';
import { type Tenant, type TenantSettings, UNKNOWN_CREATION } from '../store/tenants';
import type { Identity } from '../tokens/access-token';
import * as z from '../zod';

/** The tenant as its ADMIN reads it (docs/api.md 9.14). */
export interface TenantView {
  id: string;
  displayName: string | null;
  createdAt: string;
  defaultShopId: string;
  /** The role of a user provisioned over SCIM without a group (docs/api.md 13.3). */
  scimDefaultRole: Role;
  /** The logo of the tenant's pages (docs/api.md 9.14, 15.1), or null. */
  logoUrl: string | null;
  /** The accent colour of the tenant's pages, `#rrggbb`, or null. */
  accentColor: string | null;
}

/** docs/api.md 9.14: a display name is one line of text, as a shop's name (9.7). */
export const displayNameSetting = z.string().check(z.trim(), z.minLength(1), z.maxLength(100), z.regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u));

/**
 * docs/api.md 9.14: a logo is an https URL of at most 2048 characters (the pages' CSP
 * allows images of its origin only), without credentials; null removes it.
 */
export const logoUrlSetting = z.url({ protocol: /^https$/, hostname: z.regexes.domain }).check(
  z.maxLength(2048),
  z.refine((value) => {
    // zod runs this after a failed check too: a value that is no URL was refused by it already.
    const url = URL.parse(value);
    return url === null || (url.username === '' && url.password === '');
  }, 'Expected an https URL without credentials'),
);

/** docs/api.md 9.14: an accent colour is `#rrggbb`; null removes it. */
export const accentColorSetting = z.string().check(z.regex(ACCENT_COLOR, 'Expected a colour as #rrggbb'));

/** docs/api.md 13.3: without a tenant setting, users provisioned over SCIM without a group are ANALYSTs. */
export const SCIM_DEFAULT_ROLE: Role = 'ANALYST';

type TenantDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

/** A tenant older than tenant records (none yet) is answered with what is known of it. */
const viewOf = (deps: Pick<Deps, 'config'>, tenantId: string, tenant: Tenant | undefined): TenantView => ({
  id: tenantId,
  displayName: tenant?.displayName ?? null,
  createdAt: tenant?.createdAt ?? UNKNOWN_CREATION,
  defaultShopId: tenant?.defaultShopId ?? deps.config.defaultShopId,
  scimDefaultRole: tenant?.scimDefaultRole ?? SCIM_DEFAULT_ROLE,
  logoUrl: tenant?.logoUrl ?? null,
  accentColor: tenant?.accentColor ?? null,
});

/** docs/api.md 9.14: the ADMIN's own tenant. */
export async function readTenant(deps: Pick<Deps, 'config' | 'store'>, admin: Identity): Promise<TenantView> {
  return viewOf(deps, admin.tenantId, await deps.store.tenants.find(admin.tenantId));
}

/**
 * docs/api.md 9.14: names and brands the ADMIN's tenant for the hosted pages and the
 * console, sets its SCIM default role; audited as `tenant_updated`.
 */
export async function updateTenant(deps: TenantDeps, admin: Identity, settings: TenantSettings): Promise<TenantView> {
  const { tenantId } = admin;
  const names = Object.entries(settings).flatMap(([name, value]) => (value === undefined ? [] : [name]));
  const updated = adminEvent(deps, admin, 'identity.tenant.updated', tenantId, { changed: names });
  const changed = await deps.store.emitting([updated]).tenants.updateSettings(tenantId, settings);
  deps.log.info('tenant_updated', { tenantId, actorId: admin.userId });
  const details = { name: settings.displayName, role: settings.scimDefaultRole };
  await recordEvent(deps, { ...byAdmin(admin), type: 'tenant_updated', outcome: 'success', details });
  return viewOf(deps, tenantId, changed);
}
