import type { RequestMakers } from '../deliveries/attempt';
import type { DeliveryPlanner, DeliveryQueue } from '../deliveries/delivery';
import { localDeliveryQueue } from '../deliveries/local-queue';
import { sqsDeliveryQueue } from '../deliveries/sqs-queue';
import type { Deps } from '../deps';
import { backchannelLogoutPlanner, logoutRequest } from '../oauth/backchannel-logout';
import { webhookPlanner, webhookRequest } from '../webhooks/deliveries';
import type { Publishing } from './publish';
import { eventBridgeSink, fileSink } from './sinks';

/** Which deliveries published events call for (docs/api.md 17.2, 17.3). */
export const STAGE_PLANNERS: DeliveryPlanner[] = [webhookPlanner, backchannelLogoutPlanner];
/** How each kind of delivery makes its request (docs/api.md 17.2, 17.3). */
export const STAGE_MAKERS: RequestMakers = { webhook: webhookRequest, backchannel_logout: logoutRequest };

/** The SQS client, made on first use (its package loaded then). */
export function lazySqs(deps: Pick<Deps, 'config'>) {
  let client: Promise<import('@aws-sdk/client-sqs').SQSClient> | undefined;
  return {
    send: async (command: Parameters<import('@aws-sdk/client-sqs').SQSClient['send']>[0]) => {
      client ??= (async () => {
        const [{ SQSClient }, { awsClientSettings }] = await Promise.all([import('@aws-sdk/client-sqs'), import('../aws')]);
        return new SQSClient(await awsClientSettings(deps.config.awsRegion));
      })();
      return (await client).send(command);
    },
  };
}

/**
 * Where deliveries wait (docs/api.md 17.2): the SQS queue `DELIVERY_QUEUE_URL` in AWS;
 * locally, with DynamoDB Local, timers in this process.
 */
function stageQueue(deps: Deps): DeliveryQueue {
  const { deliveryQueueUrl } = deps.config.events;
  if (deliveryQueueUrl) return sqsDeliveryQueue(lazySqs(deps) as never, deliveryQueueUrl, deps.clock);
  if (!deps.config.dynamodbEndpoint) throw new Error('Deliveries need a queue: set DELIVERY_QUEUE_URL');
  return localDeliveryQueue(deps, { makers: STAGE_MAKERS });
}

/**
 * Where this stage publishes (docs/api.md 17.1): the EventBridge bus in AWS (its client
 * loaded on first use); locally, with DynamoDB Local, the events file. The deliveries
 * the events call for are queued (docs/api.md 17.2).
 */
export function stagePublishing(deps: Deps): Publishing {
  const { busName, file } = deps.config.events;
  const sinks = [];
  if (busName) {
    let client: Promise<import('@aws-sdk/client-eventbridge').EventBridgeClient> | undefined;
    const lazy = {
      send: async (command: Parameters<import('@aws-sdk/client-eventbridge').EventBridgeClient['send']>[0]) => {
        client ??= (async () => {
          const [{ EventBridgeClient }, { awsClientSettings }] = await Promise.all([
            import('@aws-sdk/client-eventbridge'),
            import('../aws'),
          ]);
          return new EventBridgeClient(await awsClientSettings(deps.config.awsRegion));
        })();
        return (await client).send(command);
      },
    };
    sinks.push(eventBridgeSink(lazy as never, busName));
  }
  if (file) {
    if (!deps.config.dynamodbEndpoint) throw new Error('EVENTS_FILE is for local development only: in AWS, events go to EVENT_BUS_NAME');
    sinks.push(fileSink(file));
  }
  if (sinks.length === 0) throw new Error('Events need somewhere to go: set EVENT_BUS_NAME (or EVENTS_FILE locally)');
  return { sinks, planners: STAGE_PLANNERS, queue: stageQueue(deps) };
}
