import { byAdmin, recordEvent } from '../audit/record';
import type { Deps } from '../deps';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors';
import { adminEvent } from '../events/by-admin';
import type { Identity } from '../tokens/access-token';
import { domainVerification, type TenantDomain } from './connection';
import { DnsUnavailableError, lookupTxt } from './dns';

export const DOMAIN_NOT_FOUND = 'Domain not found';
export const DOMAIN_EXISTS = 'Domain already added';
export const DOMAIN_CLAIMED = 'Domain already claimed';
export const DOMAIN_NOT_VERIFIED = 'Domain not verified';
export const DOMAIN_DELETED = 'Domain deleted';

type DomainDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source'>;

/** A domain as the admin routes answer it (docs/api.md 14.2): the TXT record while it is pending. */
export interface DomainView {
  domain: string;
  status: TenantDomain['status'];
  verification?: ReturnType<typeof domainVerification>;
  createdAt: string;
  verifiedAt?: string;
}

const viewOf = (domain: TenantDomain): DomainView => ({
  domain: domain.domain,
  status: domain.status,
  ...(domain.status === 'pending' ? { verification: domainVerification(domain) } : {}),
  createdAt: domain.createdAt,
  ...(domain.verifiedAt ? { verifiedAt: domain.verifiedAt } : {}),
});

const notFound = () => new NotFoundError(DOMAIN_NOT_FOUND, { code: 'DOMAIN_NOT_FOUND' });
const claimed = () => new ConflictError(DOMAIN_CLAIMED, { code: 'DOMAIN_CLAIMED' });

/** Whether another tenant holds the domain. */
async function claimedByAnother(deps: Pick<Deps, 'store'>, tenantId: string, domain: string): Promise<boolean> {
  const claim = await deps.store.domains.claimOf(domain);
  return claim !== undefined && claim.tenantId !== tenantId;
}

/**
 * docs/api.md 14.2: adds a domain to the ADMIN's tenant, pending until the TXT record with
 * its random token is found. 409 when another tenant verified it, or this one has it.
 */
export async function addDomain(deps: DomainDeps, admin: Identity, domain: string) {
  if (await claimedByAnother(deps, admin.tenantId, domain)) throw claimed();
  const record: TenantDomain = {
    tenantId: admin.tenantId,
    domain,
    status: 'pending',
    token: deps.random.token(32),
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  const added = adminEvent(deps, admin, 'identity.domain.added', domain, { domain });
  if ((await deps.store.emitting([added]).domains.create(record)) === 'exists')
    throw new ConflictError(DOMAIN_EXISTS, { code: 'DOMAIN_EXISTS' });
  deps.log.info('domain_added', { tenantId: admin.tenantId, actorId: admin.userId, domain });
  await recordEvent(deps, { ...byAdmin(admin), type: 'domain_added', outcome: 'success', details: { domain } });
  return { domain, status: 'pending' as const, verification: domainVerification(record), createdAt: record.createdAt };
}

/** docs/api.md 14.2: the tenant's domains, by name. */
export async function listDomains(deps: Pick<Deps, 'store'>, admin: Identity): Promise<DomainView[]> {
  return (await deps.store.domains.listByTenant(admin.tenantId)).map(viewOf);
}

/**
 * docs/api.md 14.2: looks the domain's TXT record up and, when it holds the token, takes
 * the domain for the tenant (one transaction; a domain is verified for one tenant at most).
 * A domain verified already answers so without a lookup, so a lost answer can be asked
 * again. DNS servers that do not answer: 503, the ADMIN may try again.
 */
export async function verifyDomain(deps: DomainDeps, admin: Identity, name: string): Promise<{ domain: string; status: 'verified' }> {
  const domain = await deps.store.domains.find(admin.tenantId, name);
  if (!domain) throw notFound();
  const claim = await deps.store.domains.claimOf(name);
  if (claim && claim.tenantId !== admin.tenantId) throw claimed();
  if (domain.status === 'verified' && claim) return { domain: name, status: 'verified' };

  const expected = domainVerification(domain);
  let records: string[];
  try {
    records = await lookupTxt(deps.config, expected.name);
  } catch (error) {
    if (!(error instanceof DnsUnavailableError)) throw error;
    deps.log.warn('domain_lookup_failed', { tenantId: admin.tenantId, domain: name, code: error.code });
    throw new ServiceUnavailableError({ 'Retry-After': '5' });
  }
  if (!records.some((record) => record.trim() === expected.value)) {
    deps.log.info('domain_not_verified', { tenantId: admin.tenantId, domain: name, records: records.length });
    throw new ValidationError(DOMAIN_NOT_VERIFIED, { code: 'DOMAIN_NOT_VERIFIED' });
  }
  const verified = adminEvent(deps, admin, 'identity.domain.verified', name, { domain: name });
  const outcome = await deps.store.emitting([verified]).domains.verify(domain, new Date(deps.clock.now()).toISOString());
  if (outcome === 'claimed') throw claimed();
  if (outcome === 'gone') throw notFound();
  deps.log.info('domain_verified', { tenantId: admin.tenantId, actorId: admin.userId, domain: name });
  await recordEvent(deps, { ...byAdmin(admin), type: 'domain_verified', outcome: 'success', details: { domain: name } });
  return { domain: name, status: 'verified' };
}

/** Ours, not the contract's (docs/api.md 14.2): removes the tenant's domain and frees its claim. */
export async function deleteDomain(deps: DomainDeps, admin: Identity, name: string): Promise<void> {
  if (!(await deps.store.domains.find(admin.tenantId, name))) throw notFound();
  // False: gone since the read, by another DELETE or by this one's own write retried after
  // its answer was lost. Deleted either way; the event is the write's that deleted it.
  const deleted = adminEvent(deps, admin, 'identity.domain.deleted', name, { domain: name });
  await deps.store.emitting([deleted]).domains.delete(admin.tenantId, name);
  deps.log.info('domain_deleted', { tenantId: admin.tenantId, actorId: admin.userId, domain: name });
  await recordEvent(deps, { ...byAdmin(admin), type: 'domain_deleted', outcome: 'success', details: { domain: name } });
}
