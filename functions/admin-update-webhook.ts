import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError, ValidationError } from '../lib/errors';
import { httpHandler } from '../lib/http/handler';
import { noStore, type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { ok } from '../lib/http/reply';
import { oneWebhook } from '../lib/webhooks/api-schemas';
import { INVALID_WEBHOOK_URL, updateWebhook, WEBHOOK_NOT_FOUND, webhookChanges, webhookPath } from '../lib/webhooks/webhooks';

/** docs/api.md 17.2: any of `url`, `events`, `description`; the secret stays. */
export const body = webhookChanges;

export const params = webhookPath;

/** The `data` of the success envelope (docs/api.md 5). */
export const response = oneWebhook;

/** PATCH /admin/webhooks/{webhookId} (docs/api.md 17.2). */
export function makeHandler(deps: Deps) {
  return httpHandler(deps, { identity: 'required', role: 'ADMIN', body, params, response }, async ({ body, params, identity, deps }) =>
    ok({ webhook: await updateWebhook(deps, identity, params.webhookId, body) }),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '17.2',
  summary: 'Change a webhook’s URL, event types or description (ADMIN only)',
  tag: 'admin',
  caller: 'admin',
  bodyTypes: ['json'],
  params: true,
  answers: [{ status: 200, description: 'The webhook as changed; never its secret.', body: 'WebhookEnvelope', headers: noStore }],
  failures: [
    permissionDenied,
    new ValidationError(INVALID_WEBHOOK_URL, { code: 'INVALID_WEBHOOK_URL' }),
    new NotFoundError(WEBHOOK_NOT_FOUND),
  ],
};
