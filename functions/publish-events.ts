import middy from '@middy/core';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { type Deps, defaultDeps } from '../lib/deps';
import { type Publishing, publishRecords } from '../lib/events/publish';
import { stagePublishing } from '../lib/events/publishing';

/**
 * The table's stream (docs/api.md 17.1): publishes the events each outbox write carries,
 * in order, to the stage's EventBridge bus, and queues the deliveries they call for.
 * Records it could not publish are reported for another try (ReportBatchItemFailures).
 */
export function makeHandler(deps: Deps, publishing: Publishing = stagePublishing(deps)) {
  return middy<DynamoDBStreamEvent>().handler((event) => publishRecords(deps, publishing, event.Records));
}

export const handler = makeHandler(defaultDeps());
