import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHandler } from '../../functions/deliver-events';
import { newEvent } from '../../lib/events/event';
import { STAGE_MAKERS, STAGE_PLANNERS, stagePublishing } from '../../lib/events/publishing';
import type { Identity } from '../../lib/tokens/access-token';
import { webhookPlanner, webhookRequest } from '../../lib/webhooks/deliveries';
import { createWebhook } from '../../lib/webhooks/webhooks';
import { type TestDeps, testDeps, uniqueTenant } from '../helpers/deps';
import { lambdaContext } from '../helpers/http';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/** The delivery queue's consumer (docs/api.md 17.2), as SQS invokes it. */
describe('deliverEvents', () => {
  let deps: TestDeps;
  let receiver: WebhookReceiver;
  const tenantId = uniqueTenant('deliver');

  beforeAll(async () => {
    const base = await testDeps();
    deps = Object.assign(base, {
      config: { ...base.config, events: { ...base.config.events, deliveryQueueUrl: 'https://sqs.example/deliveries' } },
    });
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('is composed with the stage’s planners and request makers', () => {
    expect(STAGE_PLANNERS).toContain(webhookPlanner);
    expect(STAGE_MAKERS.webhook).toBe(webhookRequest);
    expect(stagePublishing({ ...deps, config: { ...deps.config, events: { ...deps.config.events, file: '/dev/null' } } }).planners).toBe(
      STAGE_PLANNERS,
    );
  });

  it('attempts each due delivery of the batch, drops a message that is not one, and reports none', async () => {
    const { webhook } = await createWebhook(deps, { tenantId, userId: 'admin-1' } as Identity, {
      url: `${receiver.origin}/consumed`,
      events: ['identity.user.created'],
    });
    const event = {
      ...newEvent(deps, { tenantId, type: 'identity.user.created', subject: 'u-1', actor: { type: 'system', id: null } }),
      sequence: '1',
    };
    const [delivery] = await webhookPlanner(deps, [event]);
    const records = [
      { messageId: 'm-1', body: JSON.stringify({ delivery, dueAt: deps.clock.now() }) },
      { messageId: 'm-2', body: 'not json' },
    ];
    const answer = await makeHandler(deps)({ Records: records } as unknown as SQSEvent, lambdaContext);
    expect(answer).toEqual({ batchItemFailures: [] });
    const [request] = await receiver.until('/consumed');
    expect(JSON.parse(request?.body ?? '')).toEqual(event);
    expect(await deps.store.deliveryLog.list(tenantId, 'webhook', webhook.id, 5)).toEqual([
      expect.objectContaining({ status: 'delivered' }),
    ]);
    expect(deps.logs.filter((line) => line.event === 'delivery_message_malformed')).toEqual([
      expect.objectContaining({ messageId: 'm-2' }),
    ]);
  });
});
