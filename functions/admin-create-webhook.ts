import { type Deps, defaultDeps } from '../lib/deps';
import { ConflictError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { webhookCreated } from '../lib/webhooks/api-schemas';
import { createWebhook, INVALID_WEBHOOK_URL, newWebhook, WEBHOOK_LIMIT_REACHED } from '../lib/webhooks/webhooks';

/** docs/api.md 17.2: where to send, which event types, and a note for the tenant's ADMINs. */
export const body = newWebhook;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = webhookCreated;

/** POST /admin/webhooks (docs/api.md 17.2): a webhook of the ADMIN's tenant, its secret shown once. */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', body, response }, async ({ body, identity, deps }) =>
    ok(await createWebhook(deps, identity, body), 201),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'Create a webhook; its signing secret is shown once (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  answers: [{ status: 201, description: 'The webhook and its secret.', body: 'WebhookCreatedEnvelope', headers: noStore }],
  failures: [
    permissionDenied,
    new ValidationError(INVALID_WEBHOOK_URL, { code: 'INVALID_WEBHOOK_URL' }),
    new ConflictError(WEBHOOK_LIMIT_REACHED, { code: 'WEBHOOK_LIMIT_REACHED' }),
  ],
};
