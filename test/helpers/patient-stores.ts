import { systemClock } from '../../lib/clock';
import { cryptoRandom } from '../../lib/crypto/random';
import { dynamoStores, type Stores } from '../../lib/deps';
import { localDynamo } from './local-dynamo';

/**
 * The stores on a client that waits longer for a connection than production's 1 s.
 * For tests that fire dozens of requests at once at the one DynamoDB Local JVM of a
 * busy 2-core machine: they test "exactly once", not connection timeouts (the fault
 * and outage tests do), and a refused connection would make them flaky.
 */
export function patientStores(endpoint: string, tableName: string): Stores {
  return dynamoStores(localDynamo({ tableName, endpoint, patient: true }), { random: cryptoRandom, clock: systemClock });
}
