import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { deliveryViewOf, oneDelivery } from '../lib/webhooks/api-schemas';
import { testWebhook } from '../lib/webhooks/deliveries';
import { WEBHOOK_NOT_FOUND, webhookPath } from '../lib/webhooks/webhooks';

export const params = webhookPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneDelivery;

/** POST /admin/webhooks/{webhookId}/test (docs/api.md 17.2): one signed test event now, and what came of it. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params, response }, async ({ params, identity, deps }) =>
    ok({ delivery: deliveryViewOf(await testWebhook(deps, identity, params.webhookId)) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'Send a signed identity.webhook.test event to a webhook now and answer its outcome (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [
    {
      status: 200,
      description: 'The test delivery: delivered, or failed with the answer’s status or the error.',
      body: 'WebhookDeliveryEnvelope',
      headers: noStore,
    },
  ],
  failures: [permissionDenied, new NotFoundError(WEBHOOK_NOT_FOUND)],
};
