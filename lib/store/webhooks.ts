import { DELIVERY_KINDS, type DeliveryKind } from '../deliveries/kinds';
import * as z from '../zod';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from './commands';
import { cancellationCodes, type Dynamo, isConditionalCheckFailed } from './dynamo';
import { webhookKeys } from './keys';
import { parseRecord } from './records';
import { TTL_ATTRIBUTE } from './table';

/** A webhook of a tenant (docs/api.md 17.2): its signing secret sealed (lib/mfa/secret-box), never in the clear. */
export const webhookSchema = z.object({
  tenantId: z.string(),
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  /** The Standard Webhooks secret `whsec_…`, sealed for this webhook (`webhookSecretContext`). */
  sealedSecret: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The ADMIN who created it. */
  createdBy: z.string(),
});
export type Webhook = z.output<typeof webhookSchema>;

export type WebhookChanges = Partial<Pick<Webhook, 'url' | 'events' | 'description'>> & Pick<Webhook, 'updatedAt'>;

export interface WebhookStore {
  /** Stores a new webhook unless the tenant has `limit` already. */
  create(webhook: Webhook, limit: number): Promise<'created' | 'limit_reached'>;
  /** The webhook of that id in the tenant, read consistently. */
  find(tenantId: string, webhookId: string): Promise<Webhook | undefined>;
  /** Every webhook of the tenant, oldest first. */
  list(tenantId: string): Promise<Webhook[]>;
  /** Changes a webhook; undefined when the tenant has none of that id. */
  update(tenantId: string, webhookId: string, changes: WebhookChanges): Promise<Webhook | undefined>;
  /** Deletes a webhook; false when the tenant has none of that id. */
  remove(tenantId: string, webhookId: string): Promise<boolean>;
}

const deliveryKind = z.enum(DELIVERY_KINDS);

/** docs/api.md 17.2: one entry per delivery, updated at each attempt (never one per attempt), never a body or secret. */
export const deliveryEntrySchema = z.object({
  id: z.string(),
  kind: deliveryKind,
  target: z.string(),
  eventId: z.nullable(z.string()),
  eventType: z.nullable(z.string()),
  attempts: z.number().check(z.int()),
  status: z.enum(['delivered', 'retrying', 'failed']),
  /** The HTTP status of the last answer, if there was one. */
  lastStatus: z.nullable(z.number().check(z.int())),
  /** Why the last attempt got no answer (lib/deliveries/send.ts AttemptError), if it got none. */
  lastError: z.nullable(z.string()),
  firstAttemptAt: z.string(),
  lastAttemptAt: z.string(),
  nextAttemptAt: z.nullable(z.string()),
});
export type DeliveryEntry = z.output<typeof deliveryEntrySchema>;

export interface DeliveryLogStore {
  /** Records an attempt's outcome; an entry already at a later attempt (a duplicate message) is kept. */
  record(tenantId: string, entry: DeliveryEntry, expiresAt: number): Promise<void>;
  /** The newest `limit` deliveries of a target. */
  list(tenantId: string, kind: DeliveryKind, target: string, limit: number): Promise<DeliveryEntry[]>;
}

export function dynamoWebhookStore(dynamo: Dynamo): WebhookStore {
  const { doc, table } = dynamo;
  const parse = (item: Record<string, unknown> | undefined) => parseRecord(webhookSchema, 'webhook', item);
  return {
    async create(webhook, limit) {
      try {
        // One transaction: the webhook and its tenant's count, so two at once cannot pass the limit.
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table,
                  Item: { ...webhookKeys.webhook(webhook.tenantId, webhook.id), ...webhook },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: table,
                  Key: webhookKeys.count(webhook.tenantId),
                  UpdateExpression: 'ADD #count :one',
                  ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
                  ExpressionAttributeNames: { '#count': 'count' },
                  ExpressionAttributeValues: { ':one': 1, ':limit': limit },
                },
              },
            ],
          }),
        );
        return 'created';
      } catch (error) {
        if (cancellationCodes(error)?.[1] === 'ConditionalCheckFailed') return 'limit_reached';
        throw error;
      }
    },

    async find(tenantId, webhookId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table, Key: webhookKeys.webhook(tenantId, webhookId), ConsistentRead: true }),
      );
      return parse(Item);
    },

    async list(tenantId) {
      const webhooks: Webhook[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :webhook)',
            ExpressionAttributeValues: { ':pk': webhookKeys.partition(tenantId), ':webhook': 'WEBHOOK#' },
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const webhook = parse(item);
          if (webhook) webhooks.push(webhook);
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return webhooks.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },

    async update(tenantId, webhookId, changes) {
      const set = Object.entries(changes).filter(([, value]) => value !== undefined);
      try {
        const { Attributes } = await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: webhookKeys.webhook(tenantId, webhookId),
            UpdateExpression: `SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: Object.fromEntries(set.map(([name]) => [`#${name}`, name])),
            ExpressionAttributeValues: Object.fromEntries(set.map(([name, value]) => [`:${name}`, value])),
            ReturnValues: 'ALL_NEW',
          }),
        );
        return parse(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    async remove(tenantId, webhookId) {
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: table, Key: webhookKeys.webhook(tenantId, webhookId), ConditionExpression: 'attribute_exists(pk)' } },
              {
                Update: {
                  TableName: table,
                  Key: webhookKeys.count(tenantId),
                  UpdateExpression: 'ADD #count :minusOne',
                  ExpressionAttributeNames: { '#count': 'count' },
                  ExpressionAttributeValues: { ':minusOne': -1 },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },
  };
}

export function dynamoDeliveryLogStore(dynamo: Dynamo): DeliveryLogStore {
  const { doc, table } = dynamo;
  return {
    async record(tenantId, entry, expiresAt) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...webhookKeys.delivery(tenantId, entry.kind, entry.target, Date.parse(entry.firstAttemptAt), entry.id),
              ...entry,
              [TTL_ATTRIBUTE]: expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR attempts <= :attempts',
            ExpressionAttributeValues: { ':attempts': entry.attempts },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    async list(tenantId, kind, target, limit) {
      const { Items = [] } = await doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :delivery)',
          ExpressionAttributeValues: { ':pk': webhookKeys.deliveries(tenantId, kind, target), ':delivery': 'DELIVERY#' },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return Items.flatMap((item) => parseRecord(deliveryEntrySchema, 'delivery', item) ?? []);
    },
  };
}
