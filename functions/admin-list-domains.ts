import { type Deps, defaultDeps } from '../lib/deps';
import { domainList } from '../lib/federation/api-schemas';
import { listDomains } from '../lib/federation/domains';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = domainList;

/** GET /admin/domains (docs/api.md 14.2): the tenant's domains, by name. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', response }, async ({ identity, deps }) =>
    ok({ domains: await listDomains(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.2',
  summary: 'The tenant’s email domains, pending or verified (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  answers: [{ status: 200, description: 'The domains, by name.', body: 'DomainListEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
