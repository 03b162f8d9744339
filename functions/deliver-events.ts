import middy from '@middy/core';
import type { SQSEvent } from 'aws-lambda';
import type { AttemptSettings } from '../lib/deliveries/attempt';
import { consumeDeliveries, sqsDeliveryQueue } from '../lib/deliveries/sqs-queue';
import { type Deps, defaultDeps } from '../lib/deps';
import { lazySqs, STAGE_MAKERS } from '../lib/events/publishing';

/**
 * The delivery queue's consumer (docs/api.md 17.2): one attempt of each due delivery of
 * the batch, at once; the next attempt of a failed one is queued. Messages it could not
 * handle are reported (ReportBatchItemFailures); SQS moves one that keeps failing to the
 * dead-letter queue.
 */
export function makeHandler(deps: Deps, settings: AttemptSettings = { makers: STAGE_MAKERS }) {
  let queue: ReturnType<typeof sqsDeliveryQueue> | undefined;
  return middy<SQSEvent>().handler((event) => {
    const queueUrl = deps.config.events.deliveryQueueUrl;
    if (!queueUrl) throw new Error('DELIVERY_QUEUE_URL is not set');
    queue ??= sqsDeliveryQueue(lazySqs(deps) as never, queueUrl, deps.clock);
    return consumeDeliveries(deps, settings, queue, event.Records);
  });
}

export const handler = makeHandler(defaultDeps());
