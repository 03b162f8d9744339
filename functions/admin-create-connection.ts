import { type Deps, defaultDeps } from '../lib/deps';
import { newConnection } from '../lib/federation/admin-input';
import { oneConnection } from '../lib/federation/api-schemas';
import { createConnection } from '../lib/federation/connection-changes';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';

/** docs/api.md 14.1: an OIDC connection, or a SAML one by its metadata or by its three fields. */
export const body = newConnection;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneConnection;

/** SAML metadata is the largest field (lib/federation/metadata.ts), and JSON escapes its quotes. */
export const CONNECTION_MAX_BODY_BYTES = 320 * 1024;

/** POST /admin/connections (docs/api.md 14.1): a connection to the tenant's identity provider. */
export function makeHandler(deps: Deps) {
  return httpHandler(
    deps,
    { identity: 'required', role: 'ADMIN', body, response, maxBodyBytes: CONNECTION_MAX_BODY_BYTES },
    async ({ body, identity, deps }) => ok({ connection: await createConnection(deps, identity, body) }, 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '14.1',
  summary: 'Connect the tenant’s identity provider, OpenID Connect or SAML 2.0 (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [
    {
      status: 201,
      description: 'The connection, with what to enter at the IdP; never the client secret.',
      body: 'ConnectionEnvelope',
      headers: noStore,
    },
  ],
  failures: [permissionDenied],
};
