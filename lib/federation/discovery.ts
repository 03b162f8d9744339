import type { Deps } from '../deps';
import { type Connection, emailDomain } from './connection';

/*
 * Home-realm discovery (docs/api.md 14.3): which of a tenant's connections an email
 * address belongs to. A connection answers for a domain only when the domain is in its
 * list and verified for its tenant (docs/api.md 14.2): an ADMIN cannot route, or let
 * sign in, addresses of a domain another tenant (or nobody) proved.
 */

/** Whether the email's domain is one of the connection's and verified for the connection's tenant. */
export async function isVerifiedDomainOf(deps: Pick<Deps, 'store'>, connection: Connection, email: string): Promise<boolean> {
  const domain = emailDomain(email);
  if (domain === undefined || !connection.domains.includes(domain)) return false;
  const claim = await deps.store.domains.claimOf(domain);
  return claim?.tenantId === connection.tenantId;
}

/**
 * The tenant's enabled connection for an email address (docs/api.md 14.3): one whose
 * domains hold the address's domain, verified for the tenant; undefined for anything else
 * (a username, another domain). With `ssoRequired`, only a connection that requires it.
 */
export async function connectionForEmail(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  email: string,
  options: { ssoRequired?: boolean; connections?: Connection[] } = {},
): Promise<Connection | undefined> {
  const domain = emailDomain(email);
  if (domain === undefined) return undefined;
  const [claim, connections] = await Promise.all([
    deps.store.domains.claimOf(domain),
    options.connections ?? deps.store.connections.listByTenant(tenantId),
  ]);
  if (claim?.tenantId !== tenantId) return undefined;
  return connections.find(
    (connection) =>
      connection.tenantId === tenantId &&
      connection.enabled &&
      connection.domains.includes(domain) &&
      (!options.ssoRequired || connection.ssoRequired),
  );
}
