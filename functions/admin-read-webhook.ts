import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { oneWebhook } from '../lib/webhooks/api-schemas';
import { readWebhook, viewOf, WEBHOOK_NOT_FOUND, webhookPath } from '../lib/webhooks/webhooks';

export const params = webhookPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneWebhook;

/** GET /admin/webhooks/{webhookId} (docs/api.md 17.2). */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', params, response }, async ({ params, identity, deps }) =>
    ok({ webhook: viewOf(await readWebhook(deps, identity, params.webhookId)) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'A webhook of the tenant (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  params: true,
  answers: [{ status: 200, description: 'The webhook; never its secret.', body: 'WebhookEnvelope', headers: noStore }],
  failures: [permissionDenied, new NotFoundError(WEBHOOK_NOT_FOUND)],
};
