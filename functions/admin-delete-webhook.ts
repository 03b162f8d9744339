import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { deleteWebhook, WEBHOOK_DELETED, WEBHOOK_NOT_FOUND, webhookPath } from '../lib/webhooks/webhooks';

export const params = webhookPath;

/** DELETE /admin/webhooks/{webhookId} (docs/api.md 17.2): its pending deliveries end at their next attempt. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params }, async ({ params, identity, deps }) => {
    await deleteWebhook(deps, identity, params.webhookId);
    return ok({ message: WEBHOOK_DELETED });
  });
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'Delete a webhook; nothing more is sent to it (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'Deleted.', body: 'WebhookDeletedEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(WEBHOOK_NOT_FOUND)],
};
