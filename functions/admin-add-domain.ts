import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError } from '../lib/errors';
import { newDomain } from '../lib/federation/admin-input';
import { domainAdded } from '../lib/federation/api-schemas';
import { addDomain, DOMAIN_CLAIMED, DOMAIN_EXISTS } from '../lib/federation/domains';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

export const body = newDomain;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = domainAdded;

/** POST /admin/domains (docs/api.md 14.2): a domain of the tenant, pending until its TXT record is found. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', body, response }, async ({ body, identity, deps }) =>
    ok(await addDomain(deps, identity, body.domain), 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.2',
  summary: 'Add an email domain of the tenant’s staff, with the DNS TXT record that proves control of it (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The domain, pending, and its TXT record.', body: 'DomainAddedEnvelope', headers: noStore }],
  failures: [
    permissionDenied,
    new ConflictError(DOMAIN_EXISTS, { code: 'DOMAIN_EXISTS' }),
    new ConflictError(DOMAIN_CLAIMED, { code: 'DOMAIN_CLAIMED' }),
  ],
};
