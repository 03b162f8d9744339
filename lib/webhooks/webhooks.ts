import { randomBytes } from 'node:crypto';
import type { AuditEventType } from '../audit/events';
import { byAdmin, recordEvent } from '../audit/record';
import { checkTarget } from '../deliveries/target';
import type { Deps } from '../deps';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { EVENT_TYPES, type EventType } from '../events/catalogue';
import { newEvent } from '../events/event';
import type { Webhook, WebhookChanges } from '../store/webhooks';
import type { Identity } from '../tokens/access-token';
import * as z from '../zod';

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const WEBHOOK_DELETED = 'Webhook deleted';
export const INVALID_WEBHOOK_URL = 'Invalid webhook URL';
export const WEBHOOK_LIMIT_REACHED = 'Webhook limit reached';

/** docs/api.md 17.2: webhooks a tenant may have. */
export const WEBHOOKS_PER_TENANT = 10;

/** The types a webhook may subscribe to: every published type (the test event is sent only by `POST …/test`). */
export const SUBSCRIBABLE_TYPES = EVENT_TYPES.filter((type) => type !== 'identity.webhook.test');

const url = z.string().check(z.trim(), z.minLength(1), z.maxLength(2000));
const events = z.pipe(
  z.array(z.enum(SUBSCRIBABLE_TYPES as [EventType, ...EventType[]])).check(z.minLength(1), z.maxLength(SUBSCRIBABLE_TYPES.length)),
  z.transform((types) => [...new Set(types)]),
);
const description = z.string().check(z.trim(), z.maxLength(200), z.regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u));

/** POST /admin/webhooks (docs/api.md 17.2). */
export const newWebhook = z.strictObject({ url, events, description: z.optional(description) });
/** PATCH /admin/webhooks/{webhookId} (docs/api.md 17.2): at least one member. */
export const webhookChanges = z
  .strictObject({ url: z.optional(url), events: z.optional(events), description: z.optional(description) })
  .check(z.refine((changes) => Object.values(changes).some((value) => value !== undefined), { message: 'Nothing to change' }));
/** The path of the routes on one webhook. */
export const webhookPath = z.strictObject({ webhookId: z.string().check(z.uuid()) });

/** A webhook as the tenant administration answers with it: never its secret. */
export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string;
  createdAt: string;
  updatedAt: string;
}

export const viewOf = (webhook: Webhook): WebhookView => ({
  id: webhook.id,
  url: webhook.url,
  events: webhook.events,
  description: webhook.description,
  createdAt: webhook.createdAt,
  updatedAt: webhook.updatedAt,
});

/** What the secret box binds a webhook's sealed secret to: its tenant and id. */
export const webhookSecretContext = (tenantId: string, webhookId: string) => `webhook:${tenantId}:${webhookId}`;

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

type WebhookDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'source' | 'mfaSecrets'>;

/** docs/api.md 17.2: `https` (http to loopback under `npm start`), to a host whose every address is public. */
async function checkedUrl(deps: Pick<Deps, 'config'>, raw: string): Promise<string> {
  const target = await checkTarget(deps.config, raw);
  if (typeof target === 'string') throw new ValidationError(INVALID_WEBHOOK_URL, { code: 'INVALID_WEBHOOK_URL' });
  return target.url.href;
}

/** The event and audit record of a change of a webhook: its id and types, never its URL (it may carry a token) or secret. */
/** The event of each change of a webhook (docs/events.md, Webhooks). */
const WEBHOOK_EVENTS = {
  created: 'identity.webhook.created',
  updated: 'identity.webhook.updated',
  deleted: 'identity.webhook.deleted',
} as const;

function changeOf(
  deps: WebhookDeps,
  admin: Identity,
  type: 'created' | 'updated' | 'deleted',
  webhookId: string,
  data: Record<string, string[]> = {},
) {
  const event = newEvent(deps, {
    tenantId: admin.tenantId,
    type: WEBHOOK_EVENTS[type],
    subject: webhookId,
    actor: { type: 'user', id: admin.userId },
    data,
  });
  const audit = () =>
    recordEvent(deps, { ...byAdmin(admin), type: `webhook_${type}` satisfies AuditEventType, outcome: 'success', details: { webhookId } });
  return { event, audit };
}

/** docs/api.md 17.2: a webhook of the ADMIN's tenant, and its secret shown this once. */
export async function createWebhook(
  deps: WebhookDeps,
  admin: Identity,
  input: z.output<typeof newWebhook>,
): Promise<{ webhook: WebhookView; secret: string }> {
  const checked = await checkedUrl(deps, input.url);
  const id = deps.random.id();
  const secret = newSecret();
  const now = new Date(deps.clock.now()).toISOString();
  const webhook: Webhook = {
    tenantId: admin.tenantId,
    id,
    url: checked,
    events: input.events,
    description: input.description ?? '',
    sealedSecret: await deps.mfaSecrets.seal(secret, webhookSecretContext(admin.tenantId, id)),
    createdAt: now,
    updatedAt: now,
    createdBy: admin.userId,
  };
  const { event, audit } = changeOf(deps, admin, 'created', id, { events: input.events });
  if ((await deps.store.emitting([event]).webhooks.create(webhook, WEBHOOKS_PER_TENANT)) === 'limit_reached') {
    throw new ConflictError(WEBHOOK_LIMIT_REACHED, { code: 'WEBHOOK_LIMIT_REACHED' });
  }
  deps.log.info('webhook_created', { tenantId: admin.tenantId, actorId: admin.userId, webhookId: id });
  await audit();
  return { webhook: viewOf(webhook), secret };
}

/** docs/api.md 17.2: the tenant's webhooks, oldest first. */
export async function listWebhooks(deps: Pick<Deps, 'store'>, admin: Identity): Promise<WebhookView[]> {
  return (await deps.store.webhooks.list(admin.tenantId)).map(viewOf);
}

/** docs/api.md 17.2: a webhook of the tenant; 404 for any other id. */
export async function readWebhook(deps: Pick<Deps, 'store'>, admin: Identity, webhookId: string): Promise<Webhook> {
  const webhook = await deps.store.webhooks.find(admin.tenantId, webhookId);
  if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  return webhook;
}

/** docs/api.md 17.2: changes a webhook's URL, types or description; its secret stays. */
export async function updateWebhook(
  deps: WebhookDeps,
  admin: Identity,
  webhookId: string,
  input: z.output<typeof webhookChanges>,
): Promise<WebhookView> {
  const changes: WebhookChanges = {
    ...(input.url === undefined ? {} : { url: await checkedUrl(deps, input.url) }),
    ...(input.events === undefined ? {} : { events: input.events }),
    ...(input.description === undefined ? {} : { description: input.description }),
    updatedAt: new Date(deps.clock.now()).toISOString(),
  };
  const changed = Object.keys(input).filter((name) => input[name as keyof typeof input] !== undefined);
  const { event, audit } = changeOf(deps, admin, 'updated', webhookId, { changed, ...(input.events ? { events: input.events } : {}) });
  const webhook = await deps.store.emitting([event]).webhooks.update(admin.tenantId, webhookId, changes);
  if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  deps.log.info('webhook_updated', { tenantId: admin.tenantId, actorId: admin.userId, webhookId });
  await audit();
  return viewOf(webhook);
}

/** docs/api.md 17.2: deletes a webhook; its pending deliveries end at their next attempt. */
export async function deleteWebhook(deps: WebhookDeps, admin: Identity, webhookId: string): Promise<void> {
  const { event, audit } = changeOf(deps, admin, 'deleted', webhookId);
  if (!(await deps.store.emitting([event]).webhooks.remove(admin.tenantId, webhookId))) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  deps.log.info('webhook_deleted', { tenantId: admin.tenantId, actorId: admin.userId, webhookId });
  await audit();
}
