import { type Deps, defaultDeps } from '../lib/deps';
import type { OperationDoc } from '../lib/http/operation-doc';
import { serviceProviderConfig } from '../lib/scim/discovery';
import { scimDocumentOperation } from '../lib/scim/operation';
import { scimDocumentRoute } from '../lib/scim/route';

/** GET /scim/v2/ServiceProviderConfig (docs/api.md 13.3, RFC 7644 4): a discovery document, no token needed. */
export function makeHandler(deps: Deps) {
  return scimDocumentRoute(deps, serviceProviderConfig);
}

export const handler = makeHandler(defaultDeps());

export const operation: OperationDoc = scimDocumentOperation('SCIM discovery: ServiceProviderConfig');
