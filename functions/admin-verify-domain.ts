import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, NotFoundError, ValidationError } from '../lib/errors';
import { domainPath } from '../lib/federation/admin-input';
import { domainVerified } from '../lib/federation/api-schemas';
import { DOMAIN_CLAIMED, DOMAIN_NOT_FOUND, DOMAIN_NOT_VERIFIED, verifyDomain } from '../lib/federation/domains';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = domainPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = domainVerified;

/** POST /admin/domains/{domain}/verify (docs/api.md 14.2): looks the TXT record up; a domain is verified for one tenant. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params, response }, async ({ params, identity, deps }) =>
    ok(await verifyDomain(deps, identity, params.domain)),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.2',
  summary: 'Verify a domain by its DNS TXT record (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'Verified for this tenant.', body: 'DomainVerifiedEnvelope', headers: noStore }],
  failures: [
    new ValidationError(DOMAIN_NOT_VERIFIED, { code: 'DOMAIN_NOT_VERIFIED' }),
    permissionDenied,
    new NotFoundError(DOMAIN_NOT_FOUND, { code: 'DOMAIN_NOT_FOUND' }),
    new ConflictError(DOMAIN_CLAIMED, { code: 'DOMAIN_CLAIMED' }),
  ],
};
