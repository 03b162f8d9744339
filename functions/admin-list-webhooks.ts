import { type Deps, defaultDeps } from '../lib/deps';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { webhookList } from '../lib/webhooks/api-schemas';
import { listWebhooks } from '../lib/webhooks/webhooks';

/** The `data` of the success envelope (docs/api.md 5). */
export const response = webhookList;

/** GET /admin/webhooks (docs/api.md 17.2): the tenant's webhooks, never their secrets. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', response }, async ({ identity, deps }) =>
    ok({ webhooks: await listWebhooks(deps, identity) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'The tenant’s webhooks, oldest first (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  answers: [{ status: 200, description: 'The webhooks; never their secrets.', body: 'WebhookListEnvelope', headers: noStore }],
  failures: [permissionDenied],
};
