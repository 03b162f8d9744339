import type { Deps } from '../deps';
import { ForbiddenError } from '../errors';
import type { Connection } from './connection';
import { emailDomain } from './connection';

/** docs/api.md 14.1: the answer to a password sign-in of a user whose organization signs them in. */
export const SSO_REQUIRED = 'Sign in with your organization';
export const ssoRequired = () => new ForbiddenError(SSO_REQUIRED, { code: 'SSO_REQUIRED' });

/**
 * The connection that requires its users to sign in through the IdP (docs/api.md 14.1) for
 * this email: an enabled `ssoRequired` connection of the tenant whose domains include the
 * email's, that domain verified for this tenant. Undefined for anything else, an email of
 * no domain included. The claim is read first (one read): most emails are at domains no
 * tenant verified, and the tenant's connections are listed only for those of this tenant.
 */
export async function ssoConnectionFor(deps: Pick<Deps, 'store'>, tenantId: string, email: string): Promise<Connection | undefined> {
  const domain = emailDomain(email);
  if (domain === undefined) return undefined;
  const claim = await deps.store.domains.claimOf(domain);
  if (claim?.tenantId !== tenantId) return undefined;
  const connections = await deps.store.connections.listByTenant(tenantId);
  return connections.find((connection) => connection.enabled && connection.ssoRequired && connection.domains.includes(domain));
}
