import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { domainPath } from '../lib/federation/admin-input';
import { DOMAIN_DELETED, DOMAIN_NOT_FOUND, deleteDomain } from '../lib/federation/domains';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const params = domainPath;

/** DELETE /admin/domains/{domain} (docs/api.md 14.2, ours): removes the domain and frees its claim. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteDomain(deps, identity, params.domain);
    return ok({ message: DOMAIN_DELETED });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.2',
  summary: 'Remove a domain of the tenant; another tenant may then verify it (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'Deleted.', body: 'DomainDeletedEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(DOMAIN_NOT_FOUND, { code: 'DOMAIN_NOT_FOUND' })],
};
