import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { createDynamo, type Dynamo } from '../../lib/store/dynamo';

/**
 * The one place tests make DynamoDB Local clients. Each goes to the run's DynamoDB Local
 * (started by test/global-setup.ts and injected), unless `endpoint` names another: the
 * outage tests' gate in front of it (test/helpers/database-gate.ts), or the soak stack's
 * own. DynamoDB Local runs with -sharedDb, so region and credentials do not matter.
 */
const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/** A bare client, for what the stores do not do: creating and scanning tables. */
export function localClient(endpoint: string = inject('dynamodbEndpoint'), settings: Partial<DynamoDBClientConfig> = {}): DynamoDBClient {
  return new DynamoDBClient({ ...LOCAL, endpoint, ...settings });
}

export interface LocalDynamoOptions {
  /** Default: the run's table. */
  tableName?: string;
  /** Default: the run's DynamoDB Local. */
  endpoint?: string;
  /**
   * Wait up to 10 s for a connection and 20 s for an answer instead of production's 1 s
   * and 2 s (test/helpers/patient-stores.ts says when).
   */
  patient?: boolean;
}

/** The stores' document client and table: by default the service's own (createDynamo). */
export function localDynamo(options: LocalDynamoOptions = {}): Dynamo {
  const tableName = options.tableName ?? inject('tableName');
  const endpoint = options.endpoint ?? inject('dynamodbEndpoint');
  return createDynamo({
    tableName,
    region: LOCAL.region,
    endpoint,
    ...(options.patient ? { timeouts: { connectionTimeoutMs: 10_000, requestTimeoutMs: 20_000 } } : {}),
  });
}
