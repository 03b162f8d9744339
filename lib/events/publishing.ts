import type { DeliveryQueue } from '../deliveries/delivery';
import type { Deps } from '../deps';
import type { Publishing } from './publish';
import { eventBridgeSink, fileSink } from './sinks';

/** Until a planner queues deliveries, a queue that is never asked for one. */
const noDeliveries: DeliveryQueue = {
  async enqueue(deliveries) {
    if (deliveries.length > 0) throw new Error('No delivery queue');
  },
};

/**
 * Where this stage publishes (docs/api.md 17.1): the EventBridge bus in AWS (its client
 * loaded on first use); locally, with DynamoDB Local, the events file.
 */
export function stagePublishing(deps: Pick<Deps, 'config'>): Publishing {
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
  return { sinks, planners: [], queue: noDeliveries };
}
