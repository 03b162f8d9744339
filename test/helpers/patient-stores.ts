import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { systemClock } from '../../lib/clock';
import { cryptoRandom } from '../../lib/crypto/random';
import { type Stores, dynamoStores } from '../../lib/deps';

/**
 * The stores on a client that waits longer for a connection than production's 1 s.
 * For tests that fire dozens of requests at once at the one DynamoDB Local JVM of a
 * busy 2-core machine: they test "exactly once", not connection timeouts (the fault
 * and outage tests do), and a refused connection would make them flaky.
 */
export function patientStores(endpoint: string, tableName: string): Stores {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 10_000, requestTimeout: 20_000 }),
  });
  return dynamoStores(
    { doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), table: tableName },
    { random: cryptoRandom, clock: systemClock },
  );
}
