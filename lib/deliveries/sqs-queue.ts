import type { SendMessageBatchCommandInput, SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { Clock } from '../clock';
import type { Deps } from '../deps';
import * as z from '../zod';
import { type AttemptSettings, attemptDelivery } from './attempt';
import type { Delivery, DeliveryQueue } from './delivery';

/** SQS delays a message 15 minutes at most: a later attempt is reached by hops (the consumer sends it on until it is due). */
export const MAX_DELAY_SECONDS = 900;
/** SendMessageBatch takes 10 messages at a time. */
const MESSAGES_PER_BATCH = 10;

/** What the queue's messages carry: a delivery and when its attempt is due (epoch ms). */
const message = z.object({
  delivery: z.object({
    id: z.string(),
    kind: z.enum(['webhook', 'backchannel_logout']),
    tenantId: z.string(),
    target: z.string(),
    payload: z.record(z.string(), z.unknown()),
    attempt: z.number().check(z.int(), z.gte(1)),
    firstAttemptAt: z.number(),
  }) satisfies z.ZodMiniType<Delivery>,
  dueAt: z.number(),
});
type Message = z.output<typeof message>;

/** The part of the SQS client the queue uses (a SendMessageBatchCommand). */
export interface SqsSender {
  send(command: { input: SendMessageBatchCommandInput }): Promise<Pick<SendMessageBatchCommandOutput, 'Failed'>>;
}

/** Sends messages, each delayed until it is due or 15 minutes; throws when SQS refused any. */
async function sendMessages(sqs: SqsSender, queueUrl: string, clock: Clock, messages: Message[]) {
  // The package is loaded on first use: only the publisher and the consumer need it.
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  for (let start = 0; start < messages.length; start += MESSAGES_PER_BATCH) {
    const entries = messages.slice(start, start + MESSAGES_PER_BATCH).map((one, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(one),
      DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((one.dueAt - clock.now()) / 1000))),
    }));
    const { Failed = [] } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    if (Failed.length > 0) throw new Error(`SQS refused ${Failed.length} of ${entries.length} deliveries`);
  }
}

/** The delivery queue in AWS (docs/api.md 17.2): an SQS queue whose consumer is the deliverEvents function. */
export function sqsDeliveryQueue(
  sqs: SqsSender,
  queueUrl: string,
  clock: Clock,
): DeliveryQueue & { later(messages: Message[]): Promise<void> } {
  const later = (messages: Message[]) => sendMessages(sqs, queueUrl, clock, messages);
  return {
    enqueue: (deliveries) => later(deliveries.map((delivery) => ({ delivery, dueAt: delivery.firstAttemptAt }))),
    later,
  };
}

/** An SQS message as Lambda hands it over. */
export interface QueueRecord {
  messageId: string;
  body: string;
}

/**
 * The consumer of the delivery queue (docs/api.md 17.2): every message of the batch at
 * once (each attempt bounded by its own timeouts, so a slow receiver holds no other
 * delivery). A message not yet due goes back on the queue (a hop); a failed attempt
 * queues the next. A message that could not be handled is reported, and SQS hands it over
 * again; one that keeps failing ends in the dead-letter queue. A message that is not a
 * delivery is dropped (logged).
 */
export async function consumeDeliveries(
  deps: Deps,
  settings: AttemptSettings,
  queue: ReturnType<typeof sqsDeliveryQueue>,
  records: QueueRecord[],
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
  const failures = await Promise.all(
    records.map(async (record) => {
      let parsed: Message;
      try {
        parsed = message.parse(JSON.parse(record.body));
      } catch {
        deps.log.error('delivery_message_malformed', { messageId: record.messageId });
        return [];
      }
      try {
        if (parsed.dueAt > deps.clock.now() + 1000) {
          await queue.later([parsed]);
          return [];
        }
        const next = await attemptDelivery(deps, settings, parsed.delivery);
        if (next) await queue.later([{ delivery: next.delivery, dueAt: next.dueAt }]);
        return [];
      } catch (error) {
        deps.log.error('delivery_attempt_failed', {
          deliveryId: parsed.delivery.id,
          kind: parsed.delivery.kind,
          tenantId: parsed.delivery.tenantId,
          error,
        });
        return [{ itemIdentifier: record.messageId }];
      }
    }),
  );
  return { batchItemFailures: failures.flat() };
}
