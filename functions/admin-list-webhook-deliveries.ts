import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { deliveryList, deliveryViewOf } from '../lib/webhooks/api-schemas';
import { listWebhookDeliveries } from '../lib/webhooks/deliveries';
import { WEBHOOK_NOT_FOUND, webhookPath } from '../lib/webhooks/webhooks';

export const params = webhookPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = deliveryList;

/** GET /admin/webhooks/{webhookId}/deliveries (docs/api.md 17.2): the latest deliveries, newest first. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params, response }, async ({ params, identity, deps }) =>
    ok({ deliveries: (await listWebhookDeliveries(deps, identity, params.webhookId)).map(deliveryViewOf) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'A webhook’s latest deliveries and what came of them (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [
    {
      status: 200,
      description: 'Up to 50 deliveries, newest first; never a body or secret.',
      body: 'WebhookDeliveryListEnvelope',
      headers: noStore,
    },
  ],
  failures: [permissionDenied, new NotFoundError(WEBHOOK_NOT_FOUND)],
};
