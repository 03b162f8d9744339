import type { Deps } from '../deps';

/** The name the hosted pages show for a tenant (docs/api.md 9.14, 11.7): its display name, or else its id. */
export async function tenantName(deps: Pick<Deps, 'store'>, tenantId: string): Promise<string> {
  return (await deps.store.tenants.find(tenantId))?.displayName ?? tenantId;
}
